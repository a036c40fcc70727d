"""A widget that draws in the theme's colours, and draws again when the palette changes: the one handler.

Charts, diagrams and coloured texts take their colours from ``gui.look.palette.colors_for(widget)``, which reads
the widget's current palette; when the theme changes (light, dark, high contrast, presentation mode), Qt sends
each widget a ``QEvent.PaletteChange`` and it must draw again. ``FollowsPalette`` is that handler, written once::

    class BlockMap(FollowsPalette, QWidget):       # the mixin first, then the Qt class
        def __init__(self, parent=None):
            super().__init__(parent)
            ...                                    # build what palette_changed redraws
            self.follow_palette()                  # last: from now on a palette change calls palette_changed

        def palette_changed(self) -> None:
            self._colors = colors_for(self)
            self.update()

Qt sends a palette change while the Qt base class is still being constructed, before the widget's own members
exist: nothing is redrawn until ``follow_palette`` (so no widget needs ``hasattr`` guards for that).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import QEvent
from PySide6.QtWidgets import QWidget

if TYPE_CHECKING:  # a plain mixin at run time (Shiboken takes one Qt base); typed as the widget it is mixed into
    _Widget = QWidget
else:
    _Widget = object


class FollowsPalette(_Widget):
    """Mixed into a widget (before its Qt class): ``palette_changed`` runs on each palette change once
    ``follow_palette`` has been called."""

    _follows = False

    def follow_palette(self) -> None:
        """Start redrawing on palette changes: call it last in ``__init__``, once there is something to draw."""
        self._follows = True

    def changeEvent(self, event: QEvent) -> None:
        super().changeEvent(event)
        if self._follows and event.type() == QEvent.Type.PaletteChange:
            self.palette_changed()

    def palette_changed(self) -> None:
        """Draw again in the new palette's colours (by default: repaint)."""
        self.update()
