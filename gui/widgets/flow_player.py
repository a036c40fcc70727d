"""One step of a stage's loop, played on demand: a packet travels along each arrow in turn, carrying its label.

A ``QSequentialAnimationGroup`` of ``QVariantAnimation``s (0 -> 1 along each arrow's path). The owner stops it when
its view is hidden or closed; nothing runs unless ``play`` was asked for.
"""

from __future__ import annotations

from collections.abc import Sequence

from PySide6.QtCore import QEasingCurve, QObject, QPointF, QSequentialAnimationGroup, QVariantAnimation, Signal
from PySide6.QtGui import QBrush, QColor, QPainterPath, QPen
from PySide6.QtWidgets import QGraphicsEllipseItem, QGraphicsScene, QGraphicsSimpleTextItem

RADIUS = 8.0


class FlowPlayer(QObject):
    """Moves a packet along paths, one after another.

    Signals:
        playing_changed(bool): a run started (True) or ended, finished or stopped (False).
        flow_started(int): the packet set off along path number ``i``.
    """

    playing_changed = Signal(bool)
    flow_started = Signal(int)

    def __init__(self, parent: QObject | None = None, step_ms: int = 700) -> None:
        super().__init__(parent)
        self.step_ms = step_ms
        self._group = self._new_group()
        self._packet: QGraphicsEllipseItem | None = None
        self._label: QGraphicsSimpleTextItem | None = None

    def is_playing(self) -> bool:
        return self._group.state() == QSequentialAnimationGroup.State.Running

    def play(self, scene: QGraphicsScene, paths: Sequence[tuple[QPainterPath, str]], colour: QColor) -> None:
        """Start (or restart) the run on ``scene``."""
        self.stop()
        self._group.deleteLater()  # a fresh group per run (clearing a used one makes Qt warn)
        self._group = self._new_group()
        packet = scene.addEllipse(-RADIUS, -RADIUS, 2 * RADIUS, 2 * RADIUS, QPen(colour), QBrush(colour))
        label = scene.addSimpleText("")
        packet.setZValue(10)
        label.setZValue(10)
        label.setBrush(QBrush(colour))
        self._packet, self._label = packet, label
        for i, (path, caption) in enumerate(paths):
            anim = QVariantAnimation(self._group)
            anim.setStartValue(0.0)
            anim.setEndValue(1.0)
            anim.setDuration(self.step_ms)
            anim.setEasingCurve(QEasingCurve.Type.InOutQuad)
            anim.valueChanged.connect(lambda t, p=path: self._move(p.pointAtPercent(float(t))))
            anim.stateChanged.connect(lambda new, _old, i=i, text=caption: self._started(new, i, text))
            self._group.addAnimation(anim)
        self._group.start()
        self.playing_changed.emit(True)

    def _new_group(self) -> QSequentialAnimationGroup:
        group = QSequentialAnimationGroup(self)
        group.finished.connect(self._finished)
        return group

    def stop(self) -> None:
        """Stop a run and remove the packet (no-op when idle)."""
        was = self.is_playing()
        self._group.stop()
        self._remove_packet()
        if was:
            self.playing_changed.emit(False)

    def _started(self, state: QVariantAnimation.State, index: int, text: str) -> None:
        if state == QVariantAnimation.State.Running and self._label is not None:
            self._label.setText(text)
            self.flow_started.emit(index)

    def _move(self, point: QPointF) -> None:
        if self._packet is not None and self._label is not None:
            self._packet.setPos(point)
            self._label.setPos(point.x() + RADIUS + 2, point.y() - 2.5 * RADIUS)

    def _remove_packet(self) -> None:
        for item in (self._packet, self._label):
            if item is not None and item.scene() is not None:
                item.scene().removeItem(item)
        self._packet = self._label = None

    def _finished(self) -> None:
        self._remove_packet()
        self.playing_changed.emit(False)
