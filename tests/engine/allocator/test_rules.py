"""engine.allocator.rules: round_size, get_pool, get_allocation_size and should_split, by hand."""

from __future__ import annotations

import pytest

from engine.allocator.rules import MIB, Settings, allocation_size, is_small, round_size, should_split

KIB = 1024
PLAIN = Settings()


@pytest.mark.parametrize(("size", "rounded"), [(1, 512), (512, 512), (513, 1024), (MIB + 1, MIB + 512),
                                               (1200, 1536)])
def test_round_size_to_512_bytes(size: int, rounded: int) -> None:
    assert round_size(size, PLAIN) == rounded


def test_roundup_power2_divisions() -> None:
    """roundup_power2_next_division: with 4 divisions, 1.2 MiB (in [1, 2) MiB, steps of 256 KiB) -> 1.25 MiB;
    1,200 bytes is not above 512 x 4, so plain rounding; a power of two stays."""
    four = Settings(roundup_power2_divisions=(4,) * 16)
    assert round_size(1_258_291, four) == 1_310_720
    assert round_size(1200, four) == 1536
    assert round_size(4 * MIB, four) == 4 * MIB
    eight_from_64 = Settings(roundup_power2_divisions=(0,) * 6 + (8,) * 10)  # 64 MiB and up: 8 divisions
    assert round_size(65 * MIB, eight_from_64) == 72 * MIB
    assert round_size(33 * MIB, eight_from_64) == 33 * MIB


def test_pools_and_segment_sizes() -> None:
    assert is_small(MIB)
    assert not is_small(MIB + 512)
    assert allocation_size(512) == allocation_size(MIB) == 2 * MIB
    assert allocation_size(MIB + 512) == allocation_size(10 * MIB - 512) == 20 * MIB
    assert allocation_size(10 * MIB) == 10 * MIB
    assert allocation_size(10 * MIB + 512) == 12 * MIB


def test_split_thresholds() -> None:
    """Small pool: a rest of 512 bytes is split off; large pool: only a rest above 1 MiB, and never for a request
    of max_split_size or more; with expandable segments, any rest of 512 bytes."""
    assert should_split(2 * MIB, 2 * MIB - 512, True, PLAIN)
    assert not should_split(2 * MIB, 2 * MIB - 256, True, PLAIN)
    assert not should_split(20 * MIB, 19 * MIB, False, PLAIN)
    assert should_split(20 * MIB, 19 * MIB - 512, False, PLAIN)
    capped = Settings(max_split_size=40 * MIB)
    assert not should_split(100 * MIB, 50 * MIB, False, capped)
    assert should_split(100 * MIB, 30 * MIB, False, capped)
    assert should_split(20 * MIB, 20 * MIB - 512, False, Settings(expandable_segments=True))
