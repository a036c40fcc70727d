"""engine.snapshot.attribution: the peak broken down by term, against the generator's truth and hand-made cases."""

from __future__ import annotations

from typing import Any

from engine.snapshot import analyse
from engine.snapshot.attribution import TERMS, UNATTRIBUTED
from tools.snapshot_fixtures import Frames, StepShape, training

SCRATCH = ("activations", "logits", "temporaries")


def test_with_cpp_frames_every_term_is_the_truth() -> None:
    a = training(StepShape(), stacks="all")
    r = analyse(a.snapshot(), "s")
    truth = dict.fromkeys((*TERMS, UNATTRIBUTED), 0) | a.peak_terms
    assert r.by_term == truth
    assert sum(r.by_term.values()) == r.peak_allocated_bytes
    assert truth["optimizer_states"] > 0
    assert truth["gradients"] > 0
    assert truth["logits"] > 0


def test_with_python_frames_the_model_states_are_the_truth() -> None:
    # without C++ frames the loss's gradient cannot be told from other backward scratch: it lands in temporaries
    a = training(StepShape(), stacks="python")
    r = analyse(a.snapshot(), "s")
    for term in ("weights", "gradients", "optimizer_states", UNATTRIBUTED):
        assert r.by_term[term] == a.peak_terms.get(term, 0), term
    assert sum(r.by_term[t] for t in SCRATCH) == sum(a.peak_terms.get(t, 0) for t in SCRATCH)


def test_weights_before_recording_are_said_to_be_so() -> None:
    r = analyse(training(stacks="python").snapshot(), "s")
    assert f"{r.before_recording_bytes - 4096:,} bytes were allocated before recording" not in r.attribution
    weights = r.by_term["weights"]
    assert f"{weights:,} bytes were allocated before recording began and are counted as weights" in r.attribution
    recorded = analyse(training(stacks="python", record_weights=True).snapshot(), "s")
    assert recorded.by_term["weights"] == weights  # now from Module._apply's frames
    assert "before recording began and are counted" not in recorded.attribution


def _snap(trace: list[dict[str, Any]], blocks: list[dict[str, Any]]) -> dict[str, Any]:
    seg = {"device": 0, "address": 0x100000, "total_size": sum(b["size"] for b in blocks), "blocks": blocks}
    return {"segments": [seg] if blocks else [], "device_traces": [trace]}


def test_blocks_alive_from_the_start() -> None:
    fr = Frames("python")
    states = fr.optimizer("_init_group")
    # at 0x100000 a block allocated before recording with no frames (weights), then one whose alloc fell out of
    # the trace (max_entries) but which kept its frames: AdamW's states; at 0x9000 a block that predates the
    # recording and is freed after the peak: unattributed
    blocks = [{"size": 1024, "requested_size": 1000, "state": "active_allocated", "frames": []},
              {"size": 512, "requested_size": 500, "state": "active_allocated", "frames": states}]
    trace = [{"action": "alloc", "addr": 0x1000, "size": 64, "frames": fr.other()},
             {"action": "free_completed", "addr": 0x9000, "size": 300, "frames": fr.other()}]
    r = analyse(_snap(trace, blocks), "s")
    assert r.peak_allocated_bytes == 1000 + 500 + 300 + 64
    assert r.by_term == {"weights": 1000, "gradients": 0, "optimizer_states": 500, "activations": 0, "logits": 0,
                         "sharding_buffers": 0, "temporaries": 0, "parallel_buffers": 0, UNATTRIBUTED: 364}
    assert {b.term for b in r.peak_blocks if b.bytes == 500} == {"optimizer_states"}


def test_without_frames_only_what_predates_recording_is_attributed() -> None:
    trace = [{"action": "alloc", "addr": 0x1000, "size": 64, "frames": []}]
    blocks = [{"size": 1024, "requested_size": 1000, "state": "active_allocated", "frames": []}]
    r = analyse(_snap(trace, blocks), "s")
    assert r.stacks == "none"
    assert r.by_term["weights"] == 1000
    assert r.by_term[UNATTRIBUTED] == 64
    assert "no stack frames" in r.attribution


def test_peak_blocks_are_the_largest_with_their_frames() -> None:
    r = analyse(training(StepShape(), stacks="python").snapshot(), "s")
    sizes = [b.bytes for b in r.peak_blocks]
    assert sizes == sorted(sizes, reverse=True)
    grads = [b for b in r.peak_blocks if b.term == "gradients"]
    assert grads
    assert all(b.phase == "backward" and b.frames == () for b in grads)
    states = [b for b in r.peak_blocks if b.term == "optimizer_states"]
    assert states[0].frames[0] == "adamw.py:180:_init_group"
