"""A legend of memory terms: a colour swatch, the term's name and its bytes, for every term; on one wrapped line
under a breakdown bar, or one term a line (``vertical``) in a side panel."""

from __future__ import annotations

import html
from collections.abc import Sequence

from PySide6.QtWidgets import QLabel, QWidget

from engine.results import Term
from engine.units import Unit, format_bytes
from gui.look.palette import colors_for
from gui.text.words import term_title

WORD_JOINER = "\u2060"  # no line break here (Chinese otherwise breaks between any two characters)


def unbroken(text: str) -> str:
    """Plain ``text`` (HTML-escaped) with no line break inside it: a wrapped legend breaks between its entries,
    never inside one ("CUDA / context", "CUDA 執行環 / 境")."""
    return WORD_JOINER.join("&nbsp;" if ch == " " else html.escape(ch) for ch in text)


class TermLegend(QLabel):
    """Rich-text legend; the swatch colours follow the theme (re-shown by the page on each recompute).

    Signals: none; call :meth:`show_terms` (or :meth:`show_amounts`).
    """

    def __init__(self, parent: QWidget | None = None, vertical: bool = False) -> None:
        super().__init__(parent)
        self.setWordWrap(True)
        self._separator = "<br>" if vertical else "&nbsp;&nbsp; "

    def show_terms(self, terms: Sequence[Term], unit: Unit) -> None:
        self.show_amounts([(t.name, t.bytes) for t in terms], unit)

    def show_amounts(self, amounts: Sequence[tuple[str, int]], unit: Unit) -> None:
        """Each (term name, bytes) above zero, in the order given."""
        c = colors_for(self)
        parts = [
            f'<span style="color:{c.term(name)}">■</span>&nbsp;{unbroken(term_title(name))}&nbsp;'
            f"<b>{unbroken(format_bytes(n_bytes, unit, 1))}</b>"
            for name, n_bytes in amounts
            if n_bytes > 0
        ]
        self.setText(self._separator.join(parts))
