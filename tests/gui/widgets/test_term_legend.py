"""gui.widgets.term_legend: every term with its colour and bytes; a wrapped legend breaks between entries only."""

from __future__ import annotations

from pytestqt.qtbot import QtBot

from engine.units import Unit
from gui.widgets.term_legend import TermLegend


def test_an_entry_never_breaks_inside(qtbot: QtBot) -> None:
    """Issue 17: in presentation mode the legend wrapped inside an entry ("CUDA / context 0.6 GB")."""
    legend = TermLegend()
    qtbot.addWidget(legend)
    legend.show_amounts([("cuda_context", 600_000_000), ("allocator_reserve", 8_400_000_000)], Unit.GB)
    entries = legend.text().split("&nbsp;&nbsp; ")
    assert len(entries) == 2
    for entry in entries:
        assert " " not in entry.replace('<span style="color:', "").replace("</span>", "")
