"""``audit(window)``: every check over one shown window, as a list of ``Finding``s (empty when all is well)."""

from __future__ import annotations

from collections.abc import Iterable

from PySide6.QtGui import QFontInfo
from PySide6.QtWidgets import QApplication, QWidget

from gui.visual_audit import checks, controls, pixels, words
from gui.visual_audit.boxes import Finding, Kind
from gui.visual_audit.chart_texts import chart_texts
from gui.visual_audit.widget_texts import widget_texts


def catalog_names() -> list[str]:
    """The names of the catalog's models and GPUs (their words may show untranslated in any language)."""
    from engine.catalog import gpus, models

    return [m.name for m in models()] + [g.name for g in gpus()]


def body_px(window: QWidget) -> float:
    """The body text's size in pixels: the application font's (what pages derive their type from)."""
    return float(QFontInfo(QApplication.font()).pixelSize())


class _Grabs:
    """Each canvas grabbed once per audit, as an RGB array."""

    def __init__(self) -> None:
        self._done: dict[int, tuple[QWidget, pixels.Pixels]] = {}

    def __call__(self, canvas: object) -> pixels.Pixels:
        assert isinstance(canvas, QWidget)
        if id(canvas) not in self._done:
            self._done[id(canvas)] = (canvas, pixels.to_array(canvas.grab()))
        return self._done[id(canvas)][1]


def audit(window: QWidget, language: str = "en", names: Iterable[str] | None = None) -> list[Finding]:
    """Every finding in ``window`` as it is now (shown, laid out); English is looked for when ``language`` is
    ``zh_TW``, allowing the words of ``names`` (default: the catalog's models and GPUs)."""
    texts = widget_texts(window)
    chart, strokes, bare = chart_texts(window)
    boxes = texts + chart
    grab = _Grabs()
    found = checks.clipped(boxes) + checks.overlaps(boxes) + checks.crossings(chart, strokes)
    found += checks.contrast(boxes, grab) + controls.indicators(window, grab)
    found += controls.sliders(window) + controls.plots(window) + controls.empty_views(window, grab)
    found += controls.sideways(window) + checks.small(boxes, body_px(window))
    found += [Finding(Kind.EMPTY, axis, "ticks without a single label") for axis in bare]
    if language == "zh_TW":
        found += words.untranslated(boxes, catalog_names() if names is None else names)
    return list(dict.fromkeys(found))
