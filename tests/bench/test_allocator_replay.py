"""bench/allocator_replay.py: its step is a 70B-sized sequence (tens of thousands of events) and runs."""

from __future__ import annotations

from bench import allocator_replay
from engine.allocator import CachingAllocator


def test_the_step_has_the_size_of_a_real_one() -> None:
    assert allocator_replay.events_per_step() > 30_000
    a = CachingAllocator()
    allocator_replay.step(a)
    assert a.allocated == 0
    assert a.peak_reserved >= a.peak_allocated > 0
