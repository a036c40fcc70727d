"""engine.allocator.caching: PyTorch's caching allocator on sequences whose reserve is derived by hand from
``c10/cuda/CUDACachingAllocator.cpp`` (each test says which rule)."""

from __future__ import annotations

import pytest

from engine.allocator import CachingAllocator, OutOfMemory, Settings
from engine.allocator.rules import MIB

KIB = 1024


def segments(a: CachingAllocator) -> list[int]:
    return sorted(v.size // MIB for v in a.segment_views())


def test_small_requests_share_two_mib_segments() -> None:
    """Up to 1 MiB: the small pool, 2 MiB segments, split down to 512 bytes: three 600 KiB blocks fit in one
    (1,800 KiB), the fourth opens a second segment."""
    a = CachingAllocator()
    blocks = [a.malloc(600 * KIB) for _ in range(4)]
    assert [b.size for b in blocks] == [600 * KIB] * 4
    assert a.reserved == 4 * MIB
    assert segments(a) == [2, 2]
    assert a.malloc(1).size == 512  # 512-byte minimum, in the rest of a segment
    assert a.reserved == 4 * MIB


def test_large_request_sizes_open_20_mib_or_own_segments() -> None:
    """get_allocation_size: 1 MiB + 1 byte and 9.5 MiB take 20 MiB segments (the second fits in the first's rest);
    10 MiB gets a 10 MiB segment; 11 MiB + 1 byte one of 12 MiB (rounded up to 2 MiB)."""
    a = CachingAllocator()
    a.malloc(MIB + 1)
    a.malloc(9 * MIB + 512 * KIB)
    assert segments(a) == [20]
    a.malloc(10 * MIB)
    a.malloc(11 * MIB + 1)
    assert segments(a) == [10, 12, 20]


def test_large_rest_of_one_mib_or_less_stays_with_the_block() -> None:
    """should_split: in the large pool a rest of 1 MiB or less is not split off: 19.5 MiB takes all 20 MiB."""
    a = CachingAllocator()
    b = a.malloc(19 * MIB + 512 * KIB)
    assert b.size == 20 * MIB
    assert a.allocated == 20 * MIB
    c = CachingAllocator()
    assert c.malloc(18 * MIB).size == 18 * MIB  # a 2 MiB rest is split off


def test_best_fit_takes_the_smallest_free_block_that_fits() -> None:
    """get_free_block: of cached 30 and 24 MiB segments a 22 MiB request takes the 24 MiB one (and splits off
    2 MiB); nothing new is reserved."""
    a = CachingAllocator()
    x, y = a.malloc(30 * MIB), a.malloc(24 * MIB)
    smaller = y.addr
    a.free(x)
    a.free(y)
    b = a.malloc(22 * MIB)
    assert b.addr == smaller
    assert b.size == 22 * MIB
    assert a.reserved == 54 * MIB


def test_freed_neighbours_merge() -> None:
    """free_block / try_merge_blocks: three blocks of a 20 MiB segment freed in any order become one block, which
    then serves an 18 MiB request without a new segment."""
    a = CachingAllocator()
    blocks = [a.malloc(6 * MIB) for _ in range(3)]
    for b in (blocks[1], blocks[0], blocks[2]):
        a.free(b)
    assert a.malloc(18 * MIB).size == 18 * MIB
    assert a.reserved == 20 * MIB


def test_max_split_size_keeps_oversize_blocks_whole() -> None:
    """max_split_size_mb:40: a cached 100 MiB block is not cut for a 30 MiB request (a new segment); it serves a
    90 MiB request (less than 90 + 20 MiB) whole, but not a 70 MiB one (100 >= 70 + 20)."""
    s = Settings(max_split_size=40 * MIB)
    a = CachingAllocator(s)
    a.free(a.malloc(100 * MIB))
    a.malloc(30 * MIB)
    assert a.reserved == 130 * MIB
    b = a.malloc(90 * MIB)
    assert b.size == 100 * MIB
    assert a.reserved == 130 * MIB
    a.free(b)
    a.malloc(70 * MIB)
    assert a.reserved == 200 * MIB


def test_without_max_split_size_a_large_block_is_cut() -> None:
    a = CachingAllocator()
    a.free(a.malloc(100 * MIB))
    assert a.malloc(30 * MIB).size == 30 * MIB
    assert a.reserved == 100 * MIB


def test_freed_blocks_return_to_their_own_streams_pool() -> None:
    """Blocks are reused only on the stream they were allocated on (BlockComparatorSize orders by stream first)."""
    a = CachingAllocator()
    a.free(a.malloc(20 * MIB, stream=1))
    a.malloc(20 * MIB, stream=0)
    assert a.reserved == 40 * MIB
    a.malloc(20 * MIB, stream=1)
    assert a.reserved == 40 * MIB


def test_block_used_on_another_stream_waits_for_its_event() -> None:
    """record_stream + free: the block waits for the other stream's event (insert_events); only once that stream's
    work is done does the next malloc get it back (process_events)."""
    a = CachingAllocator()
    b = a.malloc(20 * MIB)
    a.record_stream(b, 7)
    a.free(b)
    assert a.allocated == 0
    a.malloc(20 * MIB)  # the gathered buffer is still in use on stream 7: a new segment
    assert a.reserved == 40 * MIB
    a.stream_done(7)
    a.malloc(20 * MIB)  # now the first block is back
    assert a.reserved == 40 * MIB


def test_record_stream_on_its_own_stream_is_ignored() -> None:
    a = CachingAllocator()
    b = a.malloc(20 * MIB)
    a.record_stream(b, 0)
    a.free(b)
    a.malloc(20 * MIB)
    assert a.reserved == 20 * MIB


def _fragmenting(a: CachingAllocator) -> None:
    """Ten 10 MiB tensors, freed, then ten of 11 MiB (a batch one token longer, say)."""
    for size in (10 * MIB, 11 * MIB):
        blocks = [a.malloc(size) for _ in range(10)]
        for b in blocks:
            a.free(b)


def test_expandable_segments_lower_the_fragmented_reserve() -> None:
    """Without expandable segments each 10 MiB tensor has a segment of its own (get_allocation_size: 10 MiB and
    up, rounded to 2 MiB) and no 10 MiB block fits 11 MiB: ten 12 MiB segments more, 220 MiB at the peak. With
    expandable segments the ten 10 MiB tensors map five 20 MiB pages (100 MiB) of one segment, freed they merge
    into one 100 MiB block, nine 11 MiB tensors fit in it (99 MiB), and the tenth joins the 1 MiB left to one more
    page mapped behind it (find_expandable_block, map_block): 120 MiB."""
    plain = CachingAllocator()
    _fragmenting(plain)
    assert plain.peak_reserved == 220 * MIB
    grown = CachingAllocator(Settings(expandable_segments=True))
    _fragmenting(grown)
    assert grown.peak_reserved == 120 * MIB
    assert segments(grown) == [120]


def test_expandable_segment_per_stream_and_pages() -> None:
    """One expandable segment per stream and pool; small-pool pages are 2 MiB, large-pool pages 20 MiB."""
    a = CachingAllocator(Settings(expandable_segments=True))
    a.malloc(100 * KIB, stream=0)
    a.malloc(3 * MIB, stream=0)
    a.malloc(3 * MIB, stream=1)
    assert a.reserved == (2 + 20 + 20) * MIB
    assert sorted((v.stream, v.small, v.size // MIB) for v in a.segment_views()) == [
        (0, False, 20), (0, True, 2), (1, False, 20)]


def test_empty_cache_unmaps_whole_free_pages_of_expandable_segments() -> None:
    """unmap_block: of a free 30 MiB stretch starting 10 MiB into a 60 MiB mapping, only the page wholly inside it
    ([20, 40) MiB) is given back; the ends stay mapped."""
    a = CachingAllocator(Settings(expandable_segments=True))
    first = a.malloc(10 * MIB)
    middle = a.malloc(30 * MIB)
    a.malloc(20 * MIB)
    assert a.reserved == 60 * MIB
    a.free(middle)
    a.empty_cache()
    assert a.reserved == 40 * MIB
    assert sorted(v.size // MIB for v in a.segment_views()) == [20, 20]
    a.free(first)


def test_garbage_collection_needs_a_memory_fraction() -> None:
    """garbage_collect_cached_blocks runs only with a memory fraction set (malloc checks set_fraction): three cached
    20 MiB segments (60 MiB) exceed 0.5 x 100 MiB allowed; at the 30 MiB request (no cached block fits) all three
    are as old as the average (aged one get_free_block call each) and are released before the new segment."""
    for fraction, reserved in ((1.0, 30), (None, 90)):
        a = CachingAllocator(Settings(garbage_collection_threshold=0.5, memory_fraction=fraction),
                             device_total=100 * MIB)
        blocks = [a.malloc(20 * MIB) for _ in range(3)]
        for b in blocks:
            a.free(b)
        a.malloc(30 * MIB)
        assert a.reserved == reserved * MIB


def test_failed_cudamalloc_releases_the_cache_and_retries() -> None:
    """malloc's retry: with 100 MiB on the device, 80 MiB reserved (40 of them cached), a 30 MiB segment does not
    fit; release_cached_blocks frees the two cached segments and the retry succeeds (70 MiB). A further 40 MiB
    request has nothing left to release: out of memory."""
    a = CachingAllocator(capacity=100 * MIB)
    blocks = [a.malloc(20 * MIB) for _ in range(4)]
    a.free(blocks[0])
    a.free(blocks[1])
    a.malloc(30 * MIB)
    assert a.reserved == 70 * MIB
    assert a.retries == 1
    with pytest.raises(OutOfMemory):
        a.malloc(40 * MIB)
    assert a.ooms == 1


def test_max_split_size_releases_only_what_the_request_needs() -> None:
    """release_available_cached_blocks (max_split_size set): of cached oversize 50 and 60 MiB blocks, the smallest
    one of at least max(request, max_split_size) = 40 MiB is freed: the 50 MiB one; the 60 MiB one stays."""
    a = CachingAllocator(Settings(max_split_size=40 * MIB), capacity=200 * MIB)
    x, y = a.malloc(50 * MIB), a.malloc(60 * MIB)
    a.malloc(80 * MIB)
    a.free(x)
    a.free(y)
    a.malloc(30 * MIB)
    assert a.reserved == (60 + 80 + 30) * MIB
    assert segments(a) == [30, 60, 80]


def test_retry_waits_for_pending_stream_events() -> None:
    """release_cached_blocks first synchronizes every outstanding event (synchronize_and_free_events): a block
    waiting for another stream is freed and its segment released before the retry."""
    a = CachingAllocator(capacity=40 * MIB)
    b = a.malloc(20 * MIB)
    a.record_stream(b, 3)
    a.free(b)
    a.malloc(30 * MIB)
    assert a.reserved == 30 * MIB
