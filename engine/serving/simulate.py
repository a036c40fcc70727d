"""The step loop of the paged-allocation simulation (types and the method: ``engine.serving.paged``).

``simulate`` yields one frame per decoding step, for a block map to animate; ``summarize`` runs it to the end.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterator

import numpy as np

from engine.serving.allocators import BlockPool
from engine.serving.paged import Allocation, Event, EventKind, Frame, PagingSummary, PoolSpec
from engine.serving.trace import Request


class _Run:
    """Mutable state of one simulation (kept private: callers see only frames)."""

    def __init__(self, requests: tuple[Request, ...], pool: BlockPool) -> None:
        self.pending = deque(sorted(requests, key=lambda r: (r.arrival, r.id)))
        self.waiting: deque[Request] = deque()
        self.running: dict[int, tuple[Request, int]] = {}  # id -> (request, tokens cached), admission order
        self.pool = pool
        self.events: list[Event] = []

    def arrive(self, step: int) -> None:
        while self.pending and self.pending[0].arrival <= step:
            r = self.pending.popleft()
            self.waiting.append(r)
            self.events.append(Event(EventKind.ARRIVE, r.id))

    def decode(self) -> None:
        for rid in list(self.running):
            if rid in self.running:
                self._decode_one(rid)

    def _decode_one(self, rid: int) -> None:
        request, tokens = self.running[rid]
        tokens += 1
        if tokens >= request.final:
            del self.running[rid]
            self.events.append(Event(EventKind.FINISH, rid, self.pool.release(rid)))
            return
        self.running[rid] = (request, tokens)
        while (taken := self.pool.grow(rid, tokens)) is None:
            victim = next(reversed(self.running))
            self._preempt(victim)
            if victim == rid:
                return
        if taken:
            self.events.append(Event(EventKind.GROW, rid, taken))

    def _preempt(self, rid: int) -> None:
        request, _ = self.running.pop(rid)
        self.waiting.appendleft(request)
        self.events.append(Event(EventKind.PREEMPT, rid, self.pool.release(rid)))

    def admit(self) -> None:
        """First come, first served; none in a step that preempted (vLLM's scheduler does the same)."""
        if any(e.kind is EventKind.PREEMPT for e in self.events):
            return
        while self.waiting:
            r = self.waiting[0]
            taken = self.pool.reserve(r.id, r.prompt)
            if taken is None:
                return
            self.waiting.popleft()
            self.running[r.id] = (r, r.prompt)
            self.events.append(Event(EventKind.ADMIT, r.id, taken))

    @property
    def busy(self) -> bool:
        return bool(self.pending or self.waiting or self.running)


def simulate(requests: tuple[Request, ...], allocation: Allocation, pool: PoolSpec) -> Iterator[Frame]:
    """Yield one frame per decoding step until every request has finished (deterministic)."""
    run = _Run(requests, pool.make(allocation))
    step, reserved_total, used_total = 0, 0, 0
    while run.busy:
        run.events = []
        run.arrive(step)
        run.decode()
        run.admit()
        reserved = run.pool.reserved_slots()
        used = sum(tokens for _, tokens in run.running.values())
        reserved_total, used_total = reserved_total + reserved, used_total + used
        yield Frame(
            step=step, events=tuple(run.events), owner=run.pool.owner.copy(), fill=run.pool.fill.copy(),
            running=len(run.running), waiting=len(run.waiting), reserved=reserved, used=used,
            reserved_total=reserved_total, used_total=used_total,
        )
        step += 1


def summarize(requests: tuple[Request, ...], allocation: Allocation, pool: PoolSpec) -> PagingSummary:
    """Run ``simulate`` to the end and sum it up."""
    last: Frame | None = None
    running: list[int] = []
    preemptions = 0
    for frame in simulate(requests, allocation, pool):
        last = frame
        running.append(frame.running)
        preemptions += sum(e.kind is EventKind.PREEMPT for e in frame.events)
    assert last is not None
    busy = [n for n in running if n]
    return PagingSummary(
        allocation=allocation, pool=pool, requests=len(requests), steps=last.step + 1, waste=last.waste,
        mean_running=float(np.mean(busy)) if busy else 0.0, peak_running=max(running),
        preemptions=preemptions,
    )
