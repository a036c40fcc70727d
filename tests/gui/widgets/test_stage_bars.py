"""gui.widgets.stage_bars: each bar is its stage's device total; a click selects the stage under it."""

from __future__ import annotations

from pytestqt.qtbot import QtBot

from engine.alignment import stages
from engine.catalog import get_gpu, get_model
from engine.specs import TrainingSetup
from engine.units import GIB, Unit
from gui.widgets.stage_bars import StageBars


def test_bars_are_the_device_totals(qtbot: QtBot) -> None:
    bars = StageBars()
    qtbot.addWidget(bars)
    all_stages = stages(get_model("llama-2-7b"), TrainingSetup(), get_gpu("h200"))
    bars.set_stages(all_stages, "dpo", Unit.GIB, {})
    assert bars.totals() == {s.stage.value: s.device_bytes / GIB for s in all_stages}
