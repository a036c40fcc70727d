"""gui.pages.lever_texts: the cards' words, filled with the engine's numbers; the methods named once."""

from __future__ import annotations

from pytestqt.qtbot import QtBot

from engine.catalog import get_gpu, get_model
from engine.lever_facts import communication, lora_share
from engine.levers import LeverKind, advice, long_context_lever
from engine.specs import Checkpointing, Method, Sharding, TrainingSetup
from engine.training.advisor import chunked_recompute
from engine.units import Unit, format_bytes
from gui.pages.lever_texts import (
    card_texts,
    lead_text,
    long_context_note,
    long_context_tips,
    lora_note,
    rule_text,
    zero3_note,
    zero3_steps,
)
from gui.text.choices import method_label

M = get_model("llama-2-7b")


def test_cards_name_their_positions(qtbot: QtBot) -> None:
    assert card_texts(LeverKind.LORA)[3] == [method_label(m) for m in (Method.FULL, Method.LORA, Method.QLORA)] == [
        "Full", "LoRA", "QLoRA"]
    assert len(card_texts(LeverKind.ACTIVATIONS)[3]) == 3
    assert card_texts(LeverKind.ZERO3, 4)[3] == ["1 GPU", "ZeRO-3 × 4"]
    assert zero3_steps(8, TrainingSetup(gpus=4, sharding=Sharding.ZERO2)) == ["4 GPUs, ZeRO-2", "ZeRO-3 × 8"]


def test_notes_carry_the_engines_numbers(qtbot: QtBot) -> None:
    note = lora_note(lora_share(M, TrainingSetup()))
    assert note.startswith("Rank 16: 39,976,960 trainable parameters, 0.59% of all 6,738,415,616")
    z3 = zero3_note(communication(M, TrainingSetup()), Unit.GB, lora=False)
    assert z3.startswith("Communication: 1.50× plain data parallelism")
    assert "only the adapters" in zero3_note(communication(M, TrainingSetup()), Unit.GB, lora=True)


def test_the_rule_names_the_term_and_the_lever(qtbot: QtBot) -> None:
    tip = advice(M, TrainingSetup(), get_gpu("a100-80gb"))
    text = rule_text(tip, "80.86 GB", "0.32 GB", "LoRA · QLoRA", "LoRA")
    assert text.startswith("<b>Find the biggest term first")
    assert "optimizer states (80.86 GB)" in text
    assert "LoRA · QLoRA, set to “LoRA”, moves it to 0.32 GB." in text


def test_the_long_context_card(qtbot: QtBot) -> None:
    title, _, moves, steps = card_texts(LeverKind.LONG_CONTEXT)
    assert title == "Long context: chunked loss · activation offload"
    assert moves.startswith("Moves: logits, activations")
    assert steps == ["Standard", "Chunked", "Fused CE", "+ offload"]
    assert len(long_context_tips()) == len(steps)
    m = get_model("llama-3.1-8b")
    s = TrainingSetup(method=Method.LORA, seq_len=32_768, checkpointing=Checkpointing.FULL)
    offload = long_context_lever(m, s, get_gpu("h200")).steps[-1].estimate
    note = long_context_note(chunked_recompute(m), offload, Unit.GB)
    assert "about 2% more compute" in note
    assert f"moves {format_bytes(offload.offloaded_bytes, Unit.GB)} per GPU to host RAM" in note
    assert format_bytes(offload.host_bytes, Unit.GB) + " per node" in note
    assert lead_text("logits") == "Start here: logits are the biggest term"
