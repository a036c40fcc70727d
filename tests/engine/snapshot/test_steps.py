"""engine.snapshot.steps: phases and training steps found from frames, on hand-made and generated traces."""

from __future__ import annotations

from typing import Any

from engine.snapshot.frames import Phase
from engine.snapshot.replay import replay
from engine.snapshot.steps import find_phases
from tools.snapshot_fixtures import MIB, Frames, StepShape, training

FR = Frames("python")
FORWARD = FR.module("torch/nn/modules/linear.py", 125)
OPTIMIZER = FR.optimizer("_init_group")
ZERO = FR.zero_grad()


def alloc(addr: int, size: int, frames: list[dict[str, Any]]) -> dict[str, Any]:
    return {"action": "alloc", "addr": addr, "size": size, "frames": list(frames)}


def free(addr: int, size: int, frames: list[dict[str, Any]] | None = None) -> list[dict[str, Any]]:
    f = list(frames or [])
    return [{"action": "free_requested", "addr": addr, "size": size, "frames": f},
            {"action": "free_completed", "addr": addr, "size": size, "frames": f}]


def micro_batch(base: int) -> list[dict[str, Any]]:
    """Forward (one saved activation), backward (a gradient kept, the activation freed): 5 events."""
    return [alloc(base, 100, FORWARD), alloc(base + 1, 10, []), *free(base, 100), alloc(base + 2, 5, [])]


def phases_of(trace: list[dict[str, Any]]) -> Any:
    return find_phases(replay({"segments": [], "device_traces": [trace]}, 0))


def labels(trace: list[dict[str, Any]]) -> list[str]:
    return [Phase(int(x)).label for x in phases_of(trace).labels]


def test_generated_steps_and_the_states_of_the_first() -> None:
    a = training(StepShape(), stacks="python", clip=False)
    ph = find_phases(replay(a.snapshot(), 0))
    assert len(ph.steps) == 2
    s1, s2 = ph.steps
    assert [r.phase for r in s1.runs] == [Phase.FORWARD, Phase.BACKWARD, Phase.OPTIMIZER_STEP]
    assert s1.complete
    assert s2.complete
    events = a.events
    assert events[s1.first]["frames"] == FORWARD  # the first forward allocation
    # step 2's optimizer step allocates nothing (a fused AdamW's later steps): zero_grad's frees mark it
    assert [r.phase for r in s2.runs][-1] is Phase.OPTIMIZER_STEP
    assert all(e["frames"] == ZERO for e in events[s2.runs[-1].first:s2.runs[-1].first + 2])
    assert ph.stacks == "python"


def test_gradient_accumulation_stays_in_one_step() -> None:
    trace = [*micro_batch(0x100), *micro_batch(0x200), alloc(0x300, 50, OPTIMIZER), *micro_batch(0x400)]
    ph = phases_of(trace)
    assert [(s.first, s.last, s.complete) for s in ph.steps] == [(0, 10, True), (11, 15, False)]


def test_without_optimizer_frames_a_forward_after_a_backward_starts_a_step() -> None:
    ph = phases_of([*micro_batch(0x100), *micro_batch(0x200)])
    assert [(s.first, s.last, s.complete) for s in ph.steps] == [(0, 4, False), (5, 9, False)]


def test_events_inherit_the_phase_before_them() -> None:
    trace = [alloc(1, 8, FORWARD), *free(1, 8), alloc(2, 8, []), alloc(3, 8, OPTIMIZER)]
    assert labels(trace) == ["forward", "forward", "forward", "backward", "optimizer_step"]


def test_a_free_that_reuses_its_allocation_frames_labels_nothing() -> None:
    # with context="alloc", PyTorch records a free with its allocation's stack: that says nothing about the free
    a = alloc(1, 8, OPTIMIZER)
    reused = {"action": "free_completed", "addr": 1, "size": 8, "frames": a["frames"]}
    own = {"action": "free_completed", "addr": 2, "size": 8, "frames": list(ZERO)}
    assert labels([a, alloc(2, 8, []), alloc(3, 8, FORWARD), reused]) == [
        "optimizer_step", "backward", "forward", "forward"]
    assert labels([a, alloc(2, 8, []), alloc(3, 8, FORWARD), own])[-1] == "optimizer_step"


def test_run_ends_and_element_phases() -> None:
    ph = phases_of([alloc(1, MIB, FORWARD), alloc(2, MIB, FORWARD), alloc(3, 8, []), *free(1, MIB)])
    assert ph.run_end.tolist() == [1, 1, 4, 4, 4]
    assert [Phase(int(p)) for p in ph.phase] == [Phase.FORWARD, Phase.FORWARD, Phase.BACKWARD]
