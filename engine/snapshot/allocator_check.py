"""The allocator model checked against a snapshot: its reserved bytes, replayed from the trace's allocations and
frees alone, against the reserved bytes the snapshot records.

The recorded curve is ``engine.snapshot.replay``'s (the segment events undone from the final ``segments``). The
simulated one comes from ``engine.allocator.caching`` driven by the trace:

* **the start**: a trace begins mid-run, so the model starts where the device was: the segments alive before the
  first event (the final segments with the trace's ``segment_alloc``/``segment_free`` and ``segment_map``/
  ``segment_unmap`` undone), holding the blocks alive then at their addresses (those the trace frees without having
  allocated them, sized ``round_size`` of the freed request, and those allocated in the final segments that the
  trace did not allocate, at their recorded size), the rest of each segment cached free;
* **allocations** are the model's own: ``alloc`` is ``malloc(size, stream)``, the model picking block and segment
  (which is what is checked); ``free_requested`` right before its ``free_completed`` is a ``free``; one on its own
  leaves the block waiting for another stream until its ``free_completed`` (``events_completed``);
* **releases** the trace records (``segment_free``: an ``empty_cache``, or the retry on a full device, which depends
  on a capacity the snapshot does not hold) release the model's cached whole segment of the same stream and size;
  a run of ``segment_unmap`` events releases its cache (``empty_cache``). A release with no match in the model is
  counted (``unmatched_releases``).

The allocator's settings are the snapshot's own (``allocator_settings``: ``expandable_segments``,
``max_split_size``, ``garbage_collection_threshold``, ``roundup_power2_divisions``). A snapshot whose segments carry
no ``segment_type`` was not written by the caching allocator (``torch.cuda._memory_viz._profile_to_snapshot`` makes
one segment of everything) and is not checked; nor is one without events.
"""

from __future__ import annotations

from array import array
from bisect import bisect_right
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from engine.allocator.caching import Block, CachingAllocator
from engine.allocator.rules import MIB, POWER2_INTERVALS, SMALL_BUFFER, SMALL_SIZE, UNLIMITED, Settings, round_size
from engine.snapshot.replay import Ints, Replay

#: above this many events the check is left out (it replays every event in Python: about 2 us each)
MAX_CHECKED_EVENTS = 2_000_000
_RELEASES = ("segment_free", "segment_unmap")
_GROWTH = ("segment_alloc", "segment_map")


def _owner(trace: list[Any], i: int) -> int | None:
    """The ``alloc`` whose ``malloc`` recorded the segment event ``i`` (the first event after the run of segment
    events it belongs to), or None."""
    j = i + 1
    while j < len(trace) and trace[j]["action"] in _GROWTH:
        j += 1
    return j if j < len(trace) and trace[j]["action"] == "alloc" else None


@dataclass(frozen=True, slots=True)
class AllocatorCheck:
    """Simulated against recorded reserved bytes (``python -m engine snapshot``'s ``allocator_check``)."""

    checked: bool
    reason: str  # why not checked; "" when checked
    settings: str = ""
    recorded_peak_reserved_bytes: int = 0
    simulated_peak_reserved_bytes: int = 0
    peak_error: float | None = None  # simulated / recorded - 1
    recorded_final_reserved_bytes: int = 0
    simulated_final_reserved_bytes: int = 0
    final_error: float | None = None
    recorded_segment_allocs: int = 0
    simulated_segment_allocs: int = 0
    mirrored_releases: int = 0
    unmatched_releases: int = 0
    #: the largest difference between the two curves at any event
    largest_difference_bytes: int = 0


@dataclass(frozen=True, slots=True)
class Simulation:
    """The check and the simulated reserved bytes after every event (empty when not checked)."""

    check: AllocatorCheck
    reserved: Ints = field(default_factory=lambda: np.zeros(0, dtype=np.int64))


def settings_of(snapshot: dict[str, Any]) -> Settings:
    """The allocator settings a snapshot records (``allocator_settings``, from ``torch/csrc/cuda/Module.cpp``'s
    ``config_metadata``); PyTorch's defaults where it records none."""
    raw = snapshot.get("allocator_settings")
    if not isinstance(raw, dict):
        return Settings()
    split = raw.get("max_split_size")
    gc = raw.get("garbage_collection_threshold")
    divisions = raw.get("roundup_power2_divisions")
    table: tuple[int, ...] = ()
    if isinstance(divisions, dict) and len(divisions) == POWER2_INTERVALS:
        values = [v for _, v in sorted(((int(k), v) for k, v in divisions.items() if str(k).isdigit()))]
        if all(type(v) is int and v >= 0 for v in values) and any(values):
            table = tuple(values)
    return Settings(
        expandable_segments=raw.get("expandable_segments") is True,
        max_split_size=split if type(split) is int and 0 < split < UNLIMITED else UNLIMITED,
        garbage_collection_threshold=float(gc) if isinstance(gc, (int, float)) and 0 < gc < 1 else 0.0,
        roundup_power2_divisions=table,
    )


