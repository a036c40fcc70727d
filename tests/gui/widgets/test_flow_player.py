"""gui.widgets.flow_player: a packet along each path in turn, then gone; stop at any time."""

from __future__ import annotations

from PySide6.QtCore import QPointF
from PySide6.QtGui import QColor, QPainterPath
from PySide6.QtWidgets import QGraphicsScene
from pytestqt.qtbot import QtBot

from gui.widgets.flow_player import FlowPlayer


def _path(x: float) -> QPainterPath:
    path = QPainterPath(QPointF(0, 0))
    path.lineTo(QPointF(x, 0))
    return path


def test_plays_each_path_then_removes_the_packet(qtbot: QtBot) -> None:
    scene = QGraphicsScene()
    player = FlowPlayer(step_ms=5)
    started: list[int] = []
    player.flow_started.connect(started.append)
    with qtbot.waitSignal(player.playing_changed, timeout=1000) as signal:
        player.play(scene, [(_path(10), "a"), (_path(20), "b")], QColor("red"))
    assert signal.args == [True]
    assert player.is_playing()
    assert len(scene.items()) == 2  # the packet and its caption
    with qtbot.waitSignal(player.playing_changed, timeout=2000) as ended:
        pass
    assert ended.args == [False]
    assert started == [0, 1]
    assert scene.items() == []


def test_stop_removes_the_packet(qtbot: QtBot) -> None:
    scene = QGraphicsScene()
    player = FlowPlayer(step_ms=1000)
    player.play(scene, [(_path(10), "a")], QColor("red"))
    stops: list[bool] = []
    player.playing_changed.connect(stops.append)
    player.stop()
    assert stops == [False]
    assert not player.is_playing()
    assert scene.items() == []
    player.stop()
    assert stops == [False]  # idle: nothing to say
