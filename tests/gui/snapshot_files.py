"""Snapshot files for the GUI tests: generated ones (``tools.snapshot_fixtures``), PyTorch's own, hostile ones."""

from __future__ import annotations

import gzip
import os
import pickle
from pathlib import Path
from typing import Any

from tools.snapshot_fixtures import StepShape, large, training

#: a snapshot PyTorch itself made (torch.profiler's memory timeline of two tiny-llama steps; see its test)
PYTORCH_MADE = Path(__file__).parents[1] / "engine" / "snapshot" / "data" / "profiler_tiny_llama.pickle.gz"
#: events in the large snapshot: about 50 MB of pickle, a second or two to read here
LARGE_EVENTS = 500_000


def small(folder: Path, name: str = "snapshot.pickle", steps: int = 3) -> Path:
    """Three training steps of a four-layer toy model, pickled as ``_dump_snapshot`` pickles."""
    path = folder / name
    path.write_bytes(pickle.dumps(training(StepShape(layers=4), steps=steps).snapshot(), protocol=4))
    return path


def big(folder: Path) -> Path:
    path = folder / "large.pickle"
    path.write_bytes(pickle.dumps(large(LARGE_EVENTS), protocol=4))
    return path


def hostile(folder: Path, marker: Path) -> Path:
    """A pickle that would create ``marker`` if anything in it ran."""

    class Evil:
        def __reduce__(self) -> tuple[Any, ...]:
            return (os.system, (f"touch {marker}",))

    path = folder / "evil.pickle"
    path.write_bytes(pickle.dumps({"segments": [], "device_traces": [[Evil()]]}, protocol=4))
    return path


def truncated(folder: Path) -> Path:
    path = folder / "cut.pickle.gz"
    path.write_bytes(gzip.compress(pickle.dumps(training().snapshot()), mtime=0)[:-40])
    return path
