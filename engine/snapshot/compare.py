"""A measured snapshot beside the training estimate for the same setup: the peak, each phase, each term.

Steps map onto the estimate's two kinds of step (``engine.training.estimate``: step 1 runs forward and backward
before AdamW has created its states; every later step runs with them): a measured step whose optimizer step
created states is the run's first (estimate step 1); the others are later steps (estimate step 2), except a
first step found that never reached its optimizer step and created nothing, which is taken for step 1 (a
recording of the run's first forward and backward). Every ``ratio`` is measured / estimated.
"""

from __future__ import annotations

from typing import Any

from engine.snapshot.report import SnapshotReport, StepReport
from engine.training.result import Estimate


def _ratio(measured: int, estimated: int) -> float | None:
    return round(measured / estimated, 4) if estimated else None


def estimate_step(s: StepReport) -> int:
    """Which of the estimate's steps (1 or 2) a measured step is (module docstring)."""
    if s.optimizer_states_created_bytes > 0:
        return 1
    return 1 if s.step == 1 and not s.complete else 2


def by_phase(report: SnapshotReport, e: Estimate) -> list[dict[str, Any]]:
    """Per measured step and phase: the largest allocated total, beside the estimate's for that phase."""
    estimated: dict[tuple[str, int], int] = {}
    for p in e.phases:
        key = (p.name, p.step)
        estimated[key] = max(estimated.get(key, 0), round(p.total))
    out = []
    for s in report.steps:
        step = estimate_step(s)
        for name, measured in s.phases.items():
            est = estimated.get((name, step))
            if est is not None:
                out.append({"step": s.step, "estimate_step": step, "phase": name, "estimated_bytes": est,
                            "measured_bytes": measured.peak_allocated_bytes,
                            "ratio": _ratio(measured.peak_allocated_bytes, est)})
    return out


def compare(report: SnapshotReport, e: Estimate) -> dict[str, Any]:
    """The ``compare`` object of ``python -m engine snapshot FILE --compare``."""
    terms = {t.name: t.bytes for t in e.terms}
    names = [*terms, *(k for k in report.by_term if k not in terms)]
    return {
        "estimated_peak_allocated_bytes": e.peak_allocated_bytes,
        "measured_peak_allocated_bytes": report.peak_allocated_bytes,
        "ratio": _ratio(report.peak_allocated_bytes, e.peak_allocated_bytes),
        "estimated_peak_phase": e.peak_phase,
        "estimated_peak_step": e.peak_step,
        "by_phase": by_phase(report, e),
        "by_term": {n: {"estimated_bytes": terms.get(n, 0), "measured_bytes": report.by_term.get(n, 0)}
                    for n in names},
    }
