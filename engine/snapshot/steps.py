"""The phase of every event and the training steps of a replayed trace, read from stack frames.

Each allocation's frames give its phase (``engine.snapshot.frames``); a free whose own frames show the
optimizer (``zero_grad`` setting gradients to ``None``) marks the optimizer step too, since a fused optimizer's
later steps may allocate nothing. Every other event inherits the phase of the event before it. Consecutive events
of one phase form a **run**. A **step** ends with the optimizer-step run that follows a backward run (the
"optimizer step boundaries"): gradient-accumulation micro-batches stay inside one step. A trace with no optimizer
frames at all is cut where a forward run follows a backward run. A step spans its first forward (or backward)
run to its last optimizer-step (or backward) run; it is ``complete`` when it reached an optimizer step.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from engine.snapshot.frames import Mark, MarkCache, Phase, phase_of
from engine.snapshot.replay import Replay

#: the phases a training step is made of (the rest: set-up, evaluation, anything unmarked)
CORE_PHASES = (Phase.FORWARD, Phase.BACKWARD, Phase.OPTIMIZER_STEP)


@dataclass(frozen=True, slots=True)
class Run:
    """Events ``first`` to ``last`` (inclusive), all of one phase."""

    phase: Phase
    first: int
    last: int


@dataclass(frozen=True, slots=True)
class Step:
    """One training step found in the trace (1-based ``index``), its events and its runs."""

    index: int
    first: int
    last: int
    complete: bool
    runs: tuple[Run, ...]


@dataclass(frozen=True, slots=True)
class Phases:
    """Per event: ``labels`` (a ``Phase``) and ``run_end`` (the last event of its run). Per replay element:
    ``phase`` and ``mark`` of the frames it was allocated with. ``stacks`` says what the frames hold."""

    labels: npt.NDArray[np.uint8]
    run_end: npt.NDArray[np.int64]
    phase: npt.NDArray[np.uint8]
    mark: npt.NDArray[np.int32]
    runs: tuple[Run, ...]
    steps: tuple[Step, ...]
    stacks: str  # "python", "python+c++", "c++" or "none"


_OPTIMIZER = int(Mark.OPTIMIZER)


def _optimizer_frees(r: Replay, raw: npt.NDArray[np.uint8], cache: MarkCache) -> None:
    """Label the frees whose own frames show the optimizer (``zero_grad`` setting gradients to None)."""
    stack = cache.stack
    for i, frames in r.free_frames:
        if stack(frames) & _OPTIMIZER:
            raw[i] = Phase.OPTIMIZER_STEP


def _fill(raw: npt.NDArray[np.uint8]) -> npt.NDArray[np.uint8]:
    """Each unlabelled (0) event takes the label of the last labelled event before it."""
    idx = np.where(raw > 0, np.arange(raw.size), 0)
    np.maximum.accumulate(idx, out=idx)
    return raw[idx] if raw.size else raw


def _runs(labels: npt.NDArray[np.uint8]) -> tuple[tuple[Run, ...], npt.NDArray[np.int64]]:
    if labels.size == 0:
        return (), np.zeros(0, dtype=np.int64)
    firsts = np.concatenate(([0], np.flatnonzero(np.diff(labels)) + 1))
    lasts = np.concatenate((firsts[1:] - 1, [labels.size - 1]))
    runs = tuple(Run(Phase(int(labels[f])), int(f), int(la)) for f, la in zip(firsts, lasts, strict=True))
    return runs, np.repeat(lasts, lasts - firsts + 1).astype(np.int64)


def _group(runs: tuple[Run, ...]) -> list[list[Run]]:
    """Runs cut into steps (module docstring)."""
    by_optimizer = any(r.phase is Phase.OPTIMIZER_STEP for r in runs)
    groups: list[list[Run]] = [[]]
    seen_backward = False
    for r in runs:
        if not by_optimizer and r.phase is Phase.FORWARD and seen_backward:
            groups.append([])
            seen_backward = False
        groups[-1].append(r)
        seen_backward |= r.phase is Phase.BACKWARD
        if by_optimizer and r.phase is Phase.OPTIMIZER_STEP and seen_backward:
            groups.append([])
            seen_backward = False
    return groups


def _steps(runs: tuple[Run, ...]) -> tuple[Step, ...]:
    steps: list[Step] = []
    for group in _group(runs):
        if not any(r.phase is Phase.BACKWARD for r in group):
            continue
        start = next(i for i, r in enumerate(group) if r.phase in (Phase.FORWARD, Phase.BACKWARD))
        end = max(i for i, r in enumerate(group) if r.phase in CORE_PHASES)
        inner = tuple(group[start:end + 1])
        complete = inner[-1].phase is Phase.OPTIMIZER_STEP
        steps.append(Step(len(steps) + 1, inner[0].first, inner[-1].last, complete, inner))
    return tuple(steps)


def _stacks(cache_frames: list[Any]) -> str:
    py = cpp = False
    for frames in cache_frames:
        for f in frames:
            if type(f) is not dict:
                continue
            name, filename = str(f.get("name", "")), str(f.get("filename", ""))
            if "::" in name or filename.endswith((".cpp", ".h", ".c")) or filename == "??":
                cpp = True
            else:
                py = True
        if py and cpp:
            break
    return "python+c++" if py and cpp else "python" if py else "c++" if cpp else "none"


def find_phases(r: Replay) -> Phases:
    """Label the replayed trace's events and find its steps (module docstring)."""
    cache = MarkCache()
    marks = np.fromiter(map(cache.stack, r.frames), dtype=np.int64, count=len(r.frames))
    has = np.fromiter(map(bool, r.frames), dtype=np.bool_, count=len(r.frames))
    in_trace = r.starts >= 0
    threads_without_frames = bool(has[in_trace].any())
    pairs, which = np.unique(marks * 2 + has, return_inverse=True)  # a handful of distinct (mark, has) pairs
    table = np.array([phase_of(int(p) >> 1, bool(p & 1), threads_without_frames) for p in pairs], dtype=np.uint8)
    phase = table[which.reshape(-1)] if marks.size else np.zeros(0, dtype=np.uint8)
    raw = np.zeros(r.events, dtype=np.uint8)
    raw[r.starts[in_trace]] = phase[in_trace]
    _optimizer_frees(r, raw, cache)
    labels = _fill(raw)
    runs, run_end = _runs(labels)
    return Phases(labels, run_end, phase, marks.astype(np.int32), runs, _steps(runs),
                  _stacks(cache.sample()))
