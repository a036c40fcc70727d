"""The breakdown chart: stacking, labels, hover lookup, tooltip text, and an image-approval test.

The approved image (tests/gui/widgets/approved/breakdown_chart.png) is compared pixel by pixel with a small
tolerance (anti-aliasing may differ by a shade between machines). To re-approve after an intended change, delete
it and run the test once: it writes the new rendering and fails, asking for a look before committing it.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from PySide6.QtGui import QImage
from PySide6.QtWidgets import QApplication
from pytestqt.qtbot import QtBot

from engine.results import Term
from engine.units import GB, Unit
from gui.look.theme import ThemeManager
from gui.widgets.breakdown_chart import BreakdownChart, Row
from tests.gui.widgets.axis_labels import label_calls

APPROVED = Path(__file__).parent / "approved" / "breakdown_chart.png"


def _terms(*gbs: float) -> list[Term]:
    names = ("weights", "gradients", "optimizer_states", "activations")
    total = sum(gbs)
    return [
        Term(n, int(g * GB), f"{n} formula", f"{n} source", share=g / total)
        for n, g in zip(names, gbs, strict=False)
    ]


@pytest.fixture
def chart(qtbot: QtBot, theme: ThemeManager) -> BreakdownChart:
    c = BreakdownChart()
    qtbot.addWidget(c)
    c.resize(640, 200)
    rows = [Row("Full", _terms(13.5, 13.5, 81, 25.7), highlight=True), Row("LoRA", _terms(13.6, 0.2, 0.3, 26.7))]
    c.show_rows(rows, 80 * GB, Unit.GB)
    return c


def test_segments_stack_and_hover_finds_them(chart: BreakdownChart) -> None:
    row, term = chart.segment_at(20.0, 2.0) or (None, None)
    assert row is not None
    assert row.label == "Full"
    assert term is not None
    assert term.name == "gradients"
    hit = chart.segment_at(20.0, 1.0)
    assert hit is not None
    assert hit[1].name == "activations"
    assert chart.segment_at(500.0, 2.0) is None
    assert chart.segment_at(20.0, 1.5) is None  # between the bars


def test_tooltip_names_bytes_share_formula_source(chart: BreakdownChart) -> None:
    row, term = chart.segment_at(50.0, 2.0) or (None, None)
    assert row is not None
    assert term is not None
    text = chart.tooltip_for(row, term)
    for needle in ("Optimizer states", "81.00 GB", "60.6%", "optimizer_states formula", "optimizer_states source"):
        assert needle in text


def test_labels_only_where_they_fit(chart: BreakdownChart) -> None:
    texts = [label.toPlainText().split("\n")[0] for label in chart._labels if label.isVisible()]
    assert "Optimizer states" in texts  # 81 GB: wide
    assert texts.count("Activations") == 2
    assert "Gradients" not in texts or len(texts) >= 5  # 0.2 GB (LoRA) never, 13.5 GB (Full) only if wide enough
    chart.resize(1600, 200)  # wider: every segment of 7% or more gets its label
    chart.show()
    QApplication.processEvents()
    texts = sorted(label.toPlainText().split("\n")[0] for label in chart._labels if label.isVisible())
    assert texts == ["Activations", "Activations", "Gradients", "Optimizer states", "Weights", "Weights"]


def _pixels(image: QImage) -> np.ndarray:
    image = image.convertToFormat(QImage.Format.Format_RGB32)
    ptr = image.constBits()
    rows = np.frombuffer(ptr, dtype=np.uint8, count=image.sizeInBytes()).reshape(image.height(), -1)
    return rows[:, : image.width() * 4]


def test_image_matches_the_approved_rendering(chart: BreakdownChart) -> None:
    image = chart.grab().toImage()
    if not APPROVED.exists():
        APPROVED.parent.mkdir(parents=True, exist_ok=True)
        image.save(str(APPROVED))
        pytest.fail(f"no approved image: wrote {APPROVED}; look at it, then commit it")
    approved = QImage(str(APPROVED))
    assert (image.width(), image.height()) == (approved.width(), approved.height())
    diff = np.abs(_pixels(image).astype(int) - _pixels(approved).astype(int))
    assert diff.mean() < 2.0
    assert (diff.max(axis=1) > 0).mean() <= 1.0  # rows may differ in anti-aliasing only
    assert (diff > 96).mean() < 0.01


def test_the_axis_is_labelled_again_only_when_the_unit_changes(chart: BreakdownChart,
                                                               monkeypatch: pytest.MonkeyPatch) -> None:
    """A new label makes pyqtgraph draw the axis from scratch: on every frame of a drag that was most of its cost."""
    axis = chart.getPlotItem().getAxis("bottom")
    assert axis.labelText == "GB"
    labels = label_calls(axis, monkeypatch)
    for gb in (13.5, 14.0, 14.5):
        chart.show_rows([Row("Full", _terms(gb, 13.5, 81))], 80 * GB, Unit.GB)
    assert labels == []
    chart.show_rows([Row("Full", _terms(13.5, 13.5, 81))], 80 * GB, Unit.GIB)
    assert labels == ["GiB"]
    assert axis.labelText == "GiB"
