"""Small pieces of the serving page: section headings with a line of text, the box of vLLM's log lines, the bar of
vLLM's whole cache."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QFontDatabase
from PySide6.QtWidgets import QLabel, QPlainTextEdit, QSizePolicy, QVBoxLayout, QWidget

from engine.results import Term, with_shares
from engine.serving import ServingFit
from engine.terms import TermName

#: the log box's height in lines of text (vLLM prints four to seven about memory)
LOG_LINES = 8


def section(title: str, text: str, parent: QWidget, heading: bool = False) -> QWidget:
    """A bold title (larger for the page heading) and an optional wrapped line of explanation."""
    box = QWidget(parent)
    layout = QVBoxLayout(box)
    layout.setContentsMargins(0, 8 if not heading else 0, 0, 0)
    layout.setSpacing(4)
    title_label = QLabel(title, box)
    font = title_label.font()
    font.setBold(True)
    font.setPointSizeF(font.pointSizeF() * (1.8 if heading else 1.2))
    title_label.setFont(font)
    layout.addWidget(title_label)
    if text:
        body = QLabel(text, box)
        body.setWordWrap(True)
        body.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        layout.addWidget(body)
    return box


def log_box(parent: QWidget) -> QPlainTextEdit:
    """A read-only, fixed-pitch box for the lines vLLM prints: its own words, kept in English to compare with a log
    (a terminal's text, not the interface's), wrapped at the box's width."""
    box = QPlainTextEdit(parent)
    box.setObjectName("vllmLog")
    box.setReadOnly(True)
    box.setFont(QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont))
    box.setLineWrapMode(QPlainTextEdit.LineWrapMode.WidgetWidth)
    box.setFixedHeight(round((LOG_LINES + 1) * box.fontMetrics().lineSpacing()))
    box.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Fixed)
    return box


def vllm_terms(fit: ServingFit) -> list[Term]:
    """The bar of everything vLLM allocates on one GPU: the fit's terms with the KV cache's whole pool."""
    pool = fit.startup.kv_cache_bytes
    return list(with_shares(
        Term(t.name, pool, t.formula, t.source, f"vLLM's pool: {pool:,} B") if t.name == TermName.KV_CACHE else t
        for t in fit.terms))
