"""A line-by-line port of memory_viz's allocated-memory arithmetic, to hold the engine's replay to.

From PyTorch's ``torch/utils/viz/MemoryViz.js`` (commit 00067369c9339bed950762afec327514d6fa2566):
``annotate_snapshot`` (the free_requested / free_completed elision) and ``process_alloc_data`` with
``plot_segments=false`` and every element drawn (the "summarized" split does not change totals). It keeps the
JavaScript's shape (element lists, ``findLastIndex``, ``advance``) on purpose, slow as that is, so that it can
be read against the original; the engine's ``replay`` is written differently, for speed.
"""

from __future__ import annotations

import copy
from typing import Any


def annotate(trace: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """``annotate_snapshot``: a free_completed right after the free_requested of its address turns that
    free_requested into one ``free`` event and is dropped."""
    new: list[dict[str, Any]] = []
    for t in copy.deepcopy(trace):
        if t["action"] == "free_completed" and new:
            prev = new[-1]
            if prev["action"] == "free_requested" and prev.get("addr") == t.get("addr"):
                prev["action"] = "free"
                continue
        new.append(t)
    return new


def _elements(snapshot: dict[str, Any], device: int) -> tuple[list[int], list[int], list[int]]:
    """The first loops of ``process_alloc_data``: element sizes, initially allocated elements, actions."""
    sizes: list[int] = []
    initially: list[int] = []
    actions: list[int] = []
    addr_to_alloc: dict[int, int] = {}
    for e in annotate(snapshot["device_traces"][device]):
        if e["action"] == "alloc":
            sizes.append(e["size"])
            addr_to_alloc[e["addr"]] = len(sizes) - 1
            actions.append(len(sizes) - 1)
        elif e["action"] in ("free", "free_completed"):
            if e["addr"] in addr_to_alloc:
                actions.append(addr_to_alloc.pop(e["addr"]))
            else:
                sizes.append(e["size"])
                initially.append(len(sizes) - 1)
                actions.append(len(sizes) - 1)
    for seg in snapshot["segments"]:
        if seg.get("device") != device:
            continue
        addr = seg["address"]
        for b in seg["blocks"]:
            if b["state"] == "active_allocated" and addr not in addr_to_alloc:
                sizes.append(b["requested_size"])
                initially.append(len(sizes) - 1)
            addr += b["size"]
    initially.reverse()
    if not actions and initially:
        actions.append(initially.pop())
    return sizes, initially, actions


def process_alloc_data(snapshot: dict[str, Any], device: int) -> tuple[list[int], int]:
    """``max_at_time`` (the curve memory_viz draws, one value per timestep) and ``max_size`` (its y-axis top)."""
    sizes, initially, actions = _elements(snapshot, device)
    current: list[int] = []
    total = 0
    max_size = 0
    max_at_time: list[int] = []
    for elem in initially:
        current.append(elem)
        total += sizes[elem]
    for elem in actions:
        size = sizes[elem]
        idx = max((i for i, x in enumerate(current) if x == elem), default=-1)  # findLastIndex
        if idx == -1:
            current.append(elem)
            total += size
            max_at_time.append(total)  # advance(1) after adding
        else:
            max_at_time.append(total)  # advance(1) before removing
            current.pop(idx)
            if idx < len(current):
                max_at_time += [total] * 3  # advance(3): the blocks above slide down
            total -= size
        max_size = max(total, max_size)
    return max_at_time, max_size
