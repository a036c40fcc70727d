"""Texts and lines drawn in graphics views: pyqtgraph charts (tick labels, axis labels, legends, text items,
infinite-line labels) and plain ``QGraphicsScene`` diagrams (box texts, arrow labels).

Every item is placed with ``QGraphicsItem.deviceTransform(view.viewportTransform())``, so a text that ignores the
view's scale lands where it is drawn. A text's clip is its view's viewport cut by every ancestor item that clips
its children (a pyqtgraph ``ViewBox`` does) and, for a text drawn on a filled box, by that box. Tick labels come
from ``AxisItem.generateDrawSpecs``, exactly as the axis lays them out before it paints them.
"""

from __future__ import annotations

from dataclasses import dataclass

from PySide6.QtCore import QPoint, QPointF, QRect, QRectF, Qt
from PySide6.QtGui import (
    QFont,
    QFontMetrics,
    QPainter,
    QPainterPath,
    QPainterPathStroker,
    QPen,
    QPicture,
    QTransform,
)
from PySide6.QtWidgets import (
    QAbstractGraphicsShapeItem,
    QGraphicsItem,
    QGraphicsLineItem,
    QGraphicsPathItem,
    QGraphicsSimpleTextItem,
    QGraphicsTextItem,
    QGraphicsView,
    QStyle,
    QWidget,
)

from gui.visual_audit.boxes import (
    TextBox,
    canvas_of,
    clip_rect,
    describe,
    document_inks,
    parent_item,
    smallest_font,
)


@dataclass(slots=True)
class Stroke:
    """A line drawn in a chart or diagram (an outline, in canvas pixels) and the area it can be seen in."""

    owner: str
    canvas: QWidget
    outline: QPainterPath
    clip: QRectF
    item: QGraphicsItem


@dataclass(slots=True)
class _View:
    view: QGraphicsView
    canvas: QWidget
    offset: QPointF  # the viewport's origin in canvas pixels
    clip: QRectF

    def device(self, item: QGraphicsItem) -> QTransform:
        return item.deviceTransform(self.view.viewportTransform()) * QTransform.fromTranslate(
            self.offset.x(), self.offset.y())

    def item_clip(self, item: QGraphicsItem) -> QRectF:
        clip = QRectF(self.clip)
        parent = parent_item(item)
        while parent is not None:
            if parent.flags() & QGraphicsItem.GraphicsItemFlag.ItemClipsChildrenToShape:
                clip = clip.intersected(self.device(parent).mapRect(parent.boundingRect()))
            parent = parent_item(parent)
        return clip


def document_extent(item: QGraphicsTextItem) -> QRectF:
    """The rectangle a text item's lines really cover (centred lines in a wide text width are narrower)."""
    doc = item.document()
    layout = doc.documentLayout()
    extent = QRectF()
    block = doc.begin()
    while block.isValid():
        origin = layout.blockBoundingRect(block).topLeft()
        text_layout = block.layout()
        for i in range(text_layout.lineCount()):
            line = text_layout.lineAt(i).naturalTextRect().translated(origin)
            extent = extent.united(line) if not extent.isNull() else line
        block = block.next()
    return extent if not extent.isNull() else item.boundingRect()


def _box_behind(item: QGraphicsItem, scene_rect: QRectF) -> QGraphicsItem | None:
    """A filled box under a text item whose centre it holds (the text is drawn on it and must fit it)."""
    centre = scene_rect.center()
    scene = item.scene()
    for other in scene.items(centre, Qt.ItemSelectionMode.IntersectsItemShape, Qt.SortOrder.DescendingOrder):
        if other is item or not other.isVisible() or not isinstance(other, QAbstractGraphicsShapeItem):
            continue
        if other.brush().style() != Qt.BrushStyle.NoBrush and other.brush().color().alpha() > 0:
            return other
    return None


def _text_item_box(v: _View, item: QGraphicsItem) -> TextBox | None:
    if isinstance(item, QGraphicsTextItem):
        text, local = item.toPlainText(), document_extent(item)
        inks = document_inks(item.document(), item.defaultTextColor())
        font = smallest_font(item.document(), item.font())
    elif isinstance(item, QGraphicsSimpleTextItem):
        text, local = item.text(), item.boundingRect()
        inks, font = (item.brush().color(),), item.font()
    else:
        return None
    if not text.strip():
        return None
    transform = v.device(item)
    rect = transform.mapRect(local)
    clip = v.item_clip(item)
    box = _box_behind(item, item.mapRectToScene(local)) if parent_item(item) is None else None
    if box is not None:
        clip = clip.intersected(v.device(box).mapRect(box.boundingRect()))
    scale = (abs(transform.m22()) + abs(transform.m11())) / 2 if not transform.isRotating() else 1.0
    shown = QFont(font)
    if font.pixelSize() > 0:
        shown.setPixelSize(max(1, round(font.pixelSize() * scale)))
    elif scale != 1.0:
        shown.setPointSizeF(font.pointSizeF() * scale)
    owner = f"{describe(v.view)} › {describe_item(item, text)}"
    return TextBox(text, owner, v.canvas, rect, clip, shown, inks, True, source=item)


