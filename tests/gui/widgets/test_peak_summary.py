"""gui.widgets.peak_summary: the device total, the three levels and the verdict, as the engine says."""

from __future__ import annotations

import pytest
from pytestqt.qtbot import QtBot

from engine.catalog import get_gpu, get_model
from engine.specs import Method, TrainingSetup
from engine.training import estimate
from engine.units import Unit, format_bytes
from gui.widgets.peak_summary import PeakSummary

M = get_model("llama-2-7b")


@pytest.fixture
def summary(qtbot: QtBot) -> PeakSummary:
    s = PeakSummary()
    qtbot.addWidget(s)
    return s


def test_levels_and_a_verdict_that_does_not_fit(summary: PeakSummary) -> None:
    e = estimate(M, TrainingSetup(), get_gpu("rtx-4090"))
    summary.show_estimate(e, Unit.GIB)
    assert summary.big.text() == format_bytes(e.device_bytes, Unit.GIB, 1)
    assert summary.allocated.text() == format_bytes(e.peak_allocated_bytes, Unit.GIB)
    assert summary.reserved.text() == format_bytes(e.reserved_bytes, Unit.GIB)
    assert summary.device.text() == format_bytes(e.device_bytes, Unit.GIB)
    short = format_bytes(-e.headroom_bytes, Unit.GIB)
    assert summary.verdict.text() == f"Does not fit on RTX 4090 24 GB: short by {short}"
    assert summary.caption.text().startswith("per GPU, at the peak: ")


def test_a_verdict_that_fits(summary: PeakSummary) -> None:
    e = estimate(M, TrainingSetup(method=Method.QLORA, seq_len=512), get_gpu("h200"))
    summary.show_estimate(e, Unit.GB)
    assert summary.verdict.text().startswith("Fits on H200 141 GB with ")
