"""A predicted training step written as a memory snapshot, for PyTorch's memory_viz (and this app's reader).

memory_viz (pytorch.org/memory_viz, ``torch/utils/viz/MemoryViz.js``) opens the dict of
``torch.cuda.memory._snapshot()`` as a pickle or, in current versions, as JSON (its ``unpickle`` tries
``JSON.parse`` first). The predicted timeline (``engine.training.timeline``) becomes a trace that replays to the
same totals: at each moment, every term whose bytes fell frees its most recent blocks (and allocates back any
remainder), then every term whose bytes grew allocates the difference as one block. Frees come first, so no
moment in between rises above the larger of the two moments around it: the trace's peak is the prediction's.
The frees that lead into a moment belong to the moment before (their frames name its phase), unless the moment
allocates nothing, when its last free is its own: so a phase's largest total, read back, is the prediction's.

Each block sits in a segment of its own (``segment_alloc`` before its ``alloc``, ``segment_free`` after its
free), so memory_viz's segment views have a segment for every block; the prediction has no caching allocator,
so reserved equals allocated here. Each ``alloc`` carries its term as ``category`` (memory_viz colours by
category and lists them in a legend) and a frame in the file ``vramlab/prediction`` naming the phase, the term,
the step and the layer. A first ``snapshot`` event carries the category ``unknown``: memory_viz's
``annotate_snapshot`` adds that category through a misspelt name (``snapshot.categores``) and would stop
otherwise.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from engine.snapshot.frames import PREDICTION_FILE
from engine.training.timeline import Timeline, TimelinePoint

#: the first block's address (blocks never reuse one); below 2**53, so JavaScript numbers hold them exactly
BASE_ADDRESS = 0x10000000000
_ALIGN = 512


@dataclass
class _Writer:
    """The trace being written, and each term's live blocks (address, size), newest last."""

    events: list[dict[str, Any]] = field(default_factory=list)
    blocks: dict[str, list[tuple[int, int]]] = field(default_factory=dict)
    next_addr: int = BASE_ADDRESS
    time_us: int = 0

    def _event(self, action: str, addr: int, size: int, frames: list[dict[str, Any]], **extra: Any) -> None:
        self.time_us += 1
        self.events.append({"action": action, "addr": addr, "size": size, "stream": 0, "time_us": self.time_us,
                            "frames": frames, **extra})

    def alloc(self, term: str, size: int, frames: list[dict[str, Any]]) -> None:
        addr = self.next_addr
        self.next_addr += -(-size // _ALIGN) * _ALIGN or _ALIGN
        self._event("segment_alloc", addr, size, frames)
        self._event("alloc", addr, size, frames, category=term)
        self.blocks.setdefault(term, []).append((addr, size))

    def free(self, addr: int, size: int, frames: list[dict[str, Any]]) -> None:
        self._event("free_requested", addr, size, frames)
        self._event("free_completed", addr, size, frames)
        self._event("segment_free", addr, size, frames)

    def take_down_to(self, term: str, want: int) -> list[tuple[str, int, int]]:
        """Remove ``term``'s newest blocks until it holds at most ``want`` bytes: (term, address, size) each."""
        live = self.blocks.get(term, [])
        taken = []
        while live and sum(size for _, size in live) > want:
            addr, size = live.pop()
            taken.append((term, addr, size))
        return taken

    def held(self, term: str) -> int:
        return sum(size for _, size in self.blocks.get(term, []))


def _frames(p: TimelinePoint, term: str) -> list[dict[str, Any]]:
    where = f"step {p.step}, {p.moment.value}" + (f", layer {p.layer}" if p.layer is not None else "")
    return [{"filename": PREDICTION_FILE, "line": p.index, "name": f"{p.phase}: {term} ({where})"}]


def to_memory_viz(t: Timeline, device: int = 0) -> dict[str, Any]:
    """The snapshot dict of the predicted steps (module docstring), on ``device``."""
    w = _Writer()
    w.events.append({"action": "snapshot", "addr": 0, "size": 0, "stream": 0, "time_us": 0, "frames": [],
                     "category": "unknown"})
    prev: TimelinePoint | None = None
    for p in t.points:
        frees = [f for term, want in p.terms.items() for f in w.take_down_to(term, want)]
        grows = [(term, want - w.held(term)) for term, want in p.terms.items() if want > w.held(term)]
        for j, (term, addr, size) in enumerate(frees):
            own = prev is None or (not grows and j == len(frees) - 1)
            w.free(addr, size, _frames(p if own or prev is None else prev, term))
        for term, size in grows:
            w.alloc(term, size, _frames(p, term))
        prev = p
    segments = [{"device": device, "address": addr, "total_size": size, "stream": 0, "segment_type": "large",
                 "segment_pool_id": [0, 0], "allocated_size": size, "active_size": size, "requested_size": size,
                 "is_expandable": False, "frames": [],
                 "blocks": [{"address": addr, "size": size, "requested_size": size, "state": "active_allocated",
                             "frames": []}]}
                for live in w.blocks.values() for addr, size in live]
    traces: list[list[dict[str, Any]]] = [[] for _ in range(device + 1)]
    traces[device] = w.events
    return {"segments": sorted(segments, key=lambda s: s["address"]), "device_traces": traces,
            "allocator_settings": {"note": "VRAM Lab prediction: no caching allocator (reserved = allocated)"}}
