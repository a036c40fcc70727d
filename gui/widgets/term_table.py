"""A small table of memory terms at a peak: the prediction's bytes and, beside them, a measurement's.

Each row is a term (its colour swatch and name, as in every legend) with its bytes in one or two columns; the
numbers are the engine's (``engine.snapshot.compare``'s ``by_term``), formatted here. A term with no bytes in
any column is left out; a column a term has no entry in shows a dash.
"""

from __future__ import annotations

from collections.abc import Sequence
from html import escape

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLabel, QWidget

from engine.units import Unit, format_bytes
from gui.look.palette import colors_for
from gui.text.words import term_title

#: one row: the term's name and its bytes in each column (None: no entry)
Row = tuple[str, Sequence[int | None]]


class TermTable(QLabel):
    """Rich-text table; the swatch colours follow the theme (re-shown by the page on each recompute).

    Signals: none; call :meth:`show_rows`.
    """

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setTextFormat(Qt.TextFormat.RichText)
        self._cells: list[list[str]] = []

    def show_rows(self, headers: Sequence[str], rows: Sequence[Row], unit: Unit) -> None:
        c = colors_for(self)
        head = "".join(f'<th align="right">&nbsp;&nbsp;{escape(h)}</th>' for h in headers)
        body = []
        self._cells = []
        for name, values in rows:
            if not any(values):
                continue
            cells = ["—" if v is None else format_bytes(v, unit, 1) for v in values]
            self._cells.append([term_title(name), *cells])
            numbers = "".join(f'<td align="right">&nbsp;&nbsp;{v}</td>' for v in cells)
            body.append(f'<tr><td><span style="color:{c.term(name)}">■</span>&nbsp;{escape(term_title(name))}</td>'
                        f"{numbers}</tr>")
        self.setText(f'<table cellspacing="0" cellpadding="1"><tr><th></th>{head}</tr>{"".join(body)}</table>')

    def cells(self) -> list[list[str]]:
        """The rows as shown: the term's title, then each column's text (for tests and exports)."""
        return [list(row) for row in self._cells]
