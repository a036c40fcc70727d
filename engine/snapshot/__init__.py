"""Reading a user's PyTorch memory snapshot (``torch.cuda.memory._dump_snapshot``) safely, and explaining it.

``read_report(path)`` loads the file without running anything in it (``load``), replays its trace as PyTorch's
memory_viz does (``replay``), finds the training steps and phases from stack frames (``steps``) and breaks the
peak down into the training estimate's terms (``attribution``). Qt-free, like the rest of the engine.
"""

from __future__ import annotations

from pathlib import Path

from engine.snapshot.load import (
    MAX_SNAPSHOT_BYTES,
    Cancelled,
    Progress,
    SnapshotError,
    paused_gc,
    read_snapshot_file,
    release,
    scaled,
)
from engine.snapshot.report import Measurement, SnapshotReport, analyse, measure

__all__ = ["MAX_SNAPSHOT_BYTES", "Cancelled", "Measurement", "Progress", "SnapshotError", "SnapshotReport", "analyse",
           "read_measurement", "read_report"]

#: the share of the work that reading and parsing the file take (the replay and the analysis take the rest):
#: about half each, measured on generated snapshots (bench/snapshot_load.py)
_READ_SHARE = 0.5


def read_report(path: str | Path, device: int | None = None) -> SnapshotReport:
    """The report of the snapshot file at ``path`` for ``device`` (default: the first one with data)."""
    with paused_gc():  # millions of containers: collecting them while they are in use only costs time
        return analyse(read_snapshot_file(path), Path(path).name, device)


def read_measurement(path: str | Path, device: int | None = None, progress: Progress | None = None) -> Measurement:
    """``read_report``'s report with the allocated and reserved bytes after every event. ``progress`` is called
    now and then with the fraction done (0 to 1) and may raise ``Cancelled``, which propagates: what a thread
    that reads a snapshot for a window needs (it also hands the GIL back every pickle chunk: ``load``)."""
    with paused_gc():
        data = read_snapshot_file(path, progress=scaled(progress, 0.0, _READ_SHARE))
        try:
            return measure(data, Path(path).name, device, progress=scaled(progress, _READ_SHARE, 1.0))
        finally:
            release(data)
