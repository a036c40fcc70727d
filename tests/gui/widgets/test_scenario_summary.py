"""gui.widgets.scenario_summary: one line naming the scenario, re-read only when a field it shows changes."""

from __future__ import annotations

from pytestqt.qtbot import QtBot

from engine.specs import Loss, Method
from gui.state.scenario import Scenario
from gui.widgets.scenario_summary import ScenarioSummary


def test_the_line_follows_the_scenario(qtbot: QtBot) -> None:
    scenario = Scenario()
    line = ScenarioSummary(scenario)
    qtbot.addWidget(line)
    assert line.text() == ("For your setup: Llama 2 7B, Full, bf16-mixed, AdamW, batch 1 × 4,096 tokens, "
                           "SDPA attention, no checkpointing, 1 × A100 80 GB")
    scenario.update(method=Method.LORA, gpus=4)
    assert ", LoRA, " in line.text()
    assert line.text().endswith("4 × A100 80 GB, data parallel")
    scenario.update(loss=Loss.CHUNKED, activation_offload=True)
    assert line.text().endswith("4 × A100 80 GB, data parallel, chunked loss, activations offloaded")


def test_the_line_names_choices_in_words_not_the_engines_identifiers(qtbot: QtBot) -> None:
    """Issue 17: in zh_TW the levers' setup line said "full", "adamw", "sdpa", "none" (the engine's values)."""
    line = ScenarioSummary(Scenario())
    qtbot.addWidget(line)
    for identifier in ("full", "adamw", "sdpa", "none"):
        assert f" {identifier}," not in line.text()


def test_a_unit_change_leaves_it_alone(qtbot: QtBot) -> None:
    scenario = Scenario()
    line = ScenarioSummary(scenario)
    qtbot.addWidget(line)
    line.setText("untouched")
    scenario.update(unit="GiB")
    assert line.text() == "untouched"