def describe_item(item: QGraphicsItem, text: str) -> str:
    """A graphics item's class (and its parent's, for pyqtgraph's wrappers) and its text."""
    parent = parent_item(item)
    name = type(parent).__name__ + "." if parent is not None and type(parent).__module__.startswith("pyqtgraph") \
        else ""
    quote = " ".join(text.split())
    return f"{name}{type(item).__name__} '{quote[:48]}'"


def _axis_boxes(v: _View, axis: QGraphicsItem) -> tuple[list[TextBox], bool]:
    """An axis' tick labels where ``AxisItem.paint`` would put them, and whether it has ticks but no label at all
    (a scale nobody can read)."""
    if not axis.isVisible() or not axis.style.get("showValues", True):  # type: ignore[attr-defined]
        return [], False
    picture = QPicture()
    painter = QPainter(picture)
    try:
        font = axis.style["tickFont"]  # type: ignore[attr-defined]
        if font is not None:
            painter.setFont(font)
        specs = axis.generateDrawSpecs(painter)  # type: ignore[attr-defined]
        font = QFont(painter.font())
    finally:
        painter.end()
    if specs is None:
        return [], False
    metrics, transform = QFontMetrics(font), v.device(axis)
    ink = axis.textPen().color()  # type: ignore[attr-defined]
    clip = v.item_clip(axis)
    if axis.cacheMode() != QGraphicsItem.CacheMode.NoCache:  # drawn through a pixmap of its bounding rect
        clip = clip.intersected(transform.mapRect(axis.boundingRect()))
    boxes: list[TextBox] = []
    for rect, flags, text in specs[2]:
        if not text.strip():
            continue
        size = metrics.size(0, text)
        align = Qt.AlignmentFlag(int(flags) & 0xFF | int(flags) & 0x1E0)
        line = QStyle.alignedRect(Qt.LayoutDirection.LeftToRight, align, size, rect.toRect())
        tight = metrics.tightBoundingRect(text)  # the glyphs' own height: digits leave the line's descent empty
        drawn = QRect(line.left(), line.top() + metrics.ascent() + tight.top(), line.width(), tight.height())
        owner = f"{describe(v.view)} › {type(axis).__name__}({axis.orientation}) tick '{text}'"  # type: ignore[attr-defined]
        box = TextBox(text, owner, v.canvas, transform.mapRect(QRectF(drawn)), clip, font, (ink,), True, group=axis,
                      source=axis)
        if not box.visible().isEmpty():  # wholly outside: not drawn at all (a tick without its label)
            boxes.append(box)
    return boxes, bool(specs[1]) and not any(text.strip() for _, _, text in specs[2])


def _stroke(v: _View, item: QGraphicsItem) -> Stroke | None:
    """The outline of a line-like item: an infinite line, a curve's line (not its fill), an unfilled path."""
    path, pen = _line_of(item)
    if path is None or pen is None or pen.style() == Qt.PenStyle.NoPen or path.isEmpty():
        return None
    stroker = QPainterPathStroker()
    stroker.setWidth(max(pen.widthF(), 1.0))
    outline = stroker.createStroke(v.device(item).map(path))
    return Stroke(f"{describe(v.view)} › {type(item).__name__}", v.canvas, outline, v.item_clip(item), item)


def _line_of(item: QGraphicsItem) -> tuple[QPainterPath | None, QPen | None]:
    kind = type(item).__name__
    if kind == "InfiniteLine":
        left, right = item._endPoints  # type: ignore[attr-defined]
        path = QPainterPath(QPointF(left, 0))
        path.lineTo(QPointF(right, 0))
        return path, item.currentPen  # type: ignore[attr-defined]
    if kind == "PlotCurveItem":
        return item.getPath(), item.opts["pen"]  # type: ignore[attr-defined]
    if isinstance(item, QGraphicsLineItem):
        path = QPainterPath(item.line().p1())
        path.lineTo(item.line().p2())
        return path, item.pen()
    if isinstance(item, QGraphicsPathItem) and item.brush().style() == Qt.BrushStyle.NoBrush:
        return item.path(), item.pen()
    return None, None


def view_of(view: QGraphicsView) -> _View:
    viewport = view.viewport()
    canvas = canvas_of(viewport)
    offset = QPointF(viewport.mapTo(canvas, QPoint(0, 0)))
    return _View(view, canvas, offset, clip_rect(viewport, canvas))


def chart_texts(window: QWidget) -> tuple[list[TextBox], list[Stroke], list[str]]:
    """Every visible text and line in the graphics views of ``window``, and the axes that show ticks without a
    single label."""
    boxes: list[TextBox] = []
    strokes: list[Stroke] = []
    bare: list[str] = []
    for view in window.findChildren(QGraphicsView):
        if not view.isVisible() or view.scene() is None:
            continue
        v = view_of(view)
        for item in view.scene().items():
            if not item.isVisible() or item.effectiveOpacity() < 0.05:
                continue
            if type(item).__name__ == "AxisItem" or hasattr(item, "generateDrawSpecs"):
                texts, unlabelled = _axis_boxes(v, item)
                boxes += texts
                if unlabelled:
                    bare.append(f"{describe(v.view)} › {type(item).__name__}({item.orientation})")  # type: ignore[attr-defined]
                continue
            box = _text_item_box(v, item)
            if box is not None:
                boxes.append(box)
                continue
            stroke = _stroke(v, item)
            if stroke is not None:
                strokes.append(stroke)
    return boxes, strokes, bare

