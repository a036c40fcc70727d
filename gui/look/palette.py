"""Colours, defined once, for pages and pyqtgraph charts, in a light and a dark variant.

A chart asks ``colors_for(widget)`` and gets the variant matching the widget's current Qt palette, so it
follows the theme without knowing how the theme was chosen. Terms are keyed by the engine's names
(``engine.terms.TermName``), never by position; ``tests/test_terms.py`` fails naming a term without a colour
in any of the three sets.

Hues are the Okabe-Ito colour-blind-safe set, darkened for white backgrounds and lightened for dark ones so
that each keeps a contrast of at least 3:1 against its background (checked in tests/gui/look/test_palette.py).

Presentation mode (``gui.shell.presentation``) uses a third set, ``HIGH_CONTRAST``: white ink on black, the dark
theme's term hues, and chart lines twice as thick (``Colors.pen``). Its window colour, pure black, is what
``colors_for`` recognises it by.
"""

from __future__ import annotations

from dataclasses import dataclass

from PySide6.QtGui import QColor, QPalette
from PySide6.QtWidgets import QWidget

from engine.terms import TermName as T
from gui.look.wcag import contrast_ratio

#: one colour per memory term (``engine.terms.TermName``), light theme: dark enough for white backgrounds
_LIGHT_TERMS: dict[str, str] = {
    T.WEIGHTS: "#0b62a4",
    T.GRADIENTS: "#c25400",
    T.OPTIMIZER_STATES: "#007a5a",
    T.ACTIVATIONS: "#b5457f",
    T.LOGITS: "#6a3d9a",
    T.SHARDING_BUFFERS: "#0a7f8f",
    T.TEMPORARIES: "#8a6d00",
    T.PARALLEL_BUFFERS: "#3f6e2a",
    T.KV_CACHE: "#a33b20",
    T.ALLOCATOR_RESERVE: "#7b8794",
    T.CUDA_CONTEXT: "#5f6b7a",
    T.ACTIVATION_WORKSPACE: "#b5457f",  # serving's activations: the training activations' hue
    T.NON_TORCH: "#3f4a57",  # outside PyTorch (it holds the CUDA context): a darker grey than the context's
    T.CUDA_GRAPHS: "#6a3d9a",  # serving only: the logits' violet (no training term on the serving page)
    T.FORWARD: "#b5457f",  # a frozen model's forward pass: activations, kept for no backward
    # host RAM: the checkpoint in RAM is the weights' hue, offloaded states the optimizer states', pinned buffers
    # the temporaries', the runtime the CUDA context's grey; the dataset and its workers get their own
    T.MODEL_LOADING: "#0b62a4",
    T.DATASET: "#a0522d",
    T.DATALOADER_WORKERS: "#0a7f8f",
    T.PINNED_BUFFERS: "#8a6d00",
    T.OFFLOADED_STATES: "#007a5a",
    T.RUNTIME: "#5f6b7a",
}
#: the same terms for dark backgrounds (and presentation mode)
_DARK_TERMS: dict[str, str] = {
    T.WEIGHTS: "#56b4e9",
    T.GRADIENTS: "#f0a050",
    T.OPTIMIZER_STATES: "#2ec99a",
    T.ACTIVATIONS: "#e98ab8",
    T.LOGITS: "#b39ddb",
    T.SHARDING_BUFFERS: "#4fd1e0",
    T.TEMPORARIES: "#e6c440",
    T.PARALLEL_BUFFERS: "#9ccc65",
    T.KV_CACHE: "#f08a6a",
    T.ALLOCATOR_RESERVE: "#aab4c0",
    T.CUDA_CONTEXT: "#8793a2",
    T.ACTIVATION_WORKSPACE: "#e98ab8",
    T.NON_TORCH: "#6d7a8b",
    T.CUDA_GRAPHS: "#b39ddb",
    T.FORWARD: "#e98ab8",
    T.MODEL_LOADING: "#56b4e9",
    T.DATASET: "#e39a6d",
    T.DATALOADER_WORKERS: "#4fd1e0",
    T.PINNED_BUFFERS: "#e6c440",
    T.OFFLOADED_STATES: "#2ec99a",
    T.RUNTIME: "#8793a2",
}


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
        """The colour of a memory term (a neutral grey for a name without one)."""
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
    terms=dict(_LIGHT_TERMS),
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
    terms=dict(_DARK_TERMS),
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
    terms=dict(_DARK_TERMS),
    line_scale=2.0,
)


#: a segmented toggle's checked button, flat in the highlight colour with its own text colour: left to Fusion, the
#: highlight is drawn as a lighter gradient and white text on it falls to about 3.5:1 (a border makes Qt draw the
#: whole button from this style sheet)
CHECKED_BUTTON = ("QPushButton:checked { background: palette(highlight); color: palette(highlighted-text); "
                  "border: 1px solid palette(highlight); border-radius: 3px; }")


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


def _rgb(colour: QColor) -> tuple[int, int, int]:
    return colour.red(), colour.green(), colour.blue()


def ink_on(fill: str) -> str:
    """The text colour for a label drawn on ``fill``: near-black or white, whichever contrasts more (WCAG 2.1).
    White on the dark theme's light bar colours reads at about 2.2:1; near-black on them at 8:1 or more."""
    rgb, dark = _rgb(QColor(fill)), _rgb(QColor(LIGHT.foreground))
    return LIGHT.foreground if contrast_ratio(rgb, dark) >= contrast_ratio(rgb, (255, 255, 255)) else "#ffffff"


def qcolor(hex_code: str) -> QColor:
    """A ``QColor`` from ``#rrggbb``."""
    return QColor(hex_code)
