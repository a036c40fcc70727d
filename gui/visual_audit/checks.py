"""The rules: each takes the collected texts (and lines, and the grabbed pixels) and returns ``Finding``s.

Tolerances are in pixels and stated here: a text may exceed its room by ``TOLERANCE`` (font metrics round), two
texts may touch by ``TOUCH`` (a descender over the next line's ascent is normal typography), and a contrast is
measured only on texts with at least ``MIN_PIXELS`` visible. A text is too small under ``SMALL_SHARE`` of the body
text's size.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
from PySide6.QtCore import QRectF, Qt
from PySide6.QtGui import QBrush, QColor
from PySide6.QtWidgets import QAbstractGraphicsShapeItem, QGraphicsItem

from gui.look import wcag
from gui.visual_audit import pixels
from gui.visual_audit.boxes import (
    SYMBOL_ALPHA,
    TOLERANCE,
    TOLERANCE_DOWN,
    Finding,
    Kind,
    TextBox,
    is_symbol,
    parent_item,
)
from gui.visual_audit.chart_texts import Stroke

TOUCH = 2.0
MIN_PIXELS = 12
SMALL_SHARE = 0.75
Grab = Callable[[object], pixels.Pixels]  # the pixels of a canvas


def _sticks_out(rect: QRectF, clip: QRectF) -> tuple[float, float]:
    """How far ``rect`` sticks out of ``clip`` across and down (0 when inside)."""
    across = max(clip.left() - rect.left(), rect.right() - clip.right(), 0.0)
    down = max(clip.top() - rect.top(), rect.bottom() - clip.bottom(), 0.0)
    return across, down


def clipped(boxes: list[TextBox]) -> list[Finding]:
    """Texts that do not fit where they are drawn (the user's own text in an editor scrolls: exempt)."""
    found: list[Finding] = []
    for box in boxes:
        if box.user_data:
            continue
        across, down = _sticks_out(box.rect, box.clip)
        if across > TOLERANCE or down > TOLERANCE_DOWN:
            found.append(Finding(Kind.CLIPPED, box.owner,
                                 f"needs {box.rect.width():.0f}x{box.rect.height():.0f} px, cut by "
                                 f"{across:.0f} px across and {down:.0f} px down"))
    return found


def overlaps(boxes: list[TextBox]) -> list[Finding]:
    """Pairs of texts on one canvas whose visible parts cover each other by more than ``TOUCH`` both ways."""
    found: list[Finding] = []
    shown = sorted(((b.visible(), b) for b in boxes if not b.visible().isEmpty()), key=lambda p: p[0].left())
    for i, (ra, a) in enumerate(shown):
        for rb, b in shown[i + 1:]:
            if rb.left() >= ra.right():
                break
            if a.canvas is not b.canvas:
                continue
            common = ra.intersected(rb)
            if common.width() > TOUCH and common.height() > TOUCH:
                found.append(Finding(Kind.OVERLAP, a.owner,
                                     f"overlaps {b.owner} by {common.width():.0f}x{common.height():.0f} px"))
    return found


def crossings(boxes: list[TextBox], strokes: list[Stroke]) -> list[Finding]:
    """Chart and diagram texts that a line is drawn through (not counting a line under a patch the text sits on,
    nor the line a label belongs to)."""
    found: list[Finding] = []
    for stroke in strokes:
        area = stroke.outline.boundingRect()
        for box in boxes:
            if box.canvas is not stroke.canvas or box.group is not None:
                continue
            where = box.visible().intersected(stroke.clip)
            if where.isEmpty() or not area.intersects(where):
                continue
            if _is_own_label(box, stroke) or _covered(box, stroke) or not stroke.outline.intersects(where):
                continue
            found.append(Finding(Kind.CROSSED, box.owner, f"a line ({stroke.owner}) is drawn through it"))
    return found


def _is_patch(item: QGraphicsItem) -> bool:
    """An item that paints an opaque area: a filled shape, a pyqtgraph text with a fill, a legend with a brush."""
    brush: object
    if isinstance(item, QAbstractGraphicsShapeItem):
        brush = item.brush()
    else:
        fill = getattr(item, "fill", None)
        opts = getattr(item, "opts", None)
        brush = fill if isinstance(fill, QBrush) else opts.get("brush") if isinstance(opts, dict) else None
    return isinstance(brush, QBrush) and brush.style() == Qt.BrushStyle.SolidPattern and brush.color().alpha() == 255


def _covered(box: TextBox, stroke: Stroke) -> bool:
    """Whether an opaque patch stacked above the line lies under the whole text (a label on its own background)."""
    item = box.source
    if not isinstance(item, QGraphicsItem) or item.scene() is None:
        return False
    rect = item.sceneBoundingRect()
    inner = rect.adjusted(1, 1, -1, -1)
    order = Qt.SortOrder.DescendingOrder
    for other in item.scene().items(rect, Qt.ItemSelectionMode.IntersectsItemBoundingRect, order):
        if other is stroke.item:
            return False
        if other is not item and other.isVisible() and _is_patch(other) and other.sceneBoundingRect().contains(inner):
            return True
    return False


def _is_own_label(box: TextBox, stroke: Stroke) -> bool:
    """Whether the text is a label the line carries (an infinite line's label sits on the line)."""
    item = box.source
    while isinstance(item, QGraphicsItem):
        if item is stroke.item:
            return True
        item = parent_item(item)
    return False


def _rgb(colour: QColor) -> pixels.RGB:
    return colour.red(), colour.green(), colour.blue()


def _edge_of(declared: pixels.RGB, seen: pixels.RGB | None, background: pixels.RGB) -> bool:
    """Whether a declared ink is only the blended edge of the ink really drawn (``seen``), not an ink itself."""
    return seen is not None and pixels.blends_toward(declared, background, seen) and \
        not pixels.blends_toward(seen, background, declared)


def measure(box: TextBox, flat: pixels.Pixels, around: pixels.Pixels) -> tuple[float, float, pixels.RGB | None,
                                                                               pixels.RGB]:
    """The text's weakest contrast here against what it needs: ``(ratio, needed, ink, background)``. Each
    declared ink that is drawn is measured (words need 4.5:1 or 3:1 when large, symbols 3:1), unless it is only
    the blended edge of another ink (a style sheet's colour drawn instead of the palette's); a declared ink that the
    pixels show only blended (a thin glyph) still counts; with none drawn, the ink is read from the pixels.
    ``flat`` are the pixels of the text's rectangle, ``around`` a thin ring around it."""
    words_need = wcag.UI_PART_MIN if is_symbol(box.text) else wcag.text_minimum(box.pixel_size(), box.font.bold())
    pairs = [(_rgb(c), wcag.UI_PART_MIN if c.alpha() == SYMBOL_ALPHA else words_need) for c in box.inks]
    first = pixels.background(flat, around, [c for c, _ in pairs])
    assert first is not None
    seen = pixels.ink(flat, first)
    drawn = [(c, n) for c, n in pairs if pixels.shows(flat, c, first) and not _edge_of(c, seen, first)]
    background = pixels.background(flat, around, [c for c, _ in drawn]) or first
    faint = [(c, n) for c, n in pairs if float(np.linalg.norm(np.subtract(c, background))) < pixels.SAME]
    found = pixels.ink(flat, background)
    thin = [(c, n) for c, n in pairs if found is not None and pixels.blends_toward(found, background, c)]
    candidates = drawn or faint or thin or ([(found, words_need)] if found is not None else [])
    if not candidates:
        return 1.0, words_need, None, background
    ink, need = min(candidates, key=lambda p: wcag.contrast_ratio(p[0], background) / p[1])
    return wcag.contrast_ratio(ink, background), need, ink, background


def contrast(boxes: list[TextBox], grab: Grab) -> list[Finding]:
    """Texts whose ink stands out from the colour behind them by less than WCAG 2.1 asks (disabled controls are
    exempt, as WCAG exempts inactive components)."""
    found: list[Finding] = []
    for box in boxes:
        if not box.enabled:
            continue
        canvas, rect = grab(box.canvas), box.visible().toAlignedRect()
        flat = pixels.region(canvas, rect)
        if len(flat) < MIN_PIXELS:
            continue
        ratio, need, ink, background = measure(box, flat, pixels.ring(canvas, rect, box.clip.toAlignedRect()))
        if ratio < need - 0.005:
            found.append(Finding(Kind.CONTRAST, box.owner,
                                 f"{ratio:.2f}:1 ({_hex(ink)} on {_hex(background)}), needs {need:g}:1"))
    return found


def small(boxes: list[TextBox], body_px: float) -> list[Finding]:
    """Texts drawn smaller than ``SMALL_SHARE`` of the body text (``body_px``): a chart label or legend that did not
    grow with presentation mode's type, or is too small to read anywhere."""
    found: list[Finding] = []
    for box in boxes:
        size = box.pixel_size()
        if not box.user_data and size < SMALL_SHARE * body_px:
            found.append(Finding(Kind.SMALL, box.owner, f"{size:.0f} px type beside {body_px:.0f} px body text"))
    return found


def _hex(rgb: pixels.RGB | None) -> str:
    return "nothing" if rgb is None else "#{:02x}{:02x}{:02x}".format(*rgb)
