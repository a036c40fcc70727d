"""engine.snapshot.report: the timeline keeps the peaks, steps carry their phases, the JSON is plain."""

from __future__ import annotations

import json

from engine.snapshot import analyse
from engine.snapshot.replay import replay
from tools.snapshot_fixtures import StepShape, training


def test_timeline_is_downsampled_around_the_peaks() -> None:
    a = training(StepShape(), stacks="python")
    full = analyse(a.snapshot(), "s")
    r = analyse(a.snapshot(), "s", points=10)
    assert len(r.timeline) <= 11
    assert r.timeline[0] == {"event": -1, "allocated_bytes": a.truth_initial, "reserved_bytes":
                             full.timeline[0]["reserved_bytes"], "phase": "unknown", "step": 0}
    assert max(p["allocated_bytes"] for p in r.timeline) == r.peak_allocated_bytes == a.peak
    assert max(p["reserved_bytes"] for p in r.timeline) == r.peak_reserved_bytes
    assert len(full.timeline) == full.events + 1  # fewer events than points: every event
    peak = next(p for p in r.timeline if p["event"] == r.peak_event)
    assert (peak["step"], peak["phase"]) == (2, "backward")


def test_steps_and_phases() -> None:
    a = training(StepShape(), stacks="python")
    r = analyse(a.snapshot(), "s")
    s1, s2 = r.steps
    shape = StepShape()
    assert s1.optimizer_states_created_bytes == 2 * shape.layers * shape.weight
    assert s2.optimizer_states_created_bytes == 0
    assert set(s1.phases) == {"forward", "backward", "optimizer_step"}
    assert max(p.peak_allocated_bytes for p in s2.phases.values()) == s2.peak_allocated_bytes
    assert a.truth_allocated[s2.peak_event] == s2.peak_allocated_bytes
    (oom,) = r.ooms  # 1 TiB asked for on an 80 GiB GPU, with what was reserved then in use
    reserved_then = replay(a.snapshot(), 0).reserved[oom["event"]]
    at = next(i for i, e in enumerate(a.events) if e["action"] == "oom")
    assert oom == {"event": at, "requested_bytes": 1 << 40,
                   "device_free_bytes": 80 * 1024**3 - reserved_then}


def test_json_round_trips() -> None:
    r = analyse(training(stacks="all").snapshot(), "s")
    d = json.loads(json.dumps(r.to_json()))
    assert d["by_term"] == r.by_term
    assert d["peak_blocks"][0]["bytes"] == r.peak_blocks[0].bytes
