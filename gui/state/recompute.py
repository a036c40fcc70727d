"""When a page recomputes: batched, and only while it is shown. The one recompute policy of every page.

A page declares the fields it reads from each state it watches (the shared ``Scenario``, its own page state);
a change that touches none of them costs it nothing (a LoRA-rank change never recomputes the serving page).
A change it reads is served:

- while the page is on screen: on the next event-loop turn, once, however many changes that turn brought (a
  slider drag's storm makes one recompute per turn, each reading the newest state). The page's ``now`` part
  (its headline) runs in that turn; its ``later`` parts (views too costly to repaint on every frame of a drag)
  wait until requests have paused for ``pause_ms``, then run one per event-loop turn, so that no turn holds
  more than one of them;
- while it is hidden: not at all; it is marked stale and recomputed once, at once, when it is next shown.

A new ``Recompute`` is stale; ``flush()`` runs whatever is stale or pending now, every part (a page's first
computation in its constructor, an export, a test). ``bench/gui_latency.py`` measures the memory page's two paths.

Usage::

    self.recompute = Recompute(self, now=self._show_headline, later=[self._show_curve, self._show_table])
    self.recompute.watch(scenario, {"model", "gpu", "setup"}).watch(self.state)   # state: every field
    self.recompute.flush()
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import Protocol

from PySide6.QtCore import QEvent, QObject, SignalInstance
from PySide6.QtWidgets import QWidget

from gui.errors import contain
from gui.state.coalesce import Coalescer, Debounce
from gui.state.page_state import Fields, touches

#: how long input must pause before a page's ``later`` parts run (the memory page's charts)
PAUSE_MS = 40


class Observable(Protocol):
    """A state whose ``changed`` signal carries the paths that changed (``gui.state.page_state.PageState``)."""

    @property
    def changed(self) -> SignalInstance: ...


class Recompute(QObject):
    """Runs a page's ``now`` and ``later`` parts when a field it reads changes (see the module docstring).

    Signals: none (it watches the page's Show and Hide events through an event filter).
    """

    def __init__(
        self,
        page: QWidget,
        now: Callable[[], None],
        later: Sequence[Callable[[], None]] = (),
        pause_ms: int = PAUSE_MS,
    ) -> None:
        super().__init__(page)
        self._page, self._now, self._later = page, now, tuple(later)
        self._stale = True
        self._parts: list[Callable[[], None]] = []
        self._turn = Coalescer(self._run, self)
        self._pause = Debounce(self._queue_later, pause_ms, self)
        self._next = Coalescer(self._run_part, self)
        page.installEventFilter(self)

    def watch(self, state: Observable, reads: Iterable[str] | None = None) -> Recompute:
        """Recompute when ``state`` changes a field in ``reads`` (dotted paths; ``None``: any field)."""
        state.changed.connect(_Watch(self, reads).changed)  # a QObject's method: disconnected when it dies
        return self

    def request(self) -> None:
        """Ask for a recompute (batched; deferred while hidden), e.g. after a palette change."""
        if self._page.isVisible():
            self._turn.schedule()
        else:
            self._go_stale()

    def flush(self) -> None:
        """Run now whatever is stale or pending, every part (the page need not be shown)."""
        if self._stale or self._turn.pending():
            self._turn.cancel()
            self._run()
        if self._pause.pending():
            self._pause.cancel()
            self._parts = list(self._later)
        self._next.cancel()
        while self._parts:
            contain(self._parts.pop(0))

    def pending(self) -> bool:
        """Whether some part is still to run (stale while hidden, or waiting for its turn)."""
        return self._stale or self._turn.pending() or self._pause.pending() or bool(self._parts)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if watched is self._page:
            if event.type() == QEvent.Type.Show and self._stale:
                self._run()
            elif event.type() == QEvent.Type.Hide and self.pending():
                self._go_stale()
        return False

    def _go_stale(self) -> None:
        """Drop what is scheduled; the next show (or flush) recomputes everything."""
        self._stale = True
        for timer in (self._turn, self._pause, self._next):
            timer.cancel()
        self._parts = []

    def _run(self) -> None:
        self._stale = False
        contain(self._now)  # an error goes to the error hook, never up through Qt's C++ (gui.errors)
        if self._later:
            self._parts = []
            self._next.cancel()
            self._pause.schedule()

    def _queue_later(self) -> None:
        self._parts = list(self._later)
        self._next.schedule()

    def _run_part(self) -> None:
        if self._parts:
            contain(self._parts.pop(0))
        if self._parts:
            self._next.schedule()


class _Watch(QObject):
    """One watched state's fields; asks its ``Recompute`` when a change touches them.

    Signals: none.
    """

    def __init__(self, recompute: Recompute, reads: Iterable[str] | None) -> None:
        super().__init__(recompute)
        self._recompute = recompute
        self._reads = None if reads is None else frozenset(reads)

    def changed(self, fields: Fields) -> None:
        if self._reads is None or touches(fields, self._reads):
            self._recompute.request()
