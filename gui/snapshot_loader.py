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

from pathlib import Path

from PySide6.QtCore import QCoreApplication, QObject, QThread, Signal

from engine.safe_io import InputFileError
from engine.snapshot import Cancelled, Measurement, read_measurement

#: the progress signal's full scale
PROGRESS_MAX = 1000
#: a quitting application waits this long for a read to notice its cancel (it checks every pickle chunk)
QUIT_WAIT_MS = 10_000


def one_line(err: BaseException) -> str:
    """An exception's message on one line (the engine's are already; others may not be)."""
    return " ".join(str(err).split())


class _Job(QThread):
    """One read of one file, in its own thread.

    Signals:
        progressed(int): per mille done (emitted when it changes).
        loaded(object): the ``Measurement``.
        failed(str): one line naming the file and the problem.
        cancelled(): it stopped because ``requestInterruption`` was called.
    """

    progressed = Signal(int)
    loaded = Signal(object)
    failed = Signal(str)
    cancelled = Signal()

    def __init__(self, path: Path, parent: QObject | None) -> None:
        super().__init__(parent)
        self.path = path
        self._last = -1

    def run(self) -> None:
        try:
            measurement = read_measurement(self.path, progress=self._progress)
        except Cancelled:
            self.cancelled.emit()
        except InputFileError as err:  # the engine's refusals, each one line naming the file and the field
            self.failed.emit(one_line(err))
        except MemoryError:
            self.failed.emit(f"{self.path.name}: not enough memory to read it")
        except Exception as err:
            self.failed.emit(f"{self.path.name}: {type(err).__name__}: {one_line(err)}")
        else:
            self.loaded.emit(measurement)

    def _progress(self, fraction: float) -> None:
        if self.isInterruptionRequested():
            raise Cancelled
        permille = int(fraction * PROGRESS_MAX)
        if permille != self._last:
            self._last = permille
            self.progressed.emit(permille)

    def stop(self) -> None:
        """Ask it to stop, and wait until it has (the application is quitting)."""
        self.requestInterruption()
        self.wait(QUIT_WAIT_MS)


class SnapshotLoader(QObject):
    """Reads one snapshot at a time; a new ``start`` abandons the read in progress.

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
        job.loaded.connect(self._loaded)
        job.failed.connect(self._failed)
        job.cancelled.connect(self._cancelled)
        job.finished.connect(job.deleteLater)
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
            for signal in (self._job.progressed, self._job.loaded, self._job.failed, self._job.cancelled):
                signal.disconnect()
            self._job = None

    def _current(self) -> bool:
        return self._job is not None and self.sender() is self._job

    def _progressed(self, permille: int) -> None:
        if self._current():
            self.progressed.emit(permille)

    def _loaded(self, measurement: Measurement) -> None:
        if self._current():
            cancelled = self._job is not None and self._job.isInterruptionRequested()
            self._job = None
            self.cancelled.emit() if cancelled else self.loaded.emit(measurement)

    def _failed(self, reason: str) -> None:
        if self._current():
            self._job = None
            self.failed.emit(reason)

    def _cancelled(self) -> None:
        if self._current():
            self._job = None
            self.cancelled.emit()
