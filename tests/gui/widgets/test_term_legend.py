"""gui.widgets.term_legend: every term with its colour and bytes; a wrapped legend breaks between entries only."""

from __future__ import annotations

from pytestqt.qtbot import QtBot

from engine.units import Unit
from gui.widgets.term_legend import TermLegend, unbroken


def test_an_entry_never_breaks_inside(qtbot: QtBot) -> None:
    """Issue 17: in presentation mode the legend wrapped inside an entry ("CUDA / context 0.6 GB")."""
    legend = TermLegend()
    qtbot.addWidget(legend)
    legend.show_amounts([("cuda_context", 600_000_000), ("allocator_reserve", 8_400_000_000)], Unit.GB)
    entries = legend.text().split("&nbsp;&nbsp; ")
    assert len(entries) == 2
    for entry in entries:
        assert " " not in entry.replace('<span style="color:', "").replace("</span>", "")
        assert "\u2060" in entry  # no break between characters either


def test_a_chinese_entry_does_not_break_between_its_characters(qtbot: QtBot) -> None:
    """Chinese breaks a line between any two characters ("CUDA 執行環 / 境 0.6 GB" at 150%)."""
    from PySide6.QtGui import QTextDocument

    entries = ["■ 權重 13.5 GB", "■ 梯度 27.0 GB", "■ 優化器狀態 80.9 GB", "■ 配置器保留量 8.4 GB",
               "■ CUDA 執行環境 0.6 GB"]
    doc = QTextDocument()
    doc.setHtml("&nbsp;&nbsp; ".join(unbroken(e) for e in entries))
    doc.setTextWidth(300)
    doc.size()
    layout = doc.begin().layout()
    text = doc.begin().text()
    lines = [text[layout.lineAt(i).textStart():layout.lineAt(i).textStart() + layout.lineAt(i).textLength()]
             for i in range(layout.lineCount())]
    assert len(lines) > 1
    n = len(entries)
    runs = {" ".join(" ".join(entries[a:b]).split()) for a in range(n) for b in range(a + 1, n + 1)}
    for line in lines:  # each line is whole entries
        assert " ".join(line.replace("\u2060", "").split()) in runs
