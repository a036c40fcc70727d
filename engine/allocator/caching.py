"""A model of PyTorch's CUDA caching allocator (``DeviceCachingAllocator`` in ``c10/cuda/CUDACachingAllocator.cpp``;
``engine.allocator.rules.SOURCE`` names the version): what it reserves from the device for a sequence of
allocations and frees.

Rule by rule, with the C++ function each one follows:

* ``malloc``: round the request (``round_size``), pick the pool (small: up to 1 MiB) and look for the smallest
  cached free block of the same stream that fits (``get_free_block``: best fit over blocks ordered by stream,
  size, address; an oversize block, ``max_split_size`` or more, only for an oversize request no more than
  ``max_non_split_rounding_size`` smaller). None: run the garbage collector if its threshold and a memory fraction
  are set (``garbage_collect_cached_blocks``), then ask the device for a segment (``alloc_block``); when that
  fails, free cached oversize blocks and try again (``release_available_cached_blocks``, only with
  ``max_split_size`` set), then free every cached unsplit block and try once more (``release_cached_blocks``), then
  out of memory. The block found is split when ``should_split`` says so (``alloc_found_block``).
* ``free``: a block used on another stream (``record_stream``) waits for that stream's event (``insert_events``);
  ``stream_done`` completes them, and the next ``malloc`` returns the blocks (``process_events``). A free block
  merges with free neighbours in its segment and goes back to its stream's pool (``free_block``,
  ``try_merge_blocks``).
* Expandable segments (``expandable_segments:True``, Note [Expandable Segments]): one segment per stream and pool
  that grows by mapping pages of 2 MiB (small pool) or 20 MiB (large pool) at the lowest address that fits
  (``find_expandable_block``, ``map_block``, ``try_allocate_expandable_block``); releasing the cache unmaps the free
  pages (``unmap_block``) instead of freeing segments.

The device is a number of bytes (``capacity``: what ``cudaMalloc`` can hand this allocator; None: unlimited), the
addresses are the model's own (segments one after the other). Left out: CUDA graphs' private pools, IPC, the
free-memory callbacks (none are registered by PyTorch itself), ``backend:cudaMallocAsync``.
"""

from __future__ import annotations

from bisect import bisect_left, insort
from collections.abc import Callable, Iterator
from dataclasses import dataclass

from engine.allocator.rules import (
    SMALL_BUFFER,
    Settings,
    allocation_size,
    is_small,
    page_size,
    round_size,
    should_split,
)

#: the first segment's address, and the gap the model leaves between segments (only for readable addresses)
BASE_ADDRESS = 0x7F0000000000
SEGMENT_GAP = 2 * 1024 * 1024
#: address space of a device without a capacity, for expandable segments (``ExpandableSegment`` reserves 1 1/8 of
#: the device's memory)
UNLIMITED_DEVICE = 2**46

#: called with (action, address, size, stream) for each trace entry the real allocator records
Trace = Callable[[str, int, int, int], None]


class OutOfMemory(Exception):  # noqa: N818 (PyTorch's name: torch.OutOfMemoryError)
    """The device could not give a segment, even after the cache was released (``malloc``'s OOM)."""

    def __init__(self, requested: int, reserved: int, allocated: int) -> None:
        super().__init__(f"out of memory: {requested:,} bytes requested with {reserved:,} reserved "
                         f"({allocated:,} allocated)")
        self.requested, self.reserved, self.allocated = requested, reserved, allocated


class _Expandable:
    """One expandable segment: a stretch of address space of which some pages are mapped."""

    __slots__ = ("base", "size", "small", "stream")

    def __init__(self, base: int, size: int, stream: int, small: bool) -> None:
        self.base, self.size, self.stream, self.small = base, size, stream, small

    @property
    def page(self) -> int:
        return page_size(self.small)


