"""gui.widgets.lever_card: positions, signals, and the numbers of the lever it is given."""

from __future__ import annotations

from PySide6.QtCore import Qt
from pytestqt.qtbot import QtBot

from engine.catalog import get_gpu, get_model
from engine.levers import POSITIONS, LeverKind, lora_lever
from engine.specs import TrainingSetup
from engine.units import Unit
from gui.widgets.lever_card import LeverCard


def _card(qtbot: QtBot) -> LeverCard:
    card = LeverCard("LoRA", "sub", "moves", ["Full", "LoRA", "QLoRA"], keys=POSITIONS[LeverKind.LORA])
    qtbot.addWidget(card)
    lever = lora_lever(get_model("llama-2-7b"), TrainingSetup(), get_gpu("h200"))
    card.show_lever(lever, 1, Unit.GB, "note")
    return card


def test_clicking_a_position_only_emits(qtbot: QtBot) -> None:
    card = _card(qtbot)
    with qtbot.waitSignal(card.step_selected) as sig:
        qtbot.mouseClick(card.buttons.button(2), Qt.MouseButton.LeftButton)
    assert sig.args == [2]
    assert card.selected() == 1  # the page decides what to show


def test_apply_asks_for_the_selected_position(qtbot: QtBot) -> None:
    card = _card(qtbot)
    with qtbot.waitSignal(card.apply_requested) as sig:
        qtbot.mouseClick(card.apply, Qt.MouseButton.LeftButton)
    assert sig.args == [1]


def test_rows_show_only_terms_that_exist(qtbot: QtBot) -> None:
    card = _card(qtbot)
    assert "sharding_buffers" not in card.numbers()
    assert card.numbers()["gradients"] == ("26.95 GB", "→ 0.16 GB")
    assert "42.30 GB" in card.peak.text()  # LoRA with autocast's bf16 copies of its fp32 adapters


def test_a_leading_card_shows_why_and_stands_out(qtbot: QtBot) -> None:
    card = _card(qtbot)
    assert not card.leading()
    assert card.badge.isHidden()
    card.set_leading("Start here: logits are the biggest term")
    assert card.leading()
    assert not card.badge.isHidden()
    assert card.badge.text() == "Start here: logits are the biggest term"
    card.set_leading("")
    assert not card.leading()
    assert card.badge.isHidden()


def test_positions_have_tooltips(qtbot: QtBot) -> None:
    card = _card(qtbot)
    card.set_step_tips(["a", "b", "c"])
    assert [card.buttons.button(i).toolTip() for i in range(3)] == ["a", "b", "c"]


def test_the_card_says_what_the_position_costs_in_time(qtbot: QtBot) -> None:
    """Issue 29: beside the memory, the step time and tokens/s per GPU before and after (engine.timing)."""
    from engine.timing import step_time

    card = _card(qtbot)
    m, gpu = get_model("llama-2-7b"), get_gpu("h200")
    full = step_time(m, TrainingSetup(), gpu)
    lora = step_time(m, TrainingSetup(method="lora"), gpu)
    change = lora.tokens_per_second_per_gpu / full.tokens_per_second_per_gpu - 1
    assert card.time_text() == (f"Time per step {full.step_seconds:.3g} s → {lora.step_seconds:.3g} s; tokens/s per "
                                f"GPU {full.tokens_per_second_per_gpu:,.0f} → {lora.tokens_per_second_per_gpu:,.0f} "
                                f"({change:+.0%})")


def test_a_gpu_without_figures_says_it_cannot_time(qtbot: QtBot) -> None:
    card = LeverCard("LoRA", "sub", "moves", ["Full", "LoRA", "QLoRA"], keys=POSITIONS[LeverKind.LORA])
    qtbot.addWidget(card)
    card.show_lever(lora_lever(get_model("llama-3.2-1b"), TrainingSetup(), get_gpu("m3-max-128gb")), 1, Unit.GB)
    assert card.time_text() == "Time: cannot be estimated (hover for why)"
    assert card.time.toolTip().startswith("cannot time Apple M3 Max")
