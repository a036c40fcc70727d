"""gui.widgets.paging_lane: one allocation's simulation stepped forward, its finished requests counted."""

from __future__ import annotations

from PySide6.QtWidgets import QWidget
from pytestqt.qtbot import QtBot

from engine.serving import Allocation, EventKind, PoolSpec, simulate
from engine.serving.trace import SHAREGPT, request_stream
from gui.widgets.paging_lane import Lane

REQUESTS = request_stream(SHAREGPT, 10, 1)


def test_advance_and_finish(qtbot: QtBot) -> None:
    host = QWidget()
    qtbot.addWidget(host)
    lane = Lane(Allocation.PAGED, PoolSpec(), host)
    assert lane.frame is None
    lane.restart(REQUESTS, PoolSpec())
    lane.advance(5)
    assert lane.frame is not None
    assert lane.frame.step == list(simulate(REQUESTS, Allocation.PAGED, PoolSpec()))[4].step
    lane.advance(1_000_000)
    assert lane.done
    frames = list(simulate(REQUESTS, Allocation.PAGED, PoolSpec()))
    assert lane.finished == sum(e.kind is EventKind.FINISH for f in frames for e in f.events) == len(REQUESTS)
    lane.restart(REQUESTS, PoolSpec())
    assert (lane.frame, lane.finished, lane.done) == (None, 0, False)
