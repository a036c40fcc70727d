"""engine.snapshot.allocator_check: the allocator model replayed over a snapshot's trace reproduces the reserved
bytes it records, on every generated snapshot (each written by the engine's model as the run went, the check
starting from the segments alive at the first event), and says how far off it is when the recorded allocator did
something else."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from engine.allocator import Settings
from engine.allocator.rules import MIB
from engine.snapshot import schema
from engine.snapshot.allocator_check import AllocatorCheck, settings_of, simulate
from engine.snapshot.load import read_snapshot_file
from engine.snapshot.replay import replay
from tools.snapshot_fixtures import StepShape, large, training

PROFILER = Path(__file__).parent / "data" / "profiler_tiny_llama.pickle.gz"
BIG = StepShape(layers=8, weight=30 * MIB, act=11 * MIB, temp=13 * MIB, logits=40 * MIB)
OVERSIZE = StepShape(layers=8, weight=60 * MIB, act=45 * MIB, temp=50 * MIB, logits=70 * MIB)


def check(snap: dict[str, Any]) -> AllocatorCheck:
    s = schema.check(snap)
    return simulate(s, 0, replay(s, 0)).check


CORPUS = {
    "weights before recording": training,
    "recorded from the start": lambda: training(record_weights=True),
    "C++ frames": lambda: training(stacks="all"),
    "expandable segments": lambda: training(settings=Settings(expandable_segments=True)),
    "expandable, from the start": lambda: training(record_weights=True, settings=Settings(expandable_segments=True)),
    "expandable, large tensors": lambda: training(BIG, settings=Settings(expandable_segments=True)),
    "max_split_size_mb:40": lambda: training(OVERSIZE, settings=Settings(max_split_size=40 * MIB)),
    "roundup_power2_divisions:4": lambda: training(BIG, settings=Settings(roundup_power2_divisions=(4,) * 16)),
}


@pytest.mark.parametrize("name", CORPUS)
def test_generated_snapshots_are_reproduced_exactly(name: str) -> None:
    c = check(CORPUS[name]().snapshot())
    assert c.checked, c.reason
    assert c.simulated_peak_reserved_bytes == c.recorded_peak_reserved_bytes
    assert c.simulated_final_reserved_bytes == c.recorded_final_reserved_bytes
    assert c.largest_difference_bytes == 0
    assert c.simulated_segment_allocs == c.recorded_segment_allocs
    assert c.unmatched_releases == 0


def test_a_long_trace() -> None:
    c = check(large(20_000))
    assert c.checked
    assert c.peak_error == 0.0
    assert c.recorded_segment_allocs == c.simulated_segment_allocs > 50


def test_the_snapshots_settings_are_used() -> None:
    snap = training(OVERSIZE, settings=Settings(max_split_size=40 * MIB)).snapshot()
    assert settings_of(snap).max_split_size == 40 * MIB
    assert check(snap).settings == "max_split_size_mb:40"
    snap["allocator_settings"] = {}  # read with PyTorch's defaults instead: oversize blocks are cut, other segments
    c = check(snap)
    assert c.simulated_segment_allocs != c.recorded_segment_allocs


def test_a_profiler_made_snapshot_is_not_checked() -> None:
    c = check(read_snapshot_file(PROFILER))
    assert not c.checked
    assert c.reason.startswith("its segments carry no segment_type")


def ev(action: str, addr: int, size: int, stream: int = 0) -> dict[str, Any]:
    return {"action": action, "addr": addr, "size": size, "stream": stream, "frames": []}


def seg(address: int, total: int, *blocks: tuple[int, str, int]) -> dict[str, Any]:
    return {"device": 0, "address": address, "total_size": total, "stream": 0,
            "segment_type": "small" if total == 2 * MIB else "large", "is_expandable": False,
            "blocks": [{"size": s, "state": st, "requested_size": r, "frames": []} for s, st, r in blocks]}


def test_hand_made_trace_with_a_block_waiting_for_another_stream() -> None:
    """A 20 MiB segment alive at the start holds a 6 MiB block; a 3 MiB tensor used on a side stream is freed but
    its block waits (a free_requested alone) while an 8 MiB tensor takes the 11 MiB behind it: no new segment, as
    recorded; then both go back."""
    a, b = 0x10000000, 0x10000000 + 6 * MIB
    trace = [ev("alloc", b, 3 * MIB), ev("free_requested", b, 3 * MIB), ev("alloc", b + 3 * MIB, 8 * MIB),
             ev("free_completed", b, 3 * MIB), ev("free_requested", a, 6 * MIB), ev("free_completed", a, 6 * MIB)]
    final = seg(a, 20 * MIB, (9 * MIB, "inactive", 0), (8 * MIB, "active_allocated", 8 * MIB),
                (3 * MIB, "inactive", 0))
    c = check({"segments": [final], "device_traces": [trace]})
    assert c.checked
    assert c.recorded_peak_reserved_bytes == c.simulated_peak_reserved_bytes == 20 * MIB
    assert c.largest_difference_bytes == 0


def test_an_allocator_that_did_otherwise_is_measured() -> None:
    """A trace whose 3 MiB tensor got a 4 MiB segment (not PyTorch's 20 MiB for requests between 1 and 10 MiB):
    the model's 20 MiB is 5 x the recorded reserve."""
    trace = [ev("segment_alloc", 0x20000000, 4 * MIB), ev("alloc", 0x20000000, 3 * MIB)]
    final = seg(0x20000000, 4 * MIB, (3 * MIB, "active_allocated", 3 * MIB), (MIB, "inactive", 0))
    c = check({"segments": [final], "device_traces": [trace]})
    assert c.recorded_peak_reserved_bytes == 4 * MIB
    assert c.simulated_peak_reserved_bytes == 20 * MIB
    assert c.peak_error == pytest.approx(4.0)


def test_an_empty_cache_in_the_trace_is_mirrored() -> None:
    """segment_free of a cached segment (torch.cuda.empty_cache()) releases the model's segment of that size, so the
    next 11 MiB tensor needs a new segment in the model too (the first 12 MiB one was alive at the start)."""
    base = 0x30000000
    trace = [ev("alloc", base, 12 * MIB), ev("free_requested", base, 12 * MIB), ev("free_completed", base, 12 * MIB),
             ev("segment_free", base, 12 * MIB), ev("segment_alloc", base, 12 * MIB), ev("alloc", base, 11 * MIB)]
    final = seg(base, 12 * MIB, (12 * MIB, "active_allocated", 11 * MIB))
    c = check({"segments": [final], "device_traces": [trace]})
    assert c.mirrored_releases == 1
    assert c.largest_difference_bytes == 0
    assert c.simulated_segment_allocs == c.recorded_segment_allocs == 1