def _conf_text(snapshot: dict[str, Any]) -> str:
    raw = snapshot.get("allocator_settings")
    text = raw.get("PYTORCH_CUDA_ALLOC_CONF") if isinstance(raw, dict) else None
    return text if isinstance(text, str) else ""


# -- the state at the first event ------------------------------------------------------------------------------
@dataclass
class _Start:
    segments: dict[int, tuple[int, int, bool]]  # address -> (size, stream, small)
    ranges: dict[tuple[int, bool], list[list[int]]]  # (stream, small) -> mapped [start, end) of expandable segments
    live: list[tuple[int, int, int]]  # (address, size, requested) of blocks alive at the start


def _final(snapshot: dict[str, Any], device: int) -> tuple[list[dict[str, Any]], str]:
    segs = [s for s in snapshot["segments"] if isinstance(s, dict) and s.get("device") == device]
    if any(s.get("segment_type") not in ("small", "large") for s in segs):
        return [], ("its segments carry no segment_type: not written by the caching allocator (torch.profiler's "
                    "converter makes one segment of everything)")
    return segs, ""


def _blocks(seg: dict[str, Any]) -> Iterator[tuple[int, dict[str, Any]]]:
    """A segment's blocks with their addresses (one after the other from the segment's, as memory_viz places them)."""
    addr = seg["address"]
    for b in seg.get("blocks", ()):
        yield addr, b
        addr += b["size"]


def _interval_add(spans: list[list[int]], lo: int, hi: int) -> None:
    spans.append([lo, hi])
    spans.sort()
    merged: list[list[int]] = []
    for s in spans:
        if merged and s[0] <= merged[-1][1]:
            merged[-1][1] = max(merged[-1][1], s[1])
        else:
            merged.append(s)
    spans[:] = merged


def _interval_remove(spans: list[list[int]], lo: int, hi: int) -> None:
    out: list[list[int]] = []
    for a, b in spans:
        if b <= lo or a >= hi:
            out.append([a, b])
            continue
        if a < lo:
            out.append([a, lo])
        if b > hi:
            out.append([hi, b])
    spans[:] = out


def _pool_of(ranges: dict[tuple[int, bool], list[list[int]]], stream: int, addr: int, size: int) -> bool:
    """Whether an expandable segment's range at ``addr`` is the small pool's: a range that is not whole 20 MiB
    pages is (large-pool pages are 20 MiB, small-pool ones 2 MiB); else the pool of the nearest known range of the
    stream (each segment reserves address space for more than the whole device, so the two are far apart); else
    large."""
    if size % (20 * MIB):
        return True
    best: tuple[int, bool] | None = None
    for (st, small), spans in ranges.items():
        if st != stream:
            continue
        for a, b in spans:
            d = 0 if a <= addr < b else min(abs(addr - a), abs(addr - b))
            if best is None or d < best[0]:
                best = (d, small)
    return best[1] if best is not None else False


def _segments_at_start(segs: list[dict[str, Any]], trace: list[Any]) -> _Start:
    """The final segments with the trace's segment events undone, last first."""
    start = _Start({}, {}, [])
    for s in segs:
        small = s["segment_type"] == "small"
        if s.get("is_expandable"):
            _interval_add(start.ranges.setdefault((s["stream"], small), []), s["address"],
                          s["address"] + s["total_size"])
        else:
            start.segments[s["address"]] = (s["total_size"], s["stream"], small)
    for e in reversed(trace):
        a = e["action"]
        if a == "segment_alloc":
            start.segments.pop(e["addr"], None)
        elif a == "segment_free":
            start.segments[e["addr"]] = (e["size"], e["stream"], e["size"] == SMALL_BUFFER)
        elif a in ("segment_map", "segment_unmap"):
            key = (e["stream"], _pool_of(start.ranges, e["stream"], e["addr"], e["size"]))
            spans = start.ranges.setdefault(key, [])
            (_interval_remove if a == "segment_map" else _interval_add)(spans, e["addr"], e["addr"] + e["size"])
    start.ranges = {k: v for k, v in start.ranges.items() if v}
    return start


