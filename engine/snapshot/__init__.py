"""Reading a user's PyTorch memory snapshot (``torch.cuda.memory._dump_snapshot``) safely, and explaining it.

``read_report(path)`` loads the file without running anything in it (``load``), replays its trace as PyTorch's
memory_viz does (``replay``), finds the training steps and phases from stack frames (``steps``) and breaks the
peak down into the training estimate's terms (``attribution``). Qt-free, like the rest of the engine.
"""

from __future__ import annotations

from pathlib import Path

from engine.snapshot.load import MAX_SNAPSHOT_BYTES, SnapshotError, paused_gc, read_snapshot_file
from engine.snapshot.report import SnapshotReport, analyse

__all__ = ["MAX_SNAPSHOT_BYTES", "SnapshotError", "SnapshotReport", "analyse", "read_report"]


def read_report(path: str | Path, device: int | None = None) -> SnapshotReport:
    """The report of the snapshot file at ``path`` for ``device`` (default: the first one with data)."""
    with paused_gc():  # millions of containers: collecting them while they are in use only costs time
        return analyse(read_snapshot_file(path), Path(path).name, device)
