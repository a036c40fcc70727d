"""Replaying a snapshot's ``device_traces`` to the allocated and reserved bytes after every event.

**Allocated** follows ``process_alloc_data`` in PyTorch's ``torch/utils/viz/MemoryViz.js`` (the "Active Memory
Timeline" of memory_viz; commit 00067369c9339bed950762afec327514d6fa2566), after its ``annotate_snapshot``
(recent PyTorch moved it to ``torch/utils/viz/process_alloc_data.js``, unchanged for this view):

* a ``free_requested`` immediately followed by the ``free_completed`` of the same address is one free, at the
  ``free_requested``; any other ``free_requested`` changes nothing (the memory is freed at its ``free_completed``);
* ``alloc`` adds its ``size``; a free of an address allocated in the trace removes that allocation's size;
* a free of an address never allocated in the trace was a block alive from the start (its size is the free's
  ``size``), and so is every ``active_allocated`` block of ``segments`` whose address no unfreed ``alloc`` holds
  (its size is its ``requested_size``); ``oom``, ``snapshot`` and segment events change nothing.

The peak is the largest total of the start and of the moment after each event: the top of memory_viz's curve
(its ``max_at_time``; its ``max_size``, the y-axis top, leaves out the start, as ``process_alloc_data.js`` notes).

**Reserved** is the sum of segment sizes, as memory_viz's "Allocator State History" shows it at each event: it
undoes the trace from the snapshot's final ``segments`` (``segment_alloc`` and ``segment_map`` add ``size``,
``segment_free`` and ``segment_unmap`` remove it), so the reserved bytes before the first event are the final
segments' total less every event's change.
"""

from __future__ import annotations

from array import array
from dataclasses import dataclass
from typing import Any, NoReturn

import numpy as np
import numpy.typing as npt

from engine.snapshot.load import SnapshotError

Ints = npt.NDArray[np.int64]

_SEGMENT_SIGN = {"segment_alloc": 1, "segment_map": 1, "segment_free": -1, "segment_unmap": -1}


@dataclass(frozen=True, slots=True)
class Replay:
    """One device's trace replayed. Element ``k`` is one allocation: live after event ``starts[k]`` (-1: alive
    from the start) until event ``ends[k]`` (``events``: never freed), ``sizes[k]`` bytes, allocated with the
    stack ``frames[k]`` (from its ``alloc`` event or its block in ``segments``; None for a block alive from the
    start and freed in the trace: what allocated it was not recorded). ``free_frames`` lists the frees that carry
    frames of their own (not their allocation's, which PyTorch reuses unless ``context="all"``)."""

    events: int
    trace: list[Any]  # the device's events, as read
    allocated: Ints  # after each event
    reserved: Ints  # after each event
    initial_allocated: int
    initial_reserved: int
    starts: Ints
    ends: Ints
    sizes: Ints
    frames: list[Any]
    free_frames: list[tuple[int, Any]]  # (event, frames)
    ooms: list[tuple[int, int, int | None]]  # (event, requested bytes, device free bytes)

    @property
    def peak_allocated(self) -> tuple[int, int]:
        """(bytes, event): the first moment the allocated total is largest; event -1 is the start."""
        return _peak(self.initial_allocated, self.allocated)

    @property
    def peak_reserved(self) -> tuple[int, int]:
        return _peak(self.initial_reserved, self.reserved)

    def live_after(self, event: int) -> npt.NDArray[np.intp]:
        """The elements alive just after ``event`` (-1: at the start)."""
        return np.flatnonzero((self.starts <= event) & (self.ends > event))


def _peak(initial: int, after: Ints) -> tuple[int, int]:
    if after.size == 0 or initial >= int(after.max()):
        return initial, -1
    i = int(after.argmax())
    return int(after[i]), i


def _field(where: str, key: str) -> str:
    return f"{where}.{key}"


#: sizes from 2**62 bytes up cannot be real, and would overflow the int64 sums
_MAX_SIZE = 2**62