def _live_at_start(segs: list[dict[str, Any]], trace: list[Any], s: Settings) -> list[tuple[int, int, int]]:
    """Blocks alive before the first event (module docstring), as (address, size, requested)."""
    alive: set[int] = set()
    pending: set[int] = set()
    out: dict[int, tuple[int, int, int]] = {}
    skip = False
    for i, e in enumerate(trace):
        if skip:
            skip = False
            continue
        a = e["action"]
        if a == "alloc":
            alive.add(e["addr"])
        elif a in ("free_requested", "free_completed"):
            addr = e["addr"]
            merged = (a == "free_requested" and i + 1 < len(trace) and trace[i + 1]["action"] == "free_completed"
                      and trace[i + 1]["addr"] == addr)
            skip = merged
            if addr in alive:
                alive.discard(addr)
                if a == "free_requested" and not merged:
                    pending.add(addr)
            elif addr in pending:
                pending.discard(addr)
            elif addr not in out:
                out[addr] = (addr, round_size(max(e["size"], 1), s), e["size"])
    for seg in segs:
        for addr, b in _blocks(seg):
            if str(b.get("state", "")).startswith("active") and addr not in alive and addr not in pending:
                out.setdefault(addr, (addr, b["size"], b.get("requested_size", b["size"])))
    return sorted(out.values())


def _place(start: _Start) -> str:
    """Fit each live block inside its segment (trimmed where a rounded size would overlap the next block; in an
    ordinary large-pool segment a rest of 1 MiB or less kept with the block, as ``should_split`` does); a reason if
    one lies outside."""
    bounds = sorted([(a, a + n, not small) for a, (n, _, small) in start.segments.items()]
                    + [(lo, hi, False) for spans in start.ranges.values() for lo, hi in spans])
    starts = [b[0] for b in bounds]
    placed: list[tuple[int, int, int]] = []
    for k, (addr, rounded, req) in enumerate(start.live):
        j = bisect_right(starts, addr) - 1
        if j < 0 or addr >= bounds[j][1]:
            return f"a block alive at the start (address {addr:#x}) lies outside the segments of that moment"
        _, end, absorbs = bounds[j]
        limit = min(end, start.live[k + 1][0] if k + 1 < len(start.live) else end)
        size = min(rounded, limit - addr)
        if absorbs and 0 < limit - addr - size <= SMALL_SIZE:
            size = limit - addr
        placed.append((addr, size, req))
    start.live = placed
    return ""


def _seed(model: CachingAllocator, start: _Start) -> dict[int, Block]:
    """The start state in the model; its allocated blocks by address."""
    by_addr: dict[int, Block] = {}
    live = start.live
    for addr, (size, stream, small) in sorted(start.segments.items()):
        inside = [b for b in live if addr <= b[0] < addr + size]
        by_addr.update((b.addr, b) for b in model.seed_segment(addr, size, stream, small, inside))
    for (stream, small), spans in sorted(start.ranges.items()):
        ranges = [(lo, hi - lo) for lo, hi in spans]
        inside = [b for b in live if any(lo <= b[0] < hi for lo, hi in spans)]
        by_addr.update((b.addr, b) for b in model.seed_expandable(stream, small, ranges, inside))
    return by_addr


# -- the replay ------------------------------------------------------------------------------------------------
class _Driver:
    """The trace applied to the model (module docstring)."""

    def __init__(self, model: CachingAllocator, live: dict[int, Block]) -> None:
        self.model = model
        self.live = live
        self.pending: dict[int, Block] = {}
        self.mirrored = 0
        self.unmatched = 0

    def run(self, trace: list[Any]) -> Ints:
        """The model's reserved bytes after each event. The common events (an ``alloc``, a ``free_requested``
        with its ``free_completed``) are handled inline: about 1.5 us an event."""
        model, live = self.model, self.live
        malloc, free = model.malloc, model.free
        sim = array("q", bytes(8 * len(trace)))
        n = len(trace)
        ahead = -1  # an event applied before its place: the alloc a segment event belongs to, a merged free
        was_release = False
        for i, e in enumerate(trace):
            if i != ahead:
                a = e["action"]
                if a == "alloc":
                    live[e["addr"]] = malloc(e["size"], e["stream"])
                elif a == "free_requested":
                    nxt = trace[i + 1] if i + 1 < n else None
                    merged = nxt is not None and nxt["action"] == "free_completed" and nxt["addr"] == e["addr"]
                    b = live.pop(e["addr"], None)
                    if merged:
                        ahead = i + 1
                        if b is not None:
                            free(b)
                    elif b is not None:
                        self._wait(b)
                else:
                    ahead = self._other(trace, i, a, e, was_release=was_release, ahead=ahead)
                was_release = a in _RELEASES
            sim[i] = model.reserved
        return np.frombuffer(sim, dtype=np.int64)

    def _wait(self, b: Block) -> None:
        """A free whose block is still used on another stream: it waits until its ``free_completed``."""
        self.model.record_stream(b, -1 - b.stream)
        self.model.free(b)
        self.pending[b.addr] = b

    def _other(self, trace: list[Any], i: int, a: str, e: dict[str, Any], *, was_release: bool, ahead: int) -> int:
        """Segment events, a ``free_completed`` on its own, and the rest; returns the event applied ahead."""
        if a in _GROWTH:  # the malloc that asked for it, so that the curves rise at the same event
            j = _owner(trace, i)
            if j is not None and j != ahead:
                self.live[trace[j]["addr"]] = self.model.malloc(trace[j]["size"], trace[j]["stream"])
                return j
        elif a == "free_completed":
            b = self.pending.pop(e["addr"], None)
            if b is not None:
                self.model.events_completed(b)
            elif (b := self.live.pop(e["addr"], None)) is not None:  # alive from the start, waiting then
                self.model.free(b)
        elif a == "segment_free":
            matched = self.model.release_segment(e["stream"], e["size"])
            self.mirrored += matched
            self.unmatched += not matched
        elif a == "segment_unmap" and not was_release:
            self.model.empty_cache()
            self.mirrored += 1
        return ahead