class Block:
    """A block of a segment (``Block``): allocated, cached free, waiting for another stream, or unmapped."""

    __slots__ = (
        "addr",
        "allocated",
        "event_count",
        "expandable",
        "gc_base",
        "mapped",
        "next",
        "prev",
        "requested",
        "size",
        "small",
        "stream",
        "stream_uses",
    )

    def __init__(self, addr: int, size: int, stream: int, small: bool, expandable: _Expandable | None = None) -> None:
        self.addr, self.size, self.stream, self.small = addr, size, stream, small
        self.requested = 0
        self.allocated = False
        self.mapped = True
        self.prev: Block | None = None
        self.next: Block | None = None
        self.event_count = 0
        self.stream_uses: set[int] | None = None  # made on the first record_stream
        self.gc_base = 0
        self.expandable = expandable

    @property
    def is_split(self) -> bool:
        return self.prev is not None or self.next is not None

    @property
    def free(self) -> bool:
        """Free to merge or hand out (``try_merge_blocks``' and ``find_expandable_block``'s test)."""
        return not self.allocated and self.event_count == 0 and not self.stream_uses


class _Pool:
    """A ``BlockPool``: its cached free blocks ordered by (stream, size, address), its unmapped ones by
    (stream, address)."""

    __slots__ = ("blocks", "gc_calls", "small", "unmapped")

    def __init__(self, small: bool) -> None:
        self.small = small
        self.blocks: list[tuple[int, int, int]] = []
        self.unmapped: list[tuple[int, int]] = []
        self.gc_calls = 0  # get_free_blocks_call_count

    def insert(self, b: Block) -> None:
        """``insert_into_blocks`` (stamps the block's age for the garbage collector)."""
        b.gc_base = self.gc_calls
        insort(self.blocks, (b.stream, b.size, b.addr))

    def erase(self, b: Block) -> None:
        key = (b.stream, b.size, b.addr)
        i = bisect_left(self.blocks, key)
        if i < len(self.blocks) and self.blocks[i] == key:
            del self.blocks[i]

    def insert_unmapped(self, b: Block) -> None:
        insort(self.unmapped, (b.stream, b.addr))

    def erase_unmapped(self, b: Block) -> None:
        key = (b.stream, b.addr)
        i = bisect_left(self.unmapped, key)
        if i < len(self.unmapped) and self.unmapped[i] == key:
            del self.unmapped[i]


@dataclass(frozen=True, slots=True)
class SegmentView:
    """One segment as ``torch.cuda.memory._snapshot()`` lists it (for an expandable segment: one mapped range)."""

    address: int
    size: int
    stream: int
    small: bool
    expandable: bool
    blocks: tuple[Block, ...]


