"""The caching allocator's size rules: rounding, pools, segment sizes and splitting, as PyTorch writes them.

Source (``SOURCE``): PyTorch's ``c10/cuda/CUDACachingAllocator.cpp`` at commit 001074d2 of pytorch/pytorch
(``round_size``, ``roundup_power2_next_division``, ``get_pool``, ``get_allocation_size``, ``should_split``), with
the options of ``c10/core/AllocatorConfig.h`` as torch 2.13.0 ships it (its wheel's header, git cf30153c: the same
constants, ``max_non_split_rounding_mb`` defaulting to ``kLargeBuffer`` = 20 MiB, ``large_segment_size`` to 20 MiB,
``roundup_power2_divisions`` over 16 power-of-two intervals from 1 MiB). At the defaults the two versions agree.
"""

from __future__ import annotations

from dataclasses import dataclass

SOURCE = ("PyTorch c10/cuda/CUDACachingAllocator.cpp (pytorch/pytorch at 001074d2; defaults as torch 2.13.0's "
          "c10/core/AllocatorConfig.h)")

MIB = 1024 * 1024
#: all sizes are rounded to at least 512 bytes (``kMinBlockSize``)
MIN_BLOCK = 512
#: the largest "small" request: 1 MiB (``kSmallSize``); small requests live in the small pool
SMALL_SIZE = MIB
#: small requests are packed in 2 MiB segments (``kSmallBuffer``)
SMALL_BUFFER = 2 * MIB
#: requests between 1 and 10 MiB take a 20 MiB segment (``kLargeBuffer``; torch 2.13's ``large_segment_size``)
LARGE_BUFFER = 20 * MIB
#: from 10 MiB a request gets a segment of its own size (``kMinLargeAlloc``) ...
MIN_LARGE_ALLOC = 10 * MIB
#: ... rounded up to 2 MiB (``kRoundLarge``)
ROUND_LARGE = 2 * MIB
#: ``roundup_power2_divisions``' 16 intervals, [1 MiB, 2 MiB) ... [32 GiB, 64 GiB) (``kRoundUpPowerOfTwoIntervals``)
POWER2_INTERVALS = 16
#: no limit: ``max_split_size`` defaults to the largest ``size_t``
UNLIMITED = 2**64 - 1


@dataclass(frozen=True, slots=True)
class Settings:
    """The options of ``PYTORCH_CUDA_ALLOC_CONF`` that change which blocks and segments the allocator uses, in bytes
    (``engine.allocator.conf.settings`` makes them from an ``AllocConf``). Defaults: PyTorch's."""

    expandable_segments: bool = False
    max_split_size: int = UNLIMITED
    #: how much larger than an oversize request a cached oversize block may be and still be used for it
    max_non_split_rounding_size: int = LARGE_BUFFER
    #: 0: off. Acts only with a memory fraction set (``set_per_process_memory_fraction``): ``malloc`` checks
    #: ``set_fraction`` (``allowed_memory_maximum.has_value()`` in later versions)
    garbage_collection_threshold: float = 0.0
    #: 16 divisions (0 or 1: plain 512-byte rounding), one per interval; empty: none
    roundup_power2_divisions: tuple[int, ...] = ()
    #: the share of the device the allocator may reserve (``setMemoryFraction``); None: no fraction set
    memory_fraction: float | None = None

    @property
    def max_split_set(self) -> bool:
        return self.max_split_size != UNLIMITED


def _divisions(size: int, s: Settings) -> int:
    """``AcceleratorAllocatorConfig::roundup_power2_divisions(size)``: the interval of ``floor(log2(size))``,
    counted from 1 MiB and clamped to the 16 intervals."""
    if not s.roundup_power2_divisions:
        return 0
    index = min(max(size.bit_length() - 1 - 20, 0), POWER2_INTERVALS - 1)
    return s.roundup_power2_divisions[index]


def _next_division(size: int, divisions: int) -> int:
    """``roundup_power2_next_division``: ``size`` rounded up to the next of ``divisions`` equal steps between the
    powers of two around it (1,200 in 4 divisions of [1,024, 2,048): 1,280)."""
    if size & (size - 1) == 0:
        return size
    floor = 1 << (size.bit_length() - 1)
    step = floor >> (divisions.bit_length() - 1)
    if step == 0:
        return floor << 1
    rounded = size & ~(step - 1)
    return size if rounded == size else rounded + step


def round_size(size: int, s: Settings) -> int:
    """``round_size``: at least 512 bytes, then a multiple of 512 (or the next power-of-two division where
    ``roundup_power2_divisions`` asks for more than one)."""
    if size < MIN_BLOCK:
        return MIN_BLOCK
    divisions = _divisions(size, s)
    if divisions > 1 and size > MIN_BLOCK * divisions:
        return _next_division(size, divisions)
    return MIN_BLOCK * -(-size // MIN_BLOCK)


def is_small(rounded: int) -> bool:
    """``get_pool``: requests of at most 1 MiB (after rounding) go to the small pool."""
    return rounded <= SMALL_SIZE


def allocation_size(rounded: int) -> int:
    """``get_allocation_size``: the segment a request opens when no cached block fits: 2 MiB for a small one,
    20 MiB below 10 MiB, else its own size rounded up to 2 MiB."""
    if rounded <= SMALL_SIZE:
        return SMALL_BUFFER
    if rounded < MIN_LARGE_ALLOC:
        return LARGE_BUFFER
    return ROUND_LARGE * -(-rounded // ROUND_LARGE)


def should_split(block_size: int, rounded: int, small: bool, s: Settings) -> bool:
    """``should_split``: whether the rest of a block handed out for ``rounded`` bytes becomes a free block of its
    own. In the small pool and with expandable segments, any rest of 512 bytes or more; in the large pool, a rest of
    more than 1 MiB, and never for an oversize request (``max_split_size`` or more)."""
    remaining = block_size - rounded
    if small or s.expandable_segments:
        return remaining >= MIN_BLOCK
    return rounded < s.max_split_size and remaining > SMALL_SIZE


def page_size(small: bool) -> int:
    """The pages an expandable segment maps (Note [Expandable Segments]: "we use 2MiB pages for our small pool
    and 20MiB pages for our large pool"; ``find_expandable_block``: ``kSmallBuffer`` / ``kLargeBuffer``)."""
    return SMALL_BUFFER if small else LARGE_BUFFER
