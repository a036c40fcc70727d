"""gui.pages.alignment_texts: every stage has its name, blurb, node labels and facts with their sources."""

from __future__ import annotations

import pytest
from pytestqt.qtbot import QtBot

from engine.alignment import FACTS, AlignmentOptions, RolloutEngine, Stage, stage_memory
from engine.catalog import get_gpu, get_model
from engine.specs import TrainingSetup
from engine.units import Unit
from gui.pages.alignment_texts import facts_html, intro, node_labels, rollout_text, stage_blurb, stage_name


@pytest.mark.parametrize("stage", list(Stage))
def test_every_stage_has_its_words(qtbot: QtBot, stage: Stage) -> None:
    assert stage_name(stage) == stage.value.upper()
    assert stage_blurb(stage)
    assert set(node_labels(stage)) == {"data", "loss"}
    html = facts_html(stage)
    assert html.count("<li>") == len(FACTS[stage])
    for fact in FACTS[stage]:
        assert fact.source.replace("&", "&amp;") in html


def test_facts_are_escaped(qtbot: QtBot) -> None:
    assert "<ul" in facts_html(Stage.DPO)
    assert intro().startswith("After SFT")


def test_the_rollout_line_is_the_engines_shape(qtbot: QtBot) -> None:
    m, s, gpu = get_model("qwen2.5-7b"), TrainingSetup(batch=2, grad_accum=4), get_gpu("h100-80gb")
    assert rollout_text(None, 0, Unit.GB).startswith("Completions not sampled")
    ppo = stage_memory(Stage.PPO, m, s, gpu, AlignmentOptions(max_completion_length=256))
    assert ppo.rollout is not None
    assert rollout_text(ppo.rollout, 0, Unit.GB) == ("This step trains on 2 sequences of 512 + 256 tokens and "
                                                     "samples 8 completions at once.")  # PPO: G = 1, all logits
    server = AlignmentOptions(num_generations=4, rollout_engine=RolloutEngine.VLLM_SERVER)
    grpo = stage_memory(Stage.GRPO, m, s, gpu, server)
    assert grpo.rollout is not None
    text = rollout_text(grpo.rollout, 10**9, Unit.GB)
    assert text.startswith("This step trains on 8 sequences of 512 + 512 tokens and samples 32 completions at once.")
    assert "Logits for the last 513 positions only" in text
    assert text.endswith("The vLLM server needs 1.00 GB on GPUs of its own.")
