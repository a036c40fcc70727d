"""engine.snapshot.replay: memory_viz's arithmetic on hand-made traces, on generated ones, and against a port."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.snapshot.load import SnapshotError
from engine.snapshot.replay import replay
from tests.engine.snapshot.memory_viz_port import process_alloc_data
from tools.snapshot_fixtures import StepShape, training

A, B, C, X = 0x1000, 0x2000, 0x3000, 0x9000


def ev(action: str, addr: int, size: int, **extra: Any) -> dict[str, Any]:
    key = "device_free" if action == "oom" else "addr"
    return {"action": action, key: addr, "size": size, "stream": 0, "frames": [], **extra}


def free(addr: int, size: int) -> list[dict[str, Any]]:
    return [ev("free_requested", addr, size), ev("free_completed", addr, size)]


def segment(address: int, *blocks: tuple[int, int, str], device: int = 0) -> dict[str, Any]:
    """A segment whose blocks ``(size, requested_size, state)`` follow one another from ``address``."""
    return {"device": device, "address": address, "total_size": sum(b[0] for b in blocks), "stream": 0,
            "blocks": [{"size": s, "requested_size": r, "state": st_, "frames": []} for s, r, st_ in blocks]}


def snap(trace: list[dict[str, Any]], segments: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    return {"segments": segments or [], "device_traces": [trace]}


def test_alloc_and_free_peak_is_the_largest_live_total() -> None:
    trace = [ev("alloc", A, 100), ev("alloc", B, 50), *free(A, 100), ev("alloc", C, 70)]
    r = replay(snap(trace), 0)
    assert r.allocated.tolist() == [100, 150, 50, 50, 120]  # the merged free lands on free_requested
    assert r.peak_allocated == (150, 1)
    assert r.initial_allocated == 0


def test_a_free_requested_not_followed_by_its_completion_frees_at_the_completion() -> None:
    # record_stream: free_requested, other work, then free_completed: the bytes stay until the completion
    trace = [ev("alloc", A, 100), ev("free_requested", A, 100), ev("alloc", B, 50), ev("free_completed", A, 100)]
    r = replay(snap(trace), 0)
    assert r.allocated.tolist() == [100, 100, 150, 50]
    assert r.peak_allocated == (150, 2)


def test_blocks_that_predate_recording_count_from_the_start() -> None:
    # X (300 B) was allocated before recording and is freed in the trace; the segment holds, besides A (allocated
    # in the trace, not counted twice), an active block of 40 requested bytes that the trace never allocated
    trace = [*free(X, 300), ev("alloc", A, 100), ev("alloc", B, 200)]
    segments = [segment(A, (512, 100, "active_allocated"), (512, 40, "active_allocated"), (1024, 0, "inactive")),
                segment(B, (512, 200, "active_allocated"))]
    r = replay(snap(trace, segments), 0)
    assert r.initial_allocated == 340
    assert r.allocated.tolist() == [40, 40, 140, 340]  # the merged pair: one free, the completion changes nothing
    assert r.peak_allocated == (340, -1)  # reached at the start first
    trace.append(ev("alloc", C, 1))
    assert replay(snap(trace, segments), 0).peak_allocated == (341, 4)


def test_memory_viz_quirks_are_kept() -> None:
    # a second free_completed of an address is the free of a block alive from the start; an address allocated
    # twice without a free keeps its first allocation for ever
    trace = [ev("alloc", A, 10), *free(A, 10), ev("free_completed", A, 7), ev("alloc", B, 5), ev("alloc", B, 6),
             *free(B, 6)]
    r = replay(snap(trace), 0)
    assert r.initial_allocated == 7
    assert r.allocated.tolist() == [17, 7, 7, 0, 5, 11, 5, 5]
    max_at_time, _ = process_alloc_data(snap(trace), 0)
    assert max(max_at_time) == r.peak_allocated[0] == 17


def test_reserved_is_undone_from_the_final_segments() -> None:
    # final segments: 2,048 + 512 = 2,560 B; the trace allocated 1,024, freed 512, mapped 256, unmapped 128
    trace = [ev("segment_alloc", A, 1024), ev("segment_free", X, 512), ev("segment_map", B, 256),
             ev("segment_unmap", B, 128), ev("oom", 5, 1 << 40)]
    segments = [segment(A, (2048, 0, "inactive")), segment(B, (512, 0, "inactive"))]
    r = replay(snap(trace, segments), 0)
    assert r.initial_reserved == 2560 - (1024 - 512 + 256 - 128)
    assert r.reserved.tolist() == [2944, 2432, 2688, 2560, 2560]
    assert r.peak_reserved == (2944, 0)
    assert r.ooms == [(4, 1 << 40, 5)]
    assert r.allocated.tolist() == [0] * 5


def test_segment_events_that_the_final_segments_cannot_hold_are_refused() -> None:
    with pytest.raises(SnapshotError, match=r"segments: .*inconsistent"):
        replay(snap([ev("segment_alloc", A, 1024)]), 0)


def test_other_devices_and_legacy_blocks() -> None:
    s = {"segments": [segment(A, (512, 100, "active_allocated"), device=1),
                      {"device": 0, "address": B, "total_size": 512, "blocks": [{"size": 512, "state":
                                                                                   "active_allocated"}]}],
         "device_traces": [[], [ev("alloc", C, 9)]]}
    assert replay(s, 0).initial_allocated == 512  # old format: no frames, no requested_size -> the block size
    assert replay(s, 1).peak_allocated == (109, 0)


def test_generated_training_steps_replay_to_the_truth() -> None:
    for stacks in ("python", "all"):
        a = training(StepShape(), stacks=stacks)
        r = replay(a.snapshot(), 0)
        assert r.initial_allocated == a.truth_initial
        assert r.allocated.tolist() == a.truth_allocated
        assert r.peak_allocated[0] == a.peak
        assert int(r.reserved[-1]) == a.reserved


def test_generated_training_steps_match_memory_viz() -> None:
    s = training(StepShape(layers=3), stacks="python").snapshot()
    max_at_time, _ = process_alloc_data(s, 0)
    assert replay(s, 0).peak_allocated[0] == max(max_at_time)


_OPS = st.lists(st.tuples(st.sampled_from(["alloc", "free", "free_requested", "free_completed", "other"]),
                          st.integers(0, 5), st.integers(1, 1000)), max_size=60)
_BLOCKS = st.lists(st.tuples(st.integers(0, 7), st.integers(1, 1000), st.booleans()), max_size=6)


@settings(max_examples=300, deadline=None)
@given(_OPS, _BLOCKS)
def test_any_trace_peaks_where_memory_viz_does(ops: list[tuple[str, int, int]],
                                               blocks: list[tuple[int, int, bool]]) -> None:
    trace: list[dict[str, Any]] = []
    for action, slot, size in ops:
        addr = 0x1000 * (slot + 1)
        if action == "free":
            trace += free(addr, size)
        elif action == "other":
            trace.append(ev("segment_alloc", addr, 0))
        else:
            trace.append(ev(action, addr, size))
    segments = [segment(0x1000 * (slot + 1), (4096, req, "active_allocated" if active else "inactive"))
                for slot, req, active in {b[0]: b for b in blocks}.values()]
    s = snap(trace, segments)
    r = replay(s, 0)
    max_at_time, _ = process_alloc_data(s, 0)
    assert r.peak_allocated[0] == max(max_at_time, default=0)
    assert int(r.allocated[-1] if r.events else r.initial_allocated) == sum(
        int(r.sizes[k]) for k in r.live_after(r.events - 1).tolist())
