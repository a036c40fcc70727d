"""The documented shape of a snapshot, checked where the replay does not check it field by field.

Schema: the ``_snapshot`` docstring in PyTorch's ``torch/cuda/memory.py`` (TypedDicts ``Snapshot``, ``Segment``,
``Block``, ``Frame``, ``TraceEntry``) and what ``torch/csrc/cuda/Module.cpp`` writes: a dict with ``segments`` (a
list of segments, each with ``device``, ``address``, ``total_size``, ``stream`` and ``blocks``) and
``device_traces`` (one list of trace entries per device, each with ``action``, ``addr``, ``size``, ``stream``,
``frames`` and ``time_us``; an ``oom`` has ``device_free`` instead of ``addr``). Unknown keys are ignored.
"""

from __future__ import annotations

from typing import Any

from engine.snapshot.load import SnapshotError


def check(value: Any) -> dict[str, Any]:
    """``value`` as a snapshot dict, or ``SnapshotError`` naming the first field that does not fit."""
    if not isinstance(value, dict):
        raise SnapshotError(f"expected a snapshot (a dict with segments and device_traces), found {_kind(value)}")
    for key in ("segments", "device_traces"):
        if key not in value:
            raise SnapshotError(f"{key}: missing (is this a torch.cuda.memory._snapshot() dump?)")
        if not isinstance(value[key], list):
            raise SnapshotError(f"{key}: expected a list, found {_kind(value[key])}")
    for d, trace in enumerate(value["device_traces"]):
        if not isinstance(trace, list):
            raise SnapshotError(f"device_traces[{d}]: expected a list of events, found {_kind(trace)}")
    for s, seg in enumerate(value["segments"]):
        if not isinstance(seg, dict):
            raise SnapshotError(f"segments[{s}]: expected a segment (a dict), found {_kind(seg)}")
        device = seg.get("device")
        if device is not None and type(device) is not int:
            raise SnapshotError(f"segments[{s}].device: expected an integer, found {_kind(device)}")
    return value


def devices(snapshot: dict[str, Any]) -> list[int]:
    """The devices memory_viz offers: those with events or with segments."""
    with_segments = {seg.get("device") for seg in snapshot["segments"]}
    return [d for d, trace in enumerate(snapshot["device_traces"]) if trace or d in with_segments]


def _kind(value: Any) -> str:
    return "null" if value is None else type(value).__name__
