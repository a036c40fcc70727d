"""Checks on controls and charts rather than texts: check-box indicators that cannot be told from their
background (WCAG 2.1 1.4.11, 3:1), sliders and plots squashed too small to use, charts that show nothing, and
pages that scroll sideways.

Sizes are in lines of the widget's own type (``QFontMetrics.height``), so they hold at every presentation scale:
a slider needs ``SLIDER_LINES`` lines of length, a plot's data area ``PLOT_LINES`` lines of height.
"""

from __future__ import annotations

from PySide6.QtCore import QPoint, QRect, Qt
from PySide6.QtGui import QFontMetrics
from PySide6.QtWidgets import (
    QCheckBox,
    QGraphicsView,
    QRadioButton,
    QScrollArea,
    QSlider,
    QStyle,
    QStyleOptionButton,
    QWidget,
)

from gui.look import wcag
from gui.visual_audit import pixels
from gui.visual_audit.boxes import Finding, Kind, canvas_of, clip_rect, describe
from gui.visual_audit.chart_texts import view_of
from gui.visual_audit.checks import Grab

SLIDER_LINES = 4.0
PLOT_LINES = 4.0
EMPTY_SHARE = 0.995  # a view whose pixels are this much one colour shows nothing
BLANK_SHARE = 0.35  # a diagram with a blank band this share of its height is mostly an empty box


def _on_canvas(widget: QWidget, rect: QRect) -> QRect:
    canvas = canvas_of(widget)
    return rect.translated(widget.mapTo(canvas, QPoint(0, 0))).intersected(
        clip_rect(widget, canvas).toAlignedRect())


def indicators(window: QWidget, grab: Grab) -> list[Finding]:
    """Check boxes and radio buttons whose indicator stands out from the colour around it by less than 3:1."""
    found: list[Finding] = []
    for button in window.findChildren(QCheckBox) + window.findChildren(QRadioButton):
        if not button.isVisible() or not button.isEnabled():
            continue
        option = QStyleOptionButton()
        option.initFrom(button)
        element = (QStyle.SubElement.SE_CheckBoxIndicator if isinstance(button, QCheckBox)
                   else QStyle.SubElement.SE_RadioButtonIndicator)
        indicator = _on_canvas(button, button.style().subElementRect(element, option, button))
        canvas = grab(canvas_of(button))
        around = pixels.dominant(pixels.region(canvas, _on_canvas(button, button.rect())))
        colours = pixels.part_colours(pixels.region(canvas, indicator))
        if around is None or not colours:
            continue
        best = max(wcag.contrast_ratio(c, around) for c in colours)
        if best < wcag.UI_PART_MIN:
            state = "checked" if button.isChecked() else "unchecked"
            found.append(Finding(Kind.CONTRAST, describe(button, button.text()),
                                 f"{state} indicator {best:.2f}:1 against its background, needs 3:1"))
    return found


def sliders(window: QWidget) -> list[Finding]:
    """Sliders shorter than ``SLIDER_LINES`` lines of their type: a handle with nowhere to go."""
    found: list[Finding] = []
    for slider in window.findChildren(QSlider):
        if not slider.isVisible():
            continue
        length = slider.width() if slider.orientation() == Qt.Orientation.Horizontal else slider.height()
        need = SLIDER_LINES * QFontMetrics(slider.font()).height()
        if length < need:
            found.append(Finding(Kind.SQUASHED, describe(slider), f"{length} px long, needs {need:.0f}"))
    return found


def plots(window: QWidget) -> list[Finding]:
    """pyqtgraph plots whose data area is less than ``PLOT_LINES`` lines of type tall or wide."""
    found: list[Finding] = []
    for view in window.findChildren(QGraphicsView):
        if not view.isVisible() or view.scene() is None or not hasattr(view, "getPlotItem"):
            continue
        box = view.getPlotItem().getViewBox()
        if not box.isVisible():
            continue
        size = view_of(view).device(box).mapRect(box.boundingRect())
        need = PLOT_LINES * QFontMetrics(view.font()).height()
        if min(size.width(), size.height()) < need:
            found.append(Finding(Kind.SQUASHED, describe(view),
                                 f"data area {size.width():.0f}x{size.height():.0f} px, needs {need:.0f} each way"))
    return found


def empty_views(window: QWidget, grab: Grab) -> list[Finding]:
    """Graphics views (charts, diagrams) that draw nothing (their pixels all one colour), and diagrams (views that
    are not pyqtgraph plots) with a blank band across them more than ``BLANK_SHARE`` of their height: a drawing
    fitted into a view of another shape, leaving an empty box where a screen's worth of it should be."""
    found: list[Finding] = []
    for view in window.findChildren(QGraphicsView):
        if not view.isVisible() or view.scene() is None or view.width() < 8 or view.height() < 8:
            continue
        rect = _on_canvas(view.viewport(), view.viewport().rect())
        area = grab(canvas_of(view))[rect.top():rect.bottom() + 1, rect.left():rect.right() + 1]
        flat = area.reshape(-1, 3)
        counts = pixels.colour_counts(flat)
        if counts and counts[0][1] / len(flat) >= EMPTY_SHARE:
            found.append(Finding(Kind.EMPTY, describe(view), f"{len(flat)} px, all one colour"))
        elif counts and not hasattr(view, "getPlotItem"):
            band = _longest_run((area == area[:, :1]).all(axis=(1, 2)).tolist()) / len(area)
            if band > BLANK_SHARE:
                found.append(Finding(Kind.EMPTY, describe(view), f"a blank band {band:.0%} of its height"))
    return found


def _longest_run(flags: list[bool]) -> int:
    """The length of the longest run of ``True``."""
    best = run = 0
    for flag in flags:
        run = run + 1 if flag else 0
        best = max(best, run)
    return best


def sideways(window: QWidget) -> list[Finding]:
    """Scroll areas (pages, columns) that scroll sideways: their content is wider than the window gives them."""
    found: list[Finding] = []
    for area in window.findChildren(QScrollArea):
        bar = area.horizontalScrollBar()
        if area.isVisible() and bar.isVisible() and bar.maximum() > 0:
            content = area.widget()
            width = content.width() if content is not None else 0
            found.append(Finding(Kind.SIDEWAYS, describe(content or area),
                                 f"content {width} px wide in {area.viewport().width()} px"))
    return found
