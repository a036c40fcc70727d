"""gui.widgets.stage_bars: each bar is its stage's device total; a click selects the stage under it."""

from __future__ import annotations

import pyqtgraph as pg
from PySide6.QtGui import QFontMetrics
from PySide6.QtWidgets import QApplication
from pytestqt.qtbot import QtBot

from engine.alignment import AlignmentOptions, RolloutEngine, stages
from engine.catalog import get_gpu, get_model
from engine.specs import TrainingSetup
from engine.units import GIB, Unit, format_bytes
from gui.widgets.stage_bars import StageBars


def test_bars_are_the_device_totals(qtbot: QtBot) -> None:
    bars = StageBars()
    qtbot.addWidget(bars)
    all_stages = stages(get_model("llama-2-7b"), TrainingSetup(), get_gpu("h200"))
    bars.set_stages(all_stages, "dpo", Unit.GIB, {})
    assert bars.totals() == {s.stage.value: s.device_bytes / GIB for s in all_stages}


def test_labels_and_height_follow_the_type_size(qtbot: QtBot, qapp: QApplication) -> None:
    font = qapp.font()
    large = qapp.font()
    large.setPointSizeF(font.pointSizeF() * 2)  # presentation mode at 200%
    qapp.setFont(large)
    try:
        bars = StageBars()
        qtbot.addWidget(bars)
        all_stages = stages(get_model("llama-2-7b"), TrainingSetup(), get_gpu("h200"))
        label = "GRPO · 2 model(s)"
        bars.set_stages(all_stages, "dpo", Unit.GB, {"grpo": label})
        axis = bars.getAxis("left")
        assert axis.minimumWidth() >= QFontMetrics(axis.font()).horizontalAdvance(label)
        assert bars.minimumHeight() >= 4 * 2 * QFontMetrics(font).height()  # four bars of two lines each
    finally:
        qapp.setFont(font)


def test_a_vllm_server_is_named_after_the_total(qtbot: QtBot) -> None:
    bars = StageBars()
    qtbot.addWidget(bars)
    options = AlignmentOptions(rollout_engine=RolloutEngine.VLLM_SERVER)
    all_stages = stages(get_model("qwen2.5-7b"), TrainingSetup(), get_gpu("h100-80gb"), options)
    bars.set_stages(all_stages, "grpo", Unit.GB, {})
    texts = [item.textItem.toPlainText() for item in bars.getPlotItem().items if isinstance(item, pg.TextItem)]
    grpo = all_stages[-1]
    assert grpo.elsewhere_bytes > 0
    assert any(t.endswith(f"+ {format_bytes(grpo.elsewhere_bytes, Unit.GB)} on the vLLM server") for t in texts)
    assert sum("vLLM server" in t for t in texts) == 2  # PPO's and GRPO's
