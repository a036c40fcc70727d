"""gui.widgets.attention_stage: one frame's panels side by side, the unused ones hidden, relaid on resize."""

from __future__ import annotations

from pytestqt.qtbot import QtBot

from engine.attention import attention_steps
from gui.widgets.attention_frames import frame
from gui.widgets.attention_stage import AttentionStage


def test_panels_follow_the_frame(qtbot: QtBot) -> None:
    stage = AttentionStage()
    qtbot.addWidget(stage)
    stage.resize(900, 400)
    steps = attention_steps()
    for index in (0, 3, 7):
        f = frame(steps, index, 1.0)
        stage.show_frame(f)
        visible = [v for v in stage.views if v.isVisibleTo(stage)]
        assert len(visible) == len(f.panels)
        assert [op.text() for op in stage.operators if op.isVisibleTo(stage)] == list(f.operators)
        xs = [v.geometry().x() for v in visible]
        assert xs == sorted(xs)  # left to right
        assert all(v.geometry().right() <= stage.width() for v in visible)
