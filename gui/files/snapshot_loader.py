"""Reading a PyTorch memory snapshot in a worker thread, with progress and cancel: the window never waits for it.

``SnapshotLoader.start(path)`` runs ``engine.snapshot.read_measurement`` (read safely, replay, attribute: seconds
for a snapshot of hundreds of MB) in a ``QThread``. The engine hands the GIL back between pickle chunks and calls
a progress callback, which here emits ``progressed`` and, once ``cancel()`` was asked, raises the engine's
``Cancelled``. The outcome comes back to the GUI thread as one signal: ``loaded(Measurement)``, ``failed(reason)``
with the engine's one-line reason, or ``cancelled()``.

Each read is a ``_Job`` owned by the application, not by the page: a page rebuilt (a language switch) or closed
mid-read asks its job to stop (``destroyed``), and the job finishes and deletes itself on its own, so no running
thread is ever deleted; quitting the application stops and waits for it.

Usage::

    loader = SnapshotLoader(parent=page)
    loader.progressed.connect(bar.setValue)        # 0..1000
    loader.loaded.connect(page.show_measurement)
    loader.failed.connect(page.show_problem)
    loader.start(Path("snapshot.pickle"))
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

from PySide6.QtCore import QCoreApplication, QObject, QThread, Signal

from engine.safe_io import InputFileError
from engine.snapshot import Cancelled, read_measurement

#: the progress signal's full scale
PROGRESS_MAX = 1000
#: at most one progress signal per this many seconds: each is an event the GUI thread must take the GIL for, and
#: Qt dispatches posted events before timers, so a signal per per-mille step (hundreds a second) starved the
#: window's timers for over half a second at a time
PROGRESS_EVERY_S = 0.05
#: a quitting application waits this long for a read to notice its cancel (it checks every pickle chunk)
QUIT_WAIT_MS = 10_000


def one_line(err: BaseException) -> str:
    """An exception's message on one line (the engine's are already; others may not be)."""
    return " ".join(str(err).split())


class _Job(QThread):
    """One read of one file, in its own thread. Its outcome is ``outcome`` once ``finished`` was emitted:
    ``("loaded", Measurement)``, ``("failed", one line naming the file and the problem)`` or ``("cancelled", None)``.

    Signals:
        progressed(int): per mille done (emitted when it changes, at most every ``PROGRESS_EVERY_S``, and at 1000).
    """

    progressed = Signal(int)

    def __init__(self, path: Path, parent: QObject | None) -> None:
        super().__init__(parent)
        self.path = path
        self.outcome: tuple[str, Any] = ("cancelled", None)
        self._last = -1
        self._last_at = 0.0
        self.finished.connect(self._reap)  # queued to the GUI thread, where the job lives

    def run(self) -> None:
        try:
            self.outcome = ("loaded", read_measurement(self.path, progress=self._progress))
        except Cancelled:
            self.outcome = ("cancelled", None)
        except InputFileError as err:  # the engine's refusals, each one line naming the file and the field
            self.outcome = ("failed", one_line(err))
        except MemoryError:
            self.outcome = ("failed", f"{self.path.name}: not enough memory to read it")
        except Exception as err:
            self.outcome = ("failed", f"{self.path.name}: {type(err).__name__}: {one_line(err)}")

    def _progress(self, fraction: float) -> None:
        if self.isInterruptionRequested():
            raise Cancelled
        permille = int(fraction * PROGRESS_MAX)
        now = time.monotonic()
        if permille != self._last and (now - self._last_at >= PROGRESS_EVERY_S or permille == PROGRESS_MAX):
            self._last, self._last_at = permille, now
            self.progressed.emit(permille)

    def stop(self) -> None:
        """Ask it to stop, and wait until it has (the application is quitting)."""
        self.requestInterruption()
        self.wait(QUIT_WAIT_MS)

    def _reap(self) -> None:
        """Delete the job once its thread has really ended (``finished`` comes just before it does)."""
        self.wait()
        self.deleteLater()


class SnapshotLoader(QObject):
    """Reads one snapshot at a time; a new ``start`` abandons the read in progress. When it reports the outcome
    (``loaded``, ``failed`` or ``cancelled``), the read's thread has ended.

    Signals:
        started(str): a read began (the file's name).
        progressed(int): per mille of the current read done.
        loaded(object): the current read's ``Measurement``.
        failed(str): the current read's problem, one line.
        cancelled(): the current read stopped because ``cancel`` was asked.
    """

    started = Signal(str)
    progressed = Signal(int)
    loaded = Signal(object)
    failed = Signal(str)
    cancelled = Signal()

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._job: _Job | None = None
        self.path: Path | None = None

    def start(self, path: Path) -> None:
        """Read ``path`` in a worker thread (abandoning a read in progress)."""
        self._abandon()
        app = QCoreApplication.instance()
        job = _Job(Path(path), app)
        job.progressed.connect(self._progressed)
        job.finished.connect(self._finished)
        self.destroyed.connect(job.requestInterruption)
        if app is not None:
            app.aboutToQuit.connect(job.stop)
        self._job, self.path = job, Path(path)
        job.start()
        self.started.emit(self.path.name)

    def cancel(self) -> None:
        """Ask the read in progress to stop; ``cancelled`` follows when it has."""
        if self._job is not None:
            self._job.requestInterruption()

    def is_busy(self) -> bool:
        return self._job is not None

    def _abandon(self) -> None:
        if self._job is not None:
            self._job.requestInterruption()
            self._job.progressed.disconnect(self._progressed)
            self._job.finished.disconnect(self._finished)
            self._job = None

    def _progressed(self, permille: int) -> None:
        if self._job is not None and self.sender() is self._job:
            self.progressed.emit(permille)

    def _finished(self) -> None:
        job = self._job
        if job is None or self.sender() is not job:
            return
        job.wait()
        self._job = None
        kind, value = job.outcome
        if kind == "loaded" and not job.isInterruptionRequested():
            self.loaded.emit(value)
        elif kind == "failed":
            self.failed.emit(value)
        else:
            self.cancelled.emit()
