"""Colours, defined once, for pages and pyqtgraph charts, in a light and a dark variant.

A chart asks ``colors_for(widget)`` and gets the variant matching the widget's current Qt palette, so it
follows the theme without knowing how the theme was chosen. Term names are the engine's
(``engine.results.Term.name``): weights, gradients, optimizer_states, activations, logits,
sharding_buffers, temporaries, plus kv_cache and cuda_context.

Hues are the Okabe-Ito colour-blind-safe set, darkened for white backgrounds and lightened for dark ones so
that each keeps a contrast of at least 3:1 against its background (checked in tests/gui/test_palette.py).

Presentation mode (``gui.presentation``) uses a third set, ``HIGH_CONTRAST``: white ink on black, the dark
theme's term hues, and chart lines twice as thick (``Colors.pen``). Its window colour, pure black, is what
``colors_for`` recognises it by.
"""

from __future__ import annotations

from dataclasses import dataclass

from PySide6.QtGui import QColor, QPalette
from PySide6.QtWidgets import QWidget

from engine.training.result import TERM_ORDER

#: the engine's training terms, in its order, then serving's KV cache and the two device-level overheads
TERMS = (*TERM_ORDER, "kv_cache", "allocator_reserve", "cuda_context")

_LIGHT_TERMS = (
    "#0b62a4",
    "#c25400",
    "#007a5a",
    "#b5457f",
    "#6a3d9a",
    "#0a7f8f",
    "#8a6d00",
    "#a33b20",
    "#7b8794",
    "#5f6b7a",
)
_DARK_TERMS = (
    "#56b4e9",
    "#f0a050",
    "#2ec99a",
    "#e98ab8",
    "#b39ddb",
    "#4fd1e0",
    "#e6c440",
    "#f08a6a",
    "#aab4c0",
    "#8793a2",
)


@dataclass(frozen=True, slots=True)
class Colors:
    """One theme's colours: chart background and ink, grid, status colours and one colour per term."""

    dark: bool
    background: str
    foreground: str
    muted: str
    grid: str
    fits: str
    over: str
    limit: str
    terms: dict[str, str]
    line_scale: float = 1.0

    def pen(self, width: float) -> float:
        """A chart line's width in this set (thicker in presentation mode)."""
        return width * self.line_scale

    def term(self, name: str) -> str:
        """The colour of a memory term (a neutral grey for a name not in ``TERMS``)."""
        return self.terms.get(name, self.muted)


LIGHT = Colors(
    dark=False,
    background="#ffffff",
    foreground="#1d2330",
    muted="#5f6b7a",
    grid="#d8dde5",
    fits="#1a7f37",
    over="#c62828",
    limit="#1d2330",
    terms=dict(zip(TERMS, _LIGHT_TERMS, strict=True)),
)
DARK = Colors(
    dark=True,
    background="#1e2128",
    foreground="#e6e9ef",
    muted="#9aa7b5",
    grid="#3a404c",
    fits="#4cc38a",
    over="#ff6b6b",
    limit="#e6e9ef",
    terms=dict(zip(TERMS, _DARK_TERMS, strict=True)),
)

HIGH_CONTRAST = Colors(
    dark=True,
    background="#000000",
    foreground="#ffffff",
    muted="#d0d6de",
    grid="#707780",
    fits="#5ef08c",
    over="#ff6b6b",
    limit="#ffffff",
    terms=dict(zip(TERMS, _DARK_TERMS, strict=True)),
    line_scale=2.0,
)


def colors(dark: bool) -> Colors:
    """The light or the dark set."""
    return DARK if dark else LIGHT


def is_dark(palette: QPalette) -> bool:
    """Whether a Qt palette is a dark one (its window colour is darker than mid-grey)."""
    return palette.color(QPalette.ColorRole.Window).lightness() < 128


def colors_for(widget: QWidget) -> Colors:
    """The colours matching ``widget``'s current palette (re-ask on ``QEvent.PaletteChange``)."""
    if widget.palette().color(QPalette.ColorRole.Window) == QColor(HIGH_CONTRAST.background):
        return HIGH_CONTRAST
    return colors(is_dark(widget.palette()))


def qcolor(hex_code: str) -> QColor:
    """A ``QColor`` from ``#rrggbb``."""
    return QColor(hex_code)
