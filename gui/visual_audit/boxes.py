"""What the audit knows about one visible text (``TextBox``) and what it reports (``Finding``).

Coordinates are those of the text's *canvas*: the widget whose ``grab()`` holds its pixels. That is the content
widget of the innermost ``QScrollArea`` around it (grabbing it renders the parts scrolled out of view too, so a
page is audited whole, not just its first screen), or the window itself.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from enum import StrEnum

from PySide6.QtCore import QPoint, QRectF
from PySide6.QtGui import QColor, QFont, QFontInfo, QTextDocument, QTextFormat, QTextFragment
from PySide6.QtWidgets import QGraphicsItem, QScrollArea, QWidget

TOLERANCE = 1.0  # px a text may exceed its room by across (rounding in font metrics) before it counts as clipped
SYMBOL_ALPHA = 254  # an ink with this alpha draws only symbols (held to 3:1, not 4.5:1)
TOLERANCE_DOWN = 2.0  # and up or down: a line's box includes its leading and descent, rarely inked


class Kind(StrEnum):
    """What is wrong."""

    CLIPPED = "clipped"
    OVERLAP = "overlap"
    CROSSED = "crossed"
    CONTRAST = "contrast"
    UNTRANSLATED = "untranslated"
    SMALL = "small"
    SQUASHED = "squashed"
    EMPTY = "empty"
    SIDEWAYS = "scrolls sideways"


@dataclass(frozen=True, slots=True)
class Finding:
    """One defect: its kind, the widget it is in (object name or class, and its text), and the measurement."""

    kind: Kind
    where: str
    detail: str

    def __str__(self) -> str:
        return f"{self.kind}: {self.where}: {self.detail}"


@dataclass(slots=True)
class TextBox:
    """One text as drawn: ``rect`` is where its glyphs go (the size its font needs, aligned as it is drawn) and
    ``clip`` the part of the canvas where it can be seen (its room, cut by every parent); both in canvas pixels.
    ``inks`` are its declared pen colours (rich text may have several); ``user_data`` marks the user's own text."""

    text: str
    owner: str
    canvas: QWidget
    rect: QRectF
    clip: QRectF
    font: QFont
    inks: tuple[QColor, ...] = ()
    enabled: bool = True
    user_data: bool = False
    group: object = field(default=None)  # texts of one group (an axis' ticks) are laid out together
    source: object = field(default=None)  # the widget or graphics item that draws it

    def visible(self) -> QRectF:
        """The part of ``rect`` that can be seen."""
        return self.rect.intersected(self.clip)

    def pixel_size(self) -> float:
        """The font's size in pixels (for WCAG's "large text")."""
        if self.font.pixelSize() > 0:
            return float(self.font.pixelSize())
        return float(QFontInfo(self.font).pixelSize())


def parent_item(item: QGraphicsItem) -> QGraphicsItem | None:
    """An item's parent item, without asking a top-level item for it: PySide6 (6.11) hands a top-level item's
    ownership to Python when its ``parentItem()`` returns None, and the scene's item is deleted with the wrapper."""
    return None if item.topLevelItem() is item else item.parentItem()


def describe(widget: QWidget, text: str = "") -> str:
    """How a finding names a widget: its object name, else its class, and a short quote of its text."""
    name = widget.objectName() or type(widget).__name__
    quote = " ".join(text.split())
    return f"{name} '{quote[:48]}{'…' if len(quote) > 48 else ''}'" if quote else name


def canvas_of(widget: QWidget) -> QWidget:
    """The content widget of the innermost scroll area around ``widget``, else its window."""
    child: QWidget | None = widget
    while child is not None:
        parent = child.parentWidget()
        viewport_owner = parent.parentWidget() if parent is not None else None
        if isinstance(viewport_owner, QScrollArea) and viewport_owner.widget() is child:
            return child
        if child.isWindow():
            return child
        child = parent
    return widget.window()


def clip_rect(widget: QWidget, canvas: QWidget) -> QRectF:
    """``widget``'s rectangle cut by each parent's up to ``canvas``, in canvas coordinates."""
    rect = QRectF(widget.rect().translated(widget.mapTo(canvas, QPoint(0, 0))))
    parent = widget.parentWidget()
    while parent is not None and parent is not canvas:
        rect = rect.intersected(QRectF(parent.rect().translated(parent.mapTo(canvas, QPoint(0, 0)))))
        parent = parent.parentWidget()
    return rect


_TAG = re.compile(r"<[A-Za-z/!][^>]*>|&[A-Za-z#0-9]+;")


def is_symbol(text: str) -> bool:
    """A text of symbols only (a legend's ■, a bullet): a graphical object rather than words."""
    return bool(text.strip()) and not any(ch.isalnum() for ch in text)


def _fragments(doc: QTextDocument) -> Iterator[QTextFragment]:
    """A rich text's fragments that hold words or symbols (not only white space), in order."""
    block = doc.begin()
    while block.isValid():
        it = block.begin()
        while not it.atEnd():
            fragment = it.fragment()
            if fragment.isValid() and fragment.text().strip():
                yield fragment
            it += 1
        block = block.next()


def document_inks(doc: QTextDocument, default: QColor) -> tuple[QColor, ...]:
    """Every colour a rich text's words are drawn in (its fragments' own foregrounds, ``default`` for the rest),
    then, marked by an alpha of 254, those only its symbols are drawn in (a legend's coloured ■)."""
    inks: dict[str, QColor] = {}
    symbols: dict[str, QColor] = {}
    for fragment in _fragments(doc):
        fmt = fragment.charFormat()
        colour = fmt.foreground().color() if fmt.hasProperty(QTextFormat.Property.ForegroundBrush) else default
        (symbols if is_symbol(fragment.text()) else inks).setdefault(colour.name(), colour)
    marked = [QColor(c.red(), c.green(), c.blue(), SYMBOL_ALPHA) for n, c in symbols.items() if n not in inks]
    return (*inks.values(), *marked) or (default,)


def smallest_font(doc: QTextDocument, default: QFont) -> QFont:
    """The smallest font a rich text's words are drawn in (its markup may set sizes: ``<small>``, a pyqtgraph
    label's ``font-size: 9pt``, which does not follow the application's type)."""
    smallest = QFont(default)
    for fragment in _fragments(doc):
        font = fragment.charFormat().font()
        if QFontInfo(font).pixelSize() < QFontInfo(smallest).pixelSize():
            smallest = QFont(font)
    return smallest


def label_font(text: str, default: QFont) -> QFont:
    """A label's smallest font: ``default`` for plain text, the smallest its markup sets for rich text."""
    if not _TAG.search(text):
        return QFont(default)
    doc = QTextDocument()
    doc.setDefaultFont(default)
    doc.setHtml(text)
    return smallest_font(doc, default)


def text_inks(text: str, default: QColor) -> tuple[QColor, ...]:
    """The colours of a label's text: ``default``, or each colour its markup names."""
    if not _TAG.search(text):
        return (default,)
    doc = QTextDocument()
    doc.setHtml(text)
    return document_inks(doc, default)


def plain(text: str) -> str:
    """The text a user reads: rich text's markup removed, a mnemonic's ``&`` dropped."""
    if _TAG.search(text):
        doc = QTextDocument()
        doc.setHtml(text)
        return doc.toPlainText()
    return re.sub(r"&(.)", r"\1", text)