def _largest_difference(r: Replay, sim: Ints) -> int:
    """The largest gap between the curves, at events outside runs of releases (a run of ``segment_unmap`` is
    released at once in the model, segment by segment in the trace)."""
    keep = np.fromiter((e["action"] not in _RELEASES for e in r.trace), dtype=np.bool_, count=r.events)
    return int(np.abs(sim - r.reserved)[keep].max()) if keep.any() else 0


def _error(simulated: int, recorded: int) -> float | None:
    return simulated / recorded - 1 if recorded else None


def simulate(snapshot: dict[str, Any], device: int, r: Replay) -> Simulation:
    """The allocator model replayed over ``device``'s trace of a checked snapshot (module docstring)."""
    trace = r.trace
    if not trace:
        return Simulation(AllocatorCheck(False, "no events to replay"))
    if len(trace) > MAX_CHECKED_EVENTS:
        return Simulation(AllocatorCheck(False, f"{len(trace):,} events: the check replays at most "
                                                f"{MAX_CHECKED_EVENTS:,}"))
    segs, why = _final(snapshot, device)
    if why:
        return Simulation(AllocatorCheck(False, why))
    why = _unreadable(segs)
    if why:
        return Simulation(AllocatorCheck(False, why))
    try:
        return _simulate(snapshot, segs, r)
    except (KeyError, TypeError, ValueError, AttributeError, IndexError, AssertionError) as err:
        return Simulation(AllocatorCheck(False, f"the trace does not replay ({type(err).__name__}: {err})"))


def _unreadable(segs: list[dict[str, Any]]) -> str:
    """The first field of a segment the check reads beyond what the replay checked, if it has the wrong type (an
    event's: the replay stops with ``TypeError`` or ``KeyError``, and says so)."""
    for k, seg in enumerate(segs):
        if type(seg.get("stream")) is not int:
            return f"segments[{k}].stream: expected an integer"
        if not isinstance(seg.get("blocks"), list) or not all(isinstance(b, dict) for b in seg["blocks"]):
            return f"segments[{k}].blocks: expected a list of blocks"
    return ""


def _simulate(snapshot: dict[str, Any], segs: list[dict[str, Any]], r: Replay) -> Simulation:
    trace = r.trace
    s = settings_of(snapshot)
    start = _segments_at_start(segs, trace)
    start.live = _live_at_start(segs, trace, s)
    why = _place(start)
    if why:
        return Simulation(AllocatorCheck(False, why))
    model = CachingAllocator(s)
    driver = _Driver(model, _seed(model, start))
    seeded, made = model.reserved, model.segments_made
    sim = driver.run(trace)
    return Simulation(_check(snapshot, r, sim, driver, seeded=seeded, made=model.segments_made - made), sim)


def _check(snapshot: dict[str, Any], r: Replay, sim: Ints, d: _Driver, *, seeded: int, made: int) -> AllocatorCheck:
    recorded_peak = r.peak_reserved[0]
    simulated_peak = max(seeded, int(sim.max()))
    recorded_final, simulated_final = int(r.reserved[-1]), int(sim[-1])
    return AllocatorCheck(
        checked=True, reason="", settings=_conf_text(snapshot),
        recorded_peak_reserved_bytes=recorded_peak, simulated_peak_reserved_bytes=simulated_peak,
        peak_error=_error(simulated_peak, recorded_peak),
        recorded_final_reserved_bytes=recorded_final, simulated_final_reserved_bytes=simulated_final,
        final_error=_error(simulated_final, recorded_final),
        recorded_segment_allocs=sum(1 for e in r.trace if e["action"] in ("segment_alloc", "segment_map")),
        simulated_segment_allocs=made,
        mirrored_releases=d.mirrored, unmatched_releases=d.unmatched,
        largest_difference_bytes=_largest_difference(r, sim),
    )
