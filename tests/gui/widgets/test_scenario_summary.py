"""gui.widgets.scenario_summary: one line naming the scenario, re-read only when a field it shows changes."""

from __future__ import annotations

from pytestqt.qtbot import QtBot

from engine.specs import Loss, Method
from gui.scenario import Scenario
from gui.widgets.scenario_summary import ScenarioSummary


def test_the_line_follows_the_scenario(qtbot: QtBot) -> None:
    scenario = Scenario()
    line = ScenarioSummary(scenario)
    qtbot.addWidget(line)
    assert line.text().startswith("For your setup: Llama 2 7B, full, bf16-mixed, adamw, batch 1 × 4,096 tokens")
    assert line.text().endswith("1 × A100 80 GB")
    scenario.update(method=Method.LORA, gpus=4)
    assert "lora" in line.text()
    assert line.text().endswith("4 × A100 80 GB, none")
    scenario.update(loss=Loss.CHUNKED, activation_offload=True)
    assert line.text().endswith("4 × A100 80 GB, none, loss chunked, activations offloaded")


def test_a_unit_change_leaves_it_alone(qtbot: QtBot) -> None:
    scenario = Scenario()
    line = ScenarioSummary(scenario)
    qtbot.addWidget(line)
    line.setText("untouched")
    scenario.update(unit="GiB")
    assert line.text() == "untouched"
