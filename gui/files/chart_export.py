"""Charts out of the app: a widget rendered to PNG at 1x/2x/3x, to SVG (vector, via ``QSvgGenerator``), or to the
clipboard; tables to the clipboard as tab-separated text (spreadsheets and slide tables paste it into cells).
Only Qt-made clipboard data is used (``setImage``, ``setText``): a ``QMimeData`` made in Python left on the
clipboard crashes PySide 6.11 at interpreter exit.

``QWidget.render`` paints the widget as it is on screen, so a pyqtgraph chart keeps its colours, labels and
legend; SVG keeps pyqtgraph's items as vector paths and text.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from PySide6.QtCore import QPoint, QRect, QSize
from PySide6.QtGui import QGuiApplication, QImage, QPainter, QPalette
from PySide6.QtWidgets import QGraphicsItem, QGraphicsView, QWidget

SCALES = (1, 2, 3)


class ExportError(OSError):
    """A chart or table that could not be written (the message says where and why)."""


def chart_image(widget: QWidget, scale: int = 1) -> QImage:
    """The widget painted at ``scale`` times its size, on its own background colour."""
    size = widget.size()
    image = QImage(QSize(size.width() * scale, size.height() * scale), QImage.Format.Format_ARGB32_Premultiplied)
    image.setDevicePixelRatio(scale)
    image.fill(widget.palette().color(QPalette.ColorRole.Window))
    painter = QPainter(image)
    painter.setRenderHint(QPainter.RenderHint.Antialiasing)
    try:
        _render(widget, painter)
    finally:
        painter.end()
    return image


def _render(widget: QWidget, painter: QPainter) -> None:
    """The widget as on screen; ``QWidget.render`` also for a ``QGraphicsView`` (pyqtgraph), whose own
    ``render`` would draw only its scene, without the widget's frame and axes' layout."""
    QWidget.render(widget, painter, QPoint(0, 0))


def save_png(widget: QWidget, path: Path, scale: int = 1) -> QSize:
    """Write ``widget`` as a PNG at ``scale``; returns the image's size in pixels."""
    image = chart_image(widget, scale)
    if not image.save(str(path), "PNG"):  # type: ignore[call-overload]  # the stubs want bytes, PySide wants str
        raise ExportError(f"cannot write {path}")
    return image.size()


@contextmanager
def _uncached(widget: QWidget) -> Iterator[None]:
    """Graphics views and their items without pixmap caches, so SVG gets vector paths and text, not images."""
    views = [widget] if isinstance(widget, QGraphicsView) else []
    views += widget.findChildren(QGraphicsView)
    items = [i for v in views if v.scene() is not None for i in v.scene().items()]
    saved = [(v, v.cacheMode()) for v in views], [(i, i.cacheMode()) for i in items]
    for v in views:
        v.setCacheMode(QGraphicsView.CacheModeFlag.CacheNone)
    for i in items:
        i.setCacheMode(QGraphicsItem.CacheMode.NoCache)
    try:
        yield
    finally:
        for v, mode in saved[0]:
            v.setCacheMode(mode)
        for i, item_mode in saved[1]:
            i.setCacheMode(item_mode)


def save_svg(widget: QWidget, path: Path, title: str = "") -> None:
    """Write ``widget`` as an SVG drawing of its on-screen size (vector paths and text)."""
    from PySide6.QtSvg import QSvgGenerator  # Qt SVG is loaded on the first SVG export, not at start-up

    generator = QSvgGenerator()
    generator.setFileName(str(path))
    generator.setSize(widget.size())
    generator.setViewBox(QRect(QPoint(0, 0), widget.size()))
    generator.setTitle(title or "VRAM Lab")
    generator.setDescription("Exported from VRAM Lab")
    painter = QPainter()
    if not painter.begin(generator):
        raise ExportError(f"cannot write {path}")
    try:
        with _uncached(widget):
            _render(widget, painter)
    finally:
        painter.end()


def copy_image(widget: QWidget, scale: int = 2) -> QImage:
    """Put the chart on the clipboard (at ``scale``, sharp when pasted into slides); returns the image."""
    image = chart_image(widget, scale)
    QGuiApplication.clipboard().setImage(image)
    return image


def copy_table(tsv: str) -> None:
    """Put a table on the clipboard as tab-separated text."""
    QGuiApplication.clipboard().setText(tsv)


def write_text(path: Path, text: str) -> None:
    """Write a text export (UTF-8); raises ``ExportError`` naming the file."""
    try:
        Path(path).write_text(text, encoding="utf-8")
    except OSError as err:
        raise ExportError(f"cannot write {path}: {err.strerror or err}") from None
