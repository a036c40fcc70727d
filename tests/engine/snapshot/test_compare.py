"""engine.snapshot.compare: the measured snapshot beside the estimate, step by step and phase by phase."""

from __future__ import annotations

from engine.catalog import get_gpu, get_model
from engine.snapshot import analyse
from engine.snapshot.compare import compare, estimate_step
from engine.snapshot.report import StepReport
from engine.specs import TrainingSetup
from engine.training import estimate
from tools.snapshot_fixtures import training


def test_compare_with_an_estimate() -> None:
    report = analyse(training(stacks="python").snapshot(), "s")
    e = estimate(get_model("llama-3.2-1b"), TrainingSetup(seq_len=512), get_gpu("a100-80gb"))
    c = compare(report, e)
    assert c["estimated_peak_allocated_bytes"] == e.peak_allocated_bytes
    assert c["measured_peak_allocated_bytes"] == report.peak_allocated_bytes
    assert c["ratio"] == round(report.peak_allocated_bytes / e.peak_allocated_bytes, 4)
    rows = {(r["step"], r["phase"]): r for r in c["by_phase"]}
    assert set(rows) == {(s, p) for s in (1, 2) for p in ("forward", "backward", "optimizer_step")}
    assert {r["estimate_step"] for r in c["by_phase"] if r["step"] == 1} == {1}  # it created AdamW's states
    assert {r["estimate_step"] for r in c["by_phase"] if r["step"] == 2} == {2}
    states = next(t.bytes for t in e.terms if t.name == "optimizer_states")
    assert e.peak_step == 2
    assert states > 0
    # later steps run forward and backward with the states that the first step created
    assert rows[2, "forward"]["estimated_bytes"] - rows[1, "forward"]["estimated_bytes"] == states
    measured_step2 = report.steps[1]
    assert rows[2, "backward"]["measured_bytes"] == measured_step2.phases["backward"].peak_allocated_bytes
    assert c["by_term"]["optimizer_states"] == {"estimated_bytes": states,
                                                "measured_bytes": report.by_term["optimizer_states"]}
    assert c["by_term"]["unattributed"]["estimated_bytes"] == 0


def _step(index: int, created: int, complete: bool) -> StepReport:
    return StepReport(index, 0, 1, complete, 0, 0, created, {})


def test_which_estimate_step_a_measured_step_is() -> None:
    assert estimate_step(_step(1, created=10, complete=True)) == 1
    assert estimate_step(_step(3, created=10, complete=True)) == 1  # recording began before the run's first step
    assert estimate_step(_step(1, created=0, complete=True)) == 2  # recording began after it
    assert estimate_step(_step(1, created=0, complete=False)) == 1  # only a first forward and backward recorded
    assert estimate_step(_step(2, created=0, complete=False)) == 2
