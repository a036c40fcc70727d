"""Two ways to hand out a pool of KV-cache blocks: one contiguous slot at the maximum length, or pages.

Contiguous (Orca-style, as the vLLM paper's baseline): each request reserves room for ``max_len`` tokens when
it is admitted, used or not. Paged (PagedAttention, Kwon et al. 2023, arXiv:2309.06180, section 4): each
request holds ``ceil(tokens / block_size)`` blocks anywhere in the pool and takes one more only when its last
fills.
Both track, block by block, who owns it and how many of its token slots are filled, for the block map.
"""

from __future__ import annotations

import math
from abc import ABC, abstractmethod

import numpy as np

FREE = -1


class BlockPool(ABC):
    """``blocks`` blocks of ``block_size`` token slots; ``owner[i]`` is a request id or ``FREE``."""

    def __init__(self, blocks: int, block_size: int) -> None:
        self.block_size = block_size
        self.owner = np.full(blocks, FREE, dtype=np.int32)
        self.fill = np.zeros(blocks, dtype=np.int32)
        self.held: dict[int, list[int]] = {}

    @abstractmethod
    def reserve(self, request: int, tokens: int) -> tuple[int, ...] | None:
        """Admit ``request`` with ``tokens`` cached: the blocks it takes, or None when they do not fit."""

    @abstractmethod
    def grow(self, request: int, tokens: int) -> tuple[int, ...] | None:
        """``request`` now caches ``tokens``: the blocks newly taken (maybe none), or None if none is free."""

    def release(self, request: int) -> tuple[int, ...]:
        """Free every block ``request`` holds."""
        blocks = self.held.pop(request)
        self.owner[blocks] = FREE
        self.fill[blocks] = 0
        return tuple(blocks)

    def reserved_slots(self) -> int:
        return sum(len(b) for b in self.held.values()) * self.block_size

    def _take(self, request: int, blocks: list[int], tokens: int) -> tuple[int, ...]:
        self.owner[blocks] = request
        self.held.setdefault(request, []).extend(blocks)
        self._fill(request, tokens)
        return tuple(blocks)

    def _fill(self, request: int, tokens: int) -> None:
        held = self.held[request]
        starts = np.arange(len(held)) * self.block_size
        self.fill[held] = np.clip(tokens - starts, 0, self.block_size)


class ContiguousPool(BlockPool):
    """Aligned slots of ``ceil(max_len / block_size)`` consecutive blocks, one slot per request."""

    def __init__(self, blocks: int, block_size: int, max_len: int) -> None:
        super().__init__(blocks, block_size)
        self.slot_blocks = math.ceil(max_len / block_size)

    def reserve(self, request: int, tokens: int) -> tuple[int, ...] | None:
        for start in range(0, len(self.owner) - self.slot_blocks + 1, self.slot_blocks):
            if self.owner[start] == FREE:
                return self._take(request, list(range(start, start + self.slot_blocks)), tokens)
        return None

    def grow(self, request: int, tokens: int) -> tuple[int, ...] | None:
        self._fill(request, tokens)
        return ()


class PagedPool(BlockPool):
    """Blocks taken one at a time, lowest free index first, anywhere in the pool.

    Admission leaves ``watermark`` blocks free for running requests to grow into (vLLM: 1% of the blocks).
    """

    def __init__(self, blocks: int, block_size: int, watermark: float = 0.01) -> None:
        super().__init__(blocks, block_size)
        self.watermark = max(1, round(blocks * watermark))

    def _free(self, n: int) -> list[int] | None:
        free = np.flatnonzero(self.owner == FREE)
        return [int(b) for b in free[:n]] if len(free) >= n else None

    def reserve(self, request: int, tokens: int) -> tuple[int, ...] | None:
        need = math.ceil(tokens / self.block_size)
        if self.held and int(np.count_nonzero(self.owner == FREE)) - need < self.watermark:
            return None
        blocks = self._free(need)
        return None if blocks is None else self._take(request, blocks, tokens)

    def grow(self, request: int, tokens: int) -> tuple[int, ...] | None:
        need = math.ceil(tokens / self.block_size) - len(self.held[request])
        blocks = self._free(need) if need > 0 else []
        if blocks is None:
            return None
        return self._take(request, blocks, tokens)