def _int(d: dict[str, Any], key: str, where: str) -> int:
    """``d[key]`` as an integer (sizes: 0 to 2**62), or a one-line ``SnapshotError`` naming ``where.key``."""
    try:
        v = d[key]
    except KeyError:
        raise SnapshotError(f"{_field(where, key)}: missing") from None
    if type(v) is not int:
        raise SnapshotError(f"{_field(where, key)}: expected an integer, found {type(v).__name__}")
    if key not in ("addr", "address") and not 0 <= v < _MAX_SIZE:
        raise SnapshotError(f"{_field(where, key)}: {v:,} is not a possible size in bytes")
    return v


class _Builder:
    """The elements and per-event changes, built in one pass over the trace."""

    def __init__(self, n: int) -> None:
        self.n = n
        self.starts: list[int] = []
        self.ends: list[int] = []
        self.sizes: list[int] = []
        self.frames: list[Any] = []
        self.free_frames: list[tuple[int, Any]] = []
        self.delta = array("q", bytes(8 * n))
        self.rdelta = array("q", bytes(8 * n))
        self.addr_to_alloc: dict[int, int] = {}
        self.initial = 0

    def alive_from_start(self, frames: Any, size: int, freed_at: int) -> None:
        self.starts.append(-1)
        self.ends.append(freed_at)
        self.sizes.append(size)
        self.frames.append(frames)
        self.initial += size


def _free(b: _Builder, i: int, e: dict[str, Any]) -> None:
    """A free at event ``i``: of an allocation in the trace, or of a block alive from the start."""
    addr, size, own = e["addr"], e["size"], e.get("frames")
    if type(addr) is not int or type(size) is not int:
        raise TypeError
    k = b.addr_to_alloc.pop(addr, None)
    if k is None:  # alive from the start: allocated before recording began
        b.alive_from_start(None, size, i)
        b.delta[i] = -size
        if own:
            b.free_frames.append((i, own))
    else:
        b.ends[k] = i
        b.delta[i] = -b.sizes[k]
        if own and own is not b.frames[k]:
            b.free_frames.append((i, own))


def _other(b: _Builder, i: int, e: dict[str, Any], a: Any, ooms: list[tuple[int, int, int | None]]) -> None:
    """Segment events (reserved bytes) and OOMs; other actions (snapshot, unknown) change nothing."""
    if type(a) is not str:
        raise TypeError
    if a in _SEGMENT_SIGN:
        size = e["size"]
        if type(size) is not int:
            raise TypeError
        b.rdelta[i] = _SEGMENT_SIGN[a] * size
    elif a == "oom":
        size, free = e["size"], e.get("device_free")
        if type(size) is not int:
            raise TypeError
        ooms.append((i, size, free if type(free) is int else None))


def _walk(trace: list[Any], device: int, b: _Builder) -> list[tuple[int, int, int | None]]:
    """One pass over the trace (module docstring); returns the OOM events. Allocations are handled inline, with
    local names, for speed: a million events take about half a second of CPU."""
    ooms: list[tuple[int, int, int | None]] = []
    n = len(trace)
    starts, ends, sizes, frames, delta, addr_to_alloc = b.starts, b.ends, b.sizes, b.frames, b.delta, b.addr_to_alloc
    skip = False
    i = 0
    try:
        for i, e in enumerate(trace):
            if skip:  # a free_completed merged into the free_requested before it
                skip = False
                continue
            a = e["action"]
            if a == "alloc":
                addr, size = e["addr"], e["size"]
                if type(addr) is not int or type(size) is not int:
                    raise TypeError
                addr_to_alloc[addr] = len(sizes)
                starts.append(i)
                ends.append(n)
                sizes.append(size)
                frames.append(e.get("frames"))
                delta[i] = size
            elif a == "free_requested":
                if i + 1 < n and trace[i + 1]["action"] == "free_completed" and trace[i + 1]["addr"] == e["addr"]:
                    skip = True
                    _free(b, i, e)
            elif a == "free_completed":
                _free(b, i, e)
            else:
                _other(b, i, e, a, ooms)
    except (KeyError, TypeError, AttributeError, OverflowError):
        _explain(trace, device, i)
    return ooms


