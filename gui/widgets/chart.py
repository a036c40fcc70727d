"""The set-up every chart shares: a pyqtgraph plot to read, not to explore, drawn in the theme's colours.

``Chart`` is the base of the app's plots: on the page's own background, held still (``hold_still``: no context
menu, no mouse pan or zoom, no auto-range button; a chart shows what the engine computed, and a dragged axis would
only hide it), and drawn again on a palette change (``gui.look.follows_palette``). A widget that holds a plot
instead of being one holds it still the same way. The axis helpers (``nice_ceiling``, ``cache_axes``,
``tick_room``) keep a drag cheap to repaint and tall glyphs inside their axis.
"""

from __future__ import annotations

import math
from typing import Any

import pyqtgraph as pg
from PySide6.QtWidgets import QGraphicsItem, QWidget

from gui.look.follows_palette import FollowsPalette


def hold_still(plot: pg.PlotWidget | pg.PlotItem) -> None:
    """No context menu, no mouse pan or zoom, no auto-range button."""
    plot.setMenuEnabled(False)
    plot.setMouseEnabled(x=False, y=False)
    plot.hideButtons()


class Chart(FollowsPalette, pg.PlotWidget):  # type: ignore[misc]
    """A ``pg.PlotWidget`` on the page's background, held still, following the palette (``palette_changed``;
    call ``follow_palette`` last in ``__init__``). ``options`` go to ``PlotWidget`` (``axisItems``...)."""

    def __init__(self, parent: QWidget | None = None, **options: Any) -> None:
        # enableMenu=False: its view box never builds the context menu it would never show (two forms of axis
        # controls, a few milliseconds a chart at start-up)
        super().__init__(parent, background=None, enableMenu=False, **options)  # type: ignore[call-arg]
        hold_still(self)


def nice_ceiling(x: float) -> float:
    """The next 1, 2, 2.5, 5 x 10^k at or above ``x``: axis ranges that stay put while a value moves a
    little, so pyqtgraph can keep its cached axis drawings (a drag then repaints only the data)."""
    if x <= 0:
        return 1.0
    scale = 10.0 ** math.floor(math.log10(x))
    return next(m * scale for m in (1, 1.25, 1.5, 2, 2.5, 3, 4, 5, 6, 8, 10) if m * scale >= x)


def cache_axes(plot: pg.PlotItem) -> None:
    """Draw each axis from a pixmap cache until its range or size changes."""
    for name in ("left", "bottom"):
        plot.getAxis(name).setCacheMode(QGraphicsItem.CacheMode.DeviceCoordinateCache)


def tick_room(plot: pg.PlotItem, line_height: int) -> None:
    """Give the bottom axis a whole line of height for its labels: pyqtgraph sizes it for 80% of their height, so
    tall glyphs (Chinese) lose their last pixels, at the edge of the view or of the axis' cached drawing."""
    plot.getAxis("bottom").setStyle(autoExpandTextSpace=False, tickTextHeight=line_height)
