"""The key to the heat maps: swatches for positive, negative and masked (−∞) cells, and the reading
convention of the query × key matrices (rows are queries, columns are keys), shown only under those: under the
token matrices (X, Q, K, V, the output) rows are tokens and columns their dimensions.

Signals: none.
"""

from __future__ import annotations

from PySide6.QtWidgets import QHBoxLayout, QLabel, QWidget

from gui.look.follows_palette import FollowsPalette
from gui.look.palette import colors_for
from gui.widgets.heat_colors import heat_colors


class HeatLegend(FollowsPalette, QWidget):
    """One row: three colour swatches and the convention."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.swatches = [QLabel(self) for _ in range(3)]
        self.names = [QLabel(t, self) for t in (self.tr("positive"), self.tr("negative"), self.tr("masked (−∞)"))]
        self.convention = QLabel(self.tr("Rows are queries, columns are keys."), self)
        layout = QHBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        for swatch, name in zip(self.swatches, self.names, strict=True):
            swatch.setFixedSize(14, 14)
            layout.addWidget(swatch)
            layout.addWidget(name)
            layout.addSpacing(8)
        layout.addStretch(1)
        layout.addWidget(self.convention)
        self._paint()
        self.follow_palette()

    def show_convention(self, on: bool) -> None:
        """Show the rows-and-columns convention (for a query × key matrix) or hide it."""
        self.convention.setVisible(on)

    def _paint(self) -> None:
        hc = heat_colors(colors_for(self))
        for swatch, colour in zip(self.swatches, (hc.positive, hc.negative, hc.masked), strict=True):
            swatch.setStyleSheet(f"background: {colour}; border: 1px solid palette(mid);")

    def palette_changed(self) -> None:
        self._paint()