def _explain(trace: list[Any], device: int, i: int) -> NoReturn:
    """Raise a one-line message naming the first bad field of event ``i`` (or the next one, for a merged free)."""
    for j in (i, i + 1):
        if j >= len(trace):
            break
        where = f"device_traces[{device}][{j}]"
        e = trace[j]
        if not isinstance(e, dict):
            raise SnapshotError(f"{where}: expected an event (a dict), found {type(e).__name__}")
        a = e.get("action")
        if not isinstance(a, str):
            raise SnapshotError(f"{where}.action: " + ("missing" if a is None else "expected a string"))
        keys = ("size",) if a == "oom" or a in _SEGMENT_SIGN else ("addr", "size")
        if a in ("alloc", "free_requested", "free_completed", "oom", *_SEGMENT_SIGN):
            for key in keys:
                _int(e, key, where)
    raise SnapshotError(f"device_traces[{device}][{i}]: malformed event")


def _segment_blocks(segments: list[dict[str, Any]], device: int, b: _Builder) -> int:
    """Blocks alive from the start (module docstring) and the final reserved bytes of ``device``."""
    final_reserved = 0
    for s, seg in enumerate(segments):
        if not isinstance(seg, dict):
            raise SnapshotError(f"segments[{s}]: expected a segment (a dict), found {type(seg).__name__}")
        if seg.get("device") != device:  # memory_viz skips segments of other devices (and without one)
            continue
        where = f"segments[{s}]"
        addr = _int(seg, "address", where)
        final_reserved += _int(seg, "total_size", where)
        blocks = seg.get("blocks")
        if not isinstance(blocks, list):
            raise SnapshotError(f"{where}.blocks: " + ("missing" if blocks is None else "expected a list"))
        for j, block in enumerate(blocks):
            bwhere = f"{where}.blocks[{j}]"
            if not isinstance(block, dict):
                raise SnapshotError(f"{bwhere}: expected a block (a dict), found {type(block).__name__}")
            size = _int(block, "size", bwhere)
            if block.get("state") == "active_allocated" and addr not in b.addr_to_alloc:
                b.alive_from_start(block.get("frames"), _requested(block, bwhere), b.n)
            addr += size  # memory_viz places blocks one after the other from the segment's address
    return final_reserved


def _requested(block: dict[str, Any], where: str) -> int:
    """A block's requested size; old snapshots without ``frames`` may lack it (memory_viz's legacy rule: the
    first history entry's ``real_size``, else the block's size)."""
    if "frames" in block:
        return _int(block, "requested_size", where)
    requested = block.get("requested_size")
    if requested:
        return _int(block, "requested_size", where)
    history = block.get("history")
    if isinstance(history, list) and history and isinstance(history[0], dict) and "real_size" in history[0]:
        return _int(history[0], "real_size", f"{where}.history[0]")
    return _int(block, "size", where)


def replay(snapshot: dict[str, Any], device: int) -> Replay:
    """Replay ``device``'s trace of a checked snapshot (``engine.snapshot.schema.check``)."""
    traces = snapshot["device_traces"]
    trace: list[Any] = traces[device] if device < len(traces) else []
    b = _Builder(len(trace))
    ooms = _walk(trace, device, b)
    final_reserved = _segment_blocks(snapshot["segments"], device, b)
    if max(b.initial, final_reserved) >= _MAX_SIZE:
        raise SnapshotError(f"segments: device {device}'s blocks add up to more bytes than any device holds")
    rsteps = np.cumsum(np.frombuffer(b.rdelta, dtype=np.int64))
    initial_reserved = final_reserved - (int(rsteps[-1]) if rsteps.size else 0)
    if initial_reserved < 0:
        raise SnapshotError(
            f"segments: the segment events of device {device} add {-initial_reserved + final_reserved:,} bytes but the "
            f"final segments hold {final_reserved:,} (an inconsistent snapshot)"
        )
    return Replay(
        events=len(trace),
        trace=trace,
        allocated=np.cumsum(np.frombuffer(b.delta, dtype=np.int64)) + b.initial,
        reserved=rsteps + initial_reserved,
        initial_allocated=b.initial,
        initial_reserved=initial_reserved,
        starts=np.asarray(b.starts, dtype=np.int64),
        ends=np.asarray(b.ends, dtype=np.int64),
        sizes=np.asarray(b.sizes, dtype=np.int64),
        frames=b.frames,
        free_frames=b.free_frames,
        ooms=ooms,
    )
