"""A one-line legend under a breakdown bar: a colour swatch, the term's name and its bytes, for every term."""

from __future__ import annotations

from collections.abc import Sequence

from PySide6.QtWidgets import QLabel, QWidget

from engine.results import Term
from engine.units import Unit, format_bytes
from gui.palette import colors_for
from gui.words import term_title


class TermLegend(QLabel):
    """Rich-text legend; the swatch colours follow the theme (re-shown by the page on each recompute).

    Signals: none; call :meth:`show_terms`.
    """

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWordWrap(True)

    def show_terms(self, terms: Sequence[Term], unit: Unit) -> None:
        c = colors_for(self)
        parts = [
            f'<span style="color:{c.term(t.name)}">■</span>&nbsp;{term_title(t.name)}&nbsp;'
            f"<b>{format_bytes(t.bytes, unit, 1)}</b>"
            for t in terms
            if t.bytes > 0
        ]
        self.setText("&nbsp;&nbsp; ".join(parts))