class CachingAllocator:
    """One device's caching allocator (module docstring). ``capacity``: bytes the device can give it (None:
    unlimited); ``device_total``: the device's memory, which a memory fraction is a share of."""

    def __init__(self, settings: Settings | None = None, capacity: int | None = None,
                 device_total: int | None = None, trace: Trace | None = None) -> None:
        settings = settings or Settings()
        self.settings = settings
        self.capacity = capacity
        self.device_total = device_total or capacity or UNLIMITED_DEVICE
        fraction = settings.memory_fraction
        self.allowed = int(fraction * self.device_total) if fraction is not None else None
        self.trace = trace
        self.pools = (_Pool(False), _Pool(True))  # indexed by small
        self.by_addr: dict[int, Block] = {}
        self.segments: dict[int, Block] = {}  # cudaMalloc'd segments by address: their first block's address
        self.expandables: list[_Expandable] = []
        self.events: dict[int, list[Block]] = {}  # stream -> blocks waiting for an event recorded on it
        self.done: list[Block] = []  # completed events, handed back at the next malloc (process_events)
        self.next_addr = BASE_ADDRESS
        self.reserved = 0  # total_allocated_memory: reserved_bytes
        self.allocated = 0  # allocated_bytes (block sizes)
        self.requested = 0  # requested_bytes
        self.peak_reserved = 0
        self.peak_allocated = 0
        self.retries = 0  # num_alloc_retries
        self.ooms = 0
        self.segments_made = 0  # num_device_alloc: cudaMalloc calls and page mappings

    # -- public interface --------------------------------------------------------------------------------------
    def malloc(self, size: int, stream: int = 0) -> Block:
        """``DeviceCachingAllocator::malloc``: a block of at least ``size`` bytes for ``stream``."""
        self._process_events()
        s = self.settings
        rounded = round_size(size, s)
        small = is_small(rounded)
        pool = self.pools[small]
        alloc_size = allocation_size(rounded)
        block = self._get_free_block(pool, rounded, stream)
        if block is None:
            if s.garbage_collection_threshold > 0 and self.allowed is not None:
                self._garbage_collect()
            block = (self._alloc_block(pool, rounded, alloc_size, stream)
                     or (self._release_available_cached_blocks(pool, rounded, stream)
                         and self._alloc_block(pool, rounded, alloc_size, stream))
                     or (self._release_cached_blocks()
                         and self._alloc_block(pool, rounded, alloc_size, stream, retry=True))
                     or None)
            if block is None:
                self.ooms += 1
                free = self.capacity - self.reserved if self.capacity is not None else 0
                self._emit("oom", free, size, stream)  # record_trace(OOM, device_free, ...)
                raise OutOfMemory(size, self.reserved, self.allocated)
        return self._alloc_found_block(block, rounded, size, stream, should_split(block.size, rounded, small, s))

    def free(self, block: Block) -> None:
        """``DeviceCachingAllocator::free``: back to the pool now, or once the streams it was used on are done."""
        block.allocated = False
        self.allocated -= block.size
        if self.trace is not None:
            self.trace("free_requested", block.addr, block.requested, block.stream)
        if block.stream_uses:  # insert_events: one event per stream that used the block
            for st in block.stream_uses:
                self.events.setdefault(st, []).append(block)
            block.event_count += len(block.stream_uses)
            block.stream_uses = None
        else:
            self._free_block(block)

    def record_stream(self, block: Block, stream: int) -> None:
        """``recordStream``: the block is used on ``stream`` too (uses on its own stream need nothing)."""
        if stream != block.stream:
            if block.stream_uses is None:
                block.stream_uses = set()
            block.stream_uses.add(stream)

    def stream_done(self, stream: int) -> None:
        """The work queued on ``stream`` so far has finished: its events complete, and the blocks that waited only
        for them go back to their pools at the next ``malloc`` (``process_events``) or ``empty_cache``."""
        self.done.extend(self.events.pop(stream, ()))

    def events_completed(self, block: Block) -> None:
        """Every event ``block`` waits for has completed: it goes back to its pool now (a snapshot's
        ``free_completed``, which ``process_events`` records)."""
        for blocks in self.events.values():
            while block in blocks:
                blocks.remove(block)
        self.done = [b for b in self.done if b is not block]
        block.event_count = 0
        self._free_block(block)

    def release_segment(self, stream: int, size: int) -> bool:
        """Free one cached whole segment of ``size`` bytes on ``stream`` (``release_block``), if there is one: a
        release the sequence says happened (an ``empty_cache``, or a retry on a fuller device than the model's)."""
        keys = self.pools[size == SMALL_BUFFER].blocks  # a small-pool segment is 2 MiB, a large one never
        i = bisect_left(keys, (stream, size, 0))
        while i < len(keys) and keys[i][:2] == (stream, size):
            b = self.by_addr[keys[i][2]]
            if not b.is_split and b.expandable is None:
                self._release_block(b)
                return True
            i += 1
        return False

    def empty_cache(self) -> None:
        """``emptyCache``: ``release_cached_blocks`` (waits for every event, frees every cached unsplit segment and
        unmaps the free pages of expandable segments)."""
        self._release_cached_blocks()

    def segment_views(self) -> Iterator[SegmentView]:
        """The segments in address order, as a snapshot lists them (``snapshot()``)."""
        heads = [self.by_addr[a] for a in self.segments]
        for es in self.expandables:
            heads += [b for b in self._chain(es) if b.mapped and (b.prev is None or not b.prev.mapped)]
        for head in sorted(heads, key=lambda b: b.addr):
            blocks = []
            b: Block | None = head
            while b is not None and b.mapped:
                blocks.append(b)
                b = b.next
            yield SegmentView(head.addr, sum(x.size for x in blocks), head.stream, head.small,
                              head.expandable is not None, tuple(blocks))

    @property
    def cached_free(self) -> int:
        """Reserved bytes in no allocated block (free, or waiting for a stream's event)."""
        return self.reserved - self.allocated

    # -- tracing -----------------------------------------------------------------------------------------------
    def _emit(self, action: str, addr: int, size: int, stream: int) -> None:
        if self.trace is not None:
            self.trace(action, addr, size, stream)

    def _grow(self, n: int) -> None:
        self.reserved += n
        self.peak_reserved = max(self.peak_reserved, self.reserved)

    # -- finding and handing out blocks ------------------------------------------------------------------------
    def _get_free_block(self, pool: _Pool, rounded: int, stream: int) -> Block | None:
        """``get_free_block`` (module docstring)."""
        s = self.settings
        if s.garbage_collection_threshold > 0 and self.allowed is not None:
            pool.gc_calls += 1
        keys = pool.blocks
        i = bisect_left(keys, (stream, rounded, 0))
        if i == len(keys) or keys[i][0] != stream:
            return None
        block = self.by_addr[keys[i][2]]
        if block.expandable is not None:
            if s.expandable_segments:
                i = self._widest(keys, i, stream)
            else:  # expandable segments switched off: only blocks of ordinary segments
                i += 1
                while i < len(keys) and keys[i][0] == stream and self.by_addr[keys[i][2]].expandable is not None:
                    i += 1
                if i == len(keys) or keys[i][0] != stream:
                    return None
            block = self.by_addr[keys[i][2]]
        if rounded < s.max_split_size <= block.size:
            return None  # an oversize block is not cut for a request below max_split_size
        if rounded >= s.max_split_size and block.size >= rounded + s.max_non_split_rounding_size:
            return None  # an oversize block only serves a request close to its size
        del keys[i]
        return block

    def _widest(self, keys: list[tuple[int, int, int]], i: int, stream: int) -> int:
        """Among blocks of expandable segments, the next ones (by size) while they can grow less far: "for the
        purposes of best fit we consider its size to be the size it can expand to" (``get_free_block``)."""

        def reach(b: Block) -> int:
            return b.size + (b.next.size if b.next is not None and not b.next.mapped else 0)

        while (self.by_addr[keys[i][2]].expandable is not None and i + 1 < len(keys) and keys[i + 1][0] == stream
               and reach(self.by_addr[keys[i + 1][2]]) < reach(self.by_addr[keys[i][2]])):
            i += 1
        return i

    def _alloc_found_block(self, block: Block, rounded: int, requested: int, stream: int, split: bool) -> Block:
        """``alloc_found_block``: the first ``rounded`` bytes of ``block`` are handed out; the rest stays cached."""
        if split:
            rest = block
            block = Block(rest.addr, rounded, stream, rest.small, rest.expandable)
            block.prev, block.next = rest.prev, rest
            if rest.prev is not None:
                rest.prev.next = block
            rest.prev = block
            rest.addr += rounded
            rest.size -= rounded
            self.by_addr[block.addr] = block
            self.by_addr[rest.addr] = rest
            self.pools[rest.small].insert(rest)
        block.allocated = True
        block.requested = requested
        self.requested += requested
        self.allocated += block.size
        self.peak_allocated = max(self.peak_allocated, self.allocated)
        if self.trace is not None:
            self.trace("alloc", block.addr, requested, stream)
        return block

    def _new_address(self, size: int) -> int:
        addr = self.next_addr
        self.next_addr += size + SEGMENT_GAP
        return addr

    def _device_has(self, size: int) -> bool:
        """Whether the device can still give ``size`` bytes (a memory fraction is checked first, as
        ``alloc_block`` does; then the device's own capacity, where ``cudaMalloc`` would fail)."""
        if self.allowed is not None and self.reserved + size > self.allowed:
            return False
        return self.capacity is None or self.reserved + size <= self.capacity

    def _alloc_block(self, pool: _Pool, rounded: int, alloc_size: int, stream: int,
                     retry: bool = False) -> Block | None:
        """``alloc_block``: a new segment of ``alloc_size`` bytes (``cudaMalloc``), or, with expandable segments,
        pages mapped onto this stream's segment (``try_allocate_expandable_block``)."""
        if retry:
            self.retries += 1
        if self.allowed is not None and self.reserved + alloc_size > self.allowed:
            return None
        if self.settings.expandable_segments:
            return self._try_allocate_expandable(pool, rounded, stream)
        if not self._device_has(alloc_size):
            return None
        addr = self._new_address(alloc_size)
        block = Block(addr, alloc_size, stream, pool.small)
        self.by_addr[addr] = block
        self.segments[addr] = block
        self._grow(alloc_size)
        self.segments_made += 1
        self._emit("segment_alloc", addr, alloc_size, stream)
        return block

    # -- freeing -----------------------------------------------------------------------------------------------
    def _process_events(self) -> None:
        """``process_events``: blocks whose every event completed go back to their pools."""
        done, self.done = self.done, []
        for b in done:
            b.event_count -= 1
            if b.event_count == 0:
                self._free_block(b)

    def _free_block(self, block: Block) -> None:
        """``free_block``: merge with free neighbours (``try_merge_blocks``), then back into the pool."""
        if self.trace is not None:
            self.trace("free_completed", block.addr, block.requested, block.stream)
        self.requested -= block.requested
        block.requested = 0
        pool = self.pools[block.small]
        for other in (block.prev, block.next):
            if other is not None and not other.allocated and other.event_count == 0:  # try_merge's own test, early
                self._try_merge(block, other, pool)
        pool.insert(block)

    def _try_merge(self, dst: Block, src: Block | None, pool: _Pool) -> int:
        """``try_merge_blocks``: ``src`` (a free neighbour in the same mapped state) joins ``dst``; its size."""
        if src is None or not src.free or dst.mapped != src.mapped:
            return 0
        if src.mapped:
            pool.erase(src)
        else:
            pool.erase_unmapped(src)
        del self.by_addr[src.addr]
        if dst.prev is src:  # [src dst] (dst is in no pool while it merges)
            del self.by_addr[dst.addr]
            dst.addr = src.addr
            dst.prev = src.prev
            if dst.prev is not None:
                dst.prev.next = dst
            self.by_addr[dst.addr] = dst
        else:  # [dst src]
            dst.next = src.next
            if dst.next is not None:
                dst.next.prev = dst
        dst.size += src.size
        return src.size

    def _release_block(self, block: Block) -> None:
        """``release_block``: a whole cached segment back to the device (``cudaFree``)."""
        self._emit("segment_free", block.addr, block.size, block.stream)
        self.reserved -= block.size
        self.pools[block.small].erase(block)
        del self.by_addr[block.addr]
        del self.segments[block.addr]

    def _release_available_cached_blocks(self, pool: _Pool, rounded: int, stream: int) -> bool:
        """``release_available_cached_blocks`` (only with ``max_split_size`` set): free the smallest cached oversize
        block that covers the request, else the largest ones until their sizes add up to it."""
        s = self.settings
        if not s.max_split_set:
            return False
        target = max(rounded, s.max_split_size)
        keys = pool.blocks
        i = bisect_left(keys, (stream, target, 0))
        if i < len(keys) and keys[i][0] == stream:
            return self._release_if_whole(self.by_addr[keys[i][2]])
        released = 0
        i -= 1
        while i >= 0 and released < target and keys[i][1] >= s.max_split_size and keys[i][0] == stream:
            b = self.by_addr[keys[i][2]]
            if self._release_if_whole(b):
                released += b.size
            i -= 1
        return released >= target

    def _release_if_whole(self, b: Block) -> bool:
        """Oversize blocks are never split, so each is a whole segment; one that is not is left alone."""
        if b.is_split or b.expandable is not None:
            return False
        self._release_block(b)
        return True

    def _release_cached_blocks(self) -> bool:
        """``release_cached_blocks``: wait for every event (``synchronize_and_free_events``), then release each
        pool's unsplit cached segments and the free pages of expandable segments (``release_blocks``)."""
        self.done.extend(b for blocks in self.events.values() for b in blocks)
        self.events.clear()
        self._process_events()
        for pool in self.pools:
            to_unmap = []
            for key in list(pool.blocks):
                b = self.by_addr[key[2]]
                if b.expandable is not None:
                    to_unmap.append(b)
                elif not b.is_split:
                    self._release_block(b)
            for b in to_unmap:
                self._unmap_block(b, pool)
        return True

    def _garbage_collect(self) -> None:
        """``garbage_collect_cached_blocks``: above ``threshold`` x the allowed memory, release cached unsplit large
        segments, the ones unused for longer than the average first, until the excess is reclaimed."""
        assert self.allowed is not None
        limit = int(self.settings.garbage_collection_threshold * self.allowed)
        if self.reserved <= limit:
            return
        target = self.reserved - limit
        pool = self.pools[False]

        def freeable() -> list[Block]:
            return [b for k in pool.blocks if not (b := self.by_addr[k[2]]).is_split and b.expandable is None]

        candidates = freeable()
        total_age = sum(pool.gc_calls - b.gc_base for b in candidates)
        count = len(candidates)
        reclaimed = 0
        freed = True
        while reclaimed < target and freed and count > 0:
            threshold = total_age / count
            freed = False
            for b in freeable():
                age = pool.gc_calls - b.gc_base
                if age >= threshold:
                    freed = True
                    reclaimed += b.size
                    total_age -= age
                    count -= 1
                    self._release_block(b)

    # -- expandable segments -----------------------------------------------------------------------------------
    def _chain(self, es: _Expandable) -> Iterator[Block]:
        b: Block | None = self.by_addr[es.base]
        while b is not None:
            yield b
            b = b.next

    def _find_expandable_block(self, pool: _Pool, rounded: int, stream: int) -> Block:
        """``find_expandable_block``: the lowest unmapped stretch of this stream's segments (with the free block just
        before it) that has room for ``rounded`` bytes; else a new segment's address space."""

        def room(b: Block | None) -> bool:
            got = 0
            while got < rounded and b is not None and b.free:
                got += b.size
                b = b.next
            return got >= rounded

        for st, addr in pool.unmapped[bisect_left(pool.unmapped, (stream, 0)):]:
            if st != stream:
                break
            c = self.by_addr[addr]
            if c.prev is not None and c.prev.free:
                c = c.prev
            if room(c):
                return c
        page = page_size(pool.small)
        va = page * -(-(self.device_total + self.device_total // 8) // page)
        es = _Expandable(self._new_address(va), va, stream, pool.small)
        self.expandables.append(es)
        c = Block(es.base, va, stream, pool.small, es)
        c.mapped = False
        self.by_addr[c.addr] = c
        pool.insert_unmapped(c)
        return c

    def _map_block(self, to_map: Block, size: int, pool: _Pool) -> bool:
        """``map_block``: map the pages covering the first ``size`` bytes of an unmapped block; the rest stays
        unmapped; the mapped block merges with free neighbours and is cached."""
        es = to_map.expandable
        assert es is not None
        assert not to_map.mapped
        page = es.page
        mapped = page * -(-size // page)
        if not self._device_has(mapped):
            return False
        start = to_map.addr
        pool.erase_unmapped(to_map)
        to_map.mapped = True
        if mapped < to_map.size:
            rest = Block(to_map.addr + mapped, to_map.size - mapped, to_map.stream, to_map.small, es)
            rest.mapped = False
            rest.prev, rest.next = to_map, to_map.next
            if to_map.next is not None:
                to_map.next.prev = rest
            to_map.next = rest
            self.by_addr[rest.addr] = rest
            pool.insert_unmapped(rest)
            to_map.size = mapped
        self._try_merge(to_map, to_map.prev, pool)
        self._try_merge(to_map, to_map.next, pool)
        pool.insert(to_map)
        self._grow(mapped)
        self.segments_made += 1
        self._emit("segment_map", start, mapped, to_map.stream)
        return True

    def _try_allocate_expandable(self, pool: _Pool, rounded: int, stream: int) -> Block | None:
        """``try_allocate_expandable_block``: map pages until a free block of ``rounded`` bytes exists."""
        c = self._find_expandable_block(pool, rounded, stream)
        if not c.mapped and not self._map_block(c, min(c.size, rounded), pool):
            return None
        while c.size < rounded:
            nxt = c.next
            assert nxt is not None
            if not self._map_block(nxt, min(rounded - c.size, nxt.size), pool):
                return None
            c = nxt
        pool.erase(c)
        return c

    def _unmap_block(self, block: Block, pool: _Pool) -> None:
        """``unmap_block``: give back the whole pages inside a free block of an expandable segment; the parts of
        pages at its ends stay mapped and cached. An expandable segment left wholly unmapped is released
        (``release_expandable_segment``)."""
        es = block.expandable
        assert es is not None
        page = es.page
        lo = es.base + page * -(-(block.addr - es.base) // page)
        hi = es.base + page * ((block.addr + block.size - es.base) // page)
        if lo >= hi:
            return
        pool.erase(block)
        del self.by_addr[block.addr]
        if lo > block.addr:
            before = Block(block.addr, lo - block.addr, block.stream, block.small, es)
            self._splice_free(before, block.prev, block, pool)
        end = block.addr + block.size
        if end > hi:
            self._splice_free(Block(hi, end - hi, block.stream, block.small, es), block, block.next, pool)
        block.addr, block.size, block.mapped = lo, hi - lo, False
        self.by_addr[lo] = block
        self._try_merge(block, block.prev, pool)
        self._try_merge(block, block.next, pool)
        pool.insert_unmapped(block)
        self.reserved -= hi - lo
        self._emit("segment_unmap", lo, hi - lo, block.stream)
        if block.prev is None and block.next is None:
            pool.erase_unmapped(block)
            del self.by_addr[block.addr]
            self.expandables.remove(es)

    def _splice_free(self, b: Block, before: Block | None, after: Block | None, pool: _Pool) -> None:
        """``Block::splice`` of a new free mapped block between ``before`` and ``after``, cached."""
        b.prev, b.next = before, after
        if before is not None:
            before.next = b
        if after is not None:
            after.prev = b
        self.by_addr[b.addr] = b
        pool.insert(b)

    # -- a state to start from ---------------------------------------------------------------------------------
    def seed_segment(self, addr: int, size: int, stream: int, small: bool,
                     live: list[tuple[int, int, int]]) -> list[Block]:
        """A segment that exists before the sequence starts, at ``addr``, with blocks allocated at the
        ``(address, size, requested)`` of ``live`` (inside it, in address order) and the rest cached free; returns
        the allocated blocks. For replaying a trace that begins mid-run (``engine.snapshot.allocator_check``)."""
        self.next_addr = max(self.next_addr, addr + size + SEGMENT_GAP)
        out = self._seed_chain(_cuts(addr, size, live), stream, small, None)
        self.segments[addr] = self.by_addr[addr]
        self._grow(size)
        return out

    def seed_expandable(self, stream: int, small: bool, ranges: list[tuple[int, int]],
                        live: list[tuple[int, int, int]]) -> list[Block]:
        """An expandable segment that exists before the sequence starts: its mapped ``ranges`` (address, size; in
        address order, whole pages from the first), blocks allocated at ``live``, the rest of its address space
        unmapped; returns the allocated blocks."""
        page = page_size(small)
        base = ranges[0][0]
        span = ranges[-1][0] + ranges[-1][1] - base
        va = max(page * -(-(self.device_total + self.device_total // 8) // page), page * -(-span // page))
        es = _Expandable(base, va, stream, small)
        self.expandables.append(es)
        self.next_addr = max(self.next_addr, base + va + SEGMENT_GAP)
        cuts: list[tuple[int, int, int, int]] = []
        at = base
        for ra, rs in ranges:
            if ra > at:
                cuts.append((at, ra - at, 0, _UNMAPPED))
            cuts += _cuts(ra, rs, [b for b in live if ra <= b[0] < ra + rs])
            at = ra + rs
        if at < base + va:
            cuts.append((at, base + va - at, 0, _UNMAPPED))
        out = self._seed_chain(cuts, stream, small, es)
        self._grow(sum(rs for _, rs in ranges))
        return out

    def _seed_chain(self, cuts: list[tuple[int, int, int, int]], stream: int, small: bool,
                    es: _Expandable | None) -> list[Block]:
        prev: Block | None = None
        out = []
        pool = self.pools[small]
        for a, n, req, kind in cuts:
            b = Block(a, n, stream, small, es)
            b.prev = prev
            if prev is not None:
                prev.next = b
            prev = b
            self.by_addr[a] = b
            if kind == _LIVE:
                b.allocated, b.requested = True, req
                self.allocated += n
                self.requested += req
                out.append(b)
            elif kind == _FREE:
                pool.insert(b)
            else:
                b.mapped = False
                pool.insert_unmapped(b)
        self.peak_allocated = max(self.peak_allocated, self.allocated)
        return out


_FREE, _LIVE, _UNMAPPED = 0, 1, 2


def _cuts(addr: int, size: int, live: list[tuple[int, int, int]]) -> list[tuple[int, int, int, int]]:
    """A mapped stretch cut into its allocated blocks (``live``) and the free blocks between them."""
    cuts: list[tuple[int, int, int, int]] = []
    at = addr
    for a, n, req in live:
        if a > at:
            cuts.append((at, a - at, 0, _FREE))
        cuts.append((a, n, req, _LIVE))
        at = a + n
    if at < addr + size:
        cuts.append((at, addr + size - at, 0, _FREE))
    return cuts
