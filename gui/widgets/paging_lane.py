"""One lane of the paging animation: an allocation's simulation, its newest frame, the widgets showing it."""

from __future__ import annotations

from collections.abc import Iterator

from PySide6.QtWidgets import QLabel, QWidget

from engine.serving import Allocation, EventKind, Frame, PoolSpec, Request, simulate
from gui.widgets.block_map import BlockMap


class Lane:
    """One allocation's simulation, its newest frame and the widgets showing it."""

    def __init__(self, allocation: Allocation, pool: PoolSpec, parent: QWidget) -> None:
        self.allocation = allocation
        self.frames: Iterator[Frame] = iter(())
        self.frame: Frame | None = None
        self.finished = 0
        self.done = False
        self.title = QLabel(parent)
        self.title.setWordWrap(True)
        self.map = BlockMap(pool.blocks, parent=parent)
        self.waste = QLabel(parent)
        self.waste.setObjectName(f"waste-{allocation.value}")
        self.status = QLabel(parent)

    def restart(self, requests: tuple[Request, ...], pool: PoolSpec) -> None:
        self.frames = simulate(requests, self.allocation, pool)
        self.frame, self.finished, self.done = None, 0, False

    def advance(self, steps: int) -> None:
        for _ in range(steps):
            frame = next(self.frames, None)
            if frame is None:
                self.done = True
                return
            self.frame = frame
            self.finished += sum(e.kind is EventKind.FINISH for e in frame.events)
