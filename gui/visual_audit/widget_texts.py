"""Where each widget draws its text and how much room it has: labels, buttons, check boxes, combos, spin boxes,
line edits, group-box titles, tab bars, header sections and table / list cells.

Each collector returns ``TextBox``es in canvas coordinates (``gui.visual_audit.boxes``). The room is the rectangle
the style draws the text in (``QStyle.subElementRect`` / ``subControlRect``), the need is what the font measures;
a text needing more than its room sticks out of its clip and is reported as clipped.
"""

from __future__ import annotations

from collections.abc import Iterator

from PySide6.QtCore import QAbstractListModel, QModelIndex, QPoint, QRect, QRectF, QSize, Qt
from PySide6.QtGui import QColor, QFont, QFontMetrics, QPalette
from PySide6.QtWidgets import (
    QAbstractButton,
    QAbstractItemView,
    QAbstractSpinBox,
    QCheckBox,
    QComboBox,
    QGroupBox,
    QHeaderView,
    QItemDelegate,
    QLabel,
    QLineEdit,
    QPushButton,
    QRadioButton,
    QStyle,
    QStyledItemDelegate,
    QStyleOptionButton,
    QStyleOptionComboBox,
    QStyleOptionGroupBox,
    QTabBar,
    QToolButton,
    QWidget,
)

from gui.visual_audit.boxes import TextBox, canvas_of, clip_rect, describe, label_font, plain, text_inks

_ALIGN_DEFAULT = Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter
_Role = QPalette.ColorRole


def _box(widget: QWidget, text: str, need: QSize, room: QRect, align: Qt.AlignmentFlag, *,
         ink: QColor | tuple[QColor, ...] = (), font: QFont | None = None, user_data: bool = False,
         group: object = None) -> TextBox:
    """A text of size ``need`` aligned in ``room`` (widget coordinates), moved to the widget's canvas."""
    canvas = canvas_of(widget)
    at = widget.mapTo(canvas, QPoint(0, 0))
    drawn = QStyle.alignedRect(widget.layoutDirection(), align, need, room).translated(at)
    clip = clip_rect(widget, canvas).intersected(QRectF(room.translated(at)))
    inks = ink if isinstance(ink, tuple) else (ink,)
    return TextBox(plain(text), describe(widget, plain(text)), canvas, QRectF(drawn), clip,
                   QFont(font or widget.font()), inks, widget.isEnabled(), user_data, group, widget)


def _ink(widget: QWidget, role: QPalette.ColorRole | None = None) -> QColor:
    return widget.palette().color(role if role is not None else widget.foregroundRole())


def label_texts(label: QLabel) -> list[TextBox]:
    """A label's text: it needs its size hint (word-wrapped: its height for its width, and its longest word)."""
    if not label.text().strip() or (label.pixmap() is not None and not label.pixmap().isNull()):
        return []
    room = label.contentsRect().adjusted(label.margin(), label.margin(), -label.margin(), -label.margin())
    chrome = QSize(label.width() - room.width(), label.height() - room.height())
    if label.wordWrap():
        need = QSize(min(label.minimumSizeHint().width() - chrome.width(), room.width()),
                     label.heightForWidth(label.width()) - chrome.height())
        need.setWidth(max(need.width(), label.minimumSizeHint().width() - chrome.width()))
    else:
        need = label.sizeHint() - chrome
    align = label.alignment()
    return [_box(label, label.text(), need, room, align, ink=text_inks(label.text(), _ink(label)),
                 font=label_font(label.text(), label.font()))]


def _text_width(metrics: QFontMetrics, text: str) -> int:
    return max((metrics.horizontalAdvance(line) for line in text.split("\n")), default=0)


def _text_size(metrics: QFontMetrics, text: str) -> QSize:
    lines = text.split("\n")
    return QSize(_text_width(metrics, text), metrics.height() * len(lines))


def button_texts(button: QAbstractButton) -> list[TextBox]:
    """A push button's, check box's, radio button's or text tool button's label, in the style's contents rect."""
    text = plain(button.text())
    if not text.strip():
        return []
    if isinstance(button, QToolButton) and button.toolButtonStyle() == Qt.ToolButtonStyle.ToolButtonIconOnly:
        return []
    option = QStyleOptionButton()
    option.initFrom(button)
    option.text = button.text()
    option.icon = button.icon()
    option.iconSize = button.iconSize()
    element = QStyle.SubElement.SE_CheckBoxContents if isinstance(button, QCheckBox) else \
        QStyle.SubElement.SE_RadioButtonContents if isinstance(button, QRadioButton) else None
    if element is None:
        room = button.style().subElementRect(QStyle.SubElement.SE_PushButtonContents, option, button)
        align = Qt.AlignmentFlag.AlignCenter
    else:
        room = button.style().subElementRect(element, option, button)
        align = _ALIGN_DEFAULT
    need = _text_size(button.fontMetrics(), text)
    if not button.icon().isNull():
        need.setWidth(need.width() + button.iconSize().width() + 4)
    if isinstance(button, QPushButton) and button.menu() is not None:
        need.setWidth(need.width() + button.style().pixelMetric(QStyle.PixelMetric.PM_MenuButtonIndicator))
    return [_box(button, text, need, room, align, ink=_ink(button, _Role.ButtonText if element is None else None))]


def combo_texts(combo: QComboBox) -> list[TextBox]:
    """A combo box's current text in its edit field (Qt elides what does not fit)."""
    text = combo.currentText()
    if not text.strip():
        return []
    if combo.isEditable() and combo.lineEdit() is not None:
        return []  # its line edit is collected on its own
    option = QStyleOptionComboBox()
    option.initFrom(combo)
    option.editable = False
    option.currentText = text
    room = combo.style().subControlRect(QStyle.ComplexControl.CC_ComboBox, option,
                                        QStyle.SubControl.SC_ComboBoxEditField, combo).adjusted(1, 0, -1, 0)
    need = _text_size(combo.fontMetrics(), text)
    if not combo.itemIcon(combo.currentIndex()).isNull():
        need.setWidth(need.width() + combo.iconSize().width() + 4)
    return [_box(combo, text, need, room, _ALIGN_DEFAULT, ink=_ink(combo, _Role.ButtonText))]


def line_edit_texts(edit: QLineEdit) -> list[TextBox]:
    """A line edit's text: a spin box's (its value, suffix included, must fit) or the user's own (it scrolls)."""
    text = edit.text() or edit.placeholderText()
    if not text.strip():
        return []
    margins = edit.textMargins()
    room = edit.contentsRect().adjusted(margins.left() + 2, margins.top(), -margins.right() - 2, -margins.bottom())
    need = _text_size(edit.fontMetrics(), text)
    spin = isinstance(edit.parentWidget(), QAbstractSpinBox)
    user = not spin and not edit.isReadOnly() and not isinstance(edit.parentWidget(), QComboBox)
    role = _Role.PlaceholderText if not edit.text() else _Role.Text
    owner = edit.parentWidget() if spin or isinstance(edit.parentWidget(), QComboBox) else edit
    box = _box(edit, text, need, room, edit.alignment(), ink=_ink(edit, role), user_data=user)
    if owner is not None and owner is not edit:
        box.owner = describe(owner, box.text)
        box.enabled = owner.isEnabled()
    return [box]


def group_box_texts(group: QGroupBox) -> list[TextBox]:
    """A group box's title, in the style's label rectangle (its room: the group box's width)."""
    title = plain(group.title())
    if not title.strip():
        return []
    option = QStyleOptionGroupBox()
    option.initFrom(group)
    option.text = group.title()
    option.subControls = QStyle.SubControl.SC_GroupBoxLabel
    if group.isCheckable():
        option.subControls |= QStyle.SubControl.SC_GroupBoxCheckBox
    label = group.style().subControlRect(QStyle.ComplexControl.CC_GroupBox, option,
                                         QStyle.SubControl.SC_GroupBoxLabel, group)
    room = QRect(label.left(), label.top(), group.width() - label.left(), label.height())
    need = _text_size(group.fontMetrics(), title)
    return [_box(group, title, need, room, _ALIGN_DEFAULT, ink=_ink(group, _Role.WindowText))]


def tab_texts(bar: QTabBar) -> list[TextBox]:
    """Each tab's text within its tab (a tab pushed out of the bar, behind scroll buttons, is clipped)."""
    boxes: list[TextBox] = []
    space = bar.style().pixelMetric(QStyle.PixelMetric.PM_TabBarTabHSpace, None, bar)
    for i in range(bar.count()):
        if not bar.isTabVisible(i) or not bar.tabText(i).strip():
            continue
        rect = bar.tabRect(i)
        room = rect.adjusted(space // 2 - 2, 0, -(space // 2 - 2), 0)
        need = _text_size(bar.fontMetrics(), plain(bar.tabText(i)))
        ink = bar.tabTextColor(i) if bar.tabTextColor(i).isValid() else _ink(bar, _Role.WindowText)
        boxes.append(_box(bar, bar.tabText(i), need, room, Qt.AlignmentFlag.AlignCenter, ink=ink, group=bar))
    return boxes


def header_texts(header: QHeaderView) -> list[TextBox]:
    """Each visible header section's text within its section."""
    model = header.model()
    if model is None or header.isHidden():
        return []
    margin = header.style().pixelMetric(QStyle.PixelMetric.PM_HeaderMargin, None, header)
    viewport = header.viewport()
    boxes: list[TextBox] = []
    horizontal = header.orientation() == Qt.Orientation.Horizontal
    for logical in range(header.count()):
        if header.isSectionHidden(logical):
            continue
        text = model.headerData(logical, header.orientation(), Qt.ItemDataRole.DisplayRole)
        if not isinstance(text, str) or not text.strip():
            continue
        pos, size = header.sectionViewportPosition(logical), header.sectionSize(logical)
        rect = QRect(pos, 0, size, viewport.height()) if horizontal else QRect(0, pos, viewport.width(), size)
        room = rect.adjusted(margin, 0, -margin, 0)
        font = model.headerData(logical, header.orientation(), Qt.ItemDataRole.FontRole)
        font = font if isinstance(font, QFont) else header.font()
        need = _text_size(QFontMetrics(font), text)
        align = model.headerData(logical, header.orientation(), Qt.ItemDataRole.TextAlignmentRole)
        align = Qt.AlignmentFlag(int(align)) if align is not None else Qt.AlignmentFlag.AlignCenter
        boxes.append(_box(viewport, text, need, room, align, ink=_ink(header, _Role.ButtonText), font=font,
                          group=header))
    return boxes


def _cell_indexes(view: QAbstractItemView) -> Iterator[QModelIndex]:
    """The cells wholly in view down the viewport (one half scrolled out of view is scrolling, not clipping)."""
    model = view.model()
    visible = view.viewport().rect()
    columns = 1 if isinstance(model, QAbstractListModel) else model.columnCount(view.rootIndex())
    for row in range(min(model.rowCount(view.rootIndex()), 500)):
        for column in range(min(columns, 50)):
            index = model.index(row, column, view.rootIndex())
            rect = view.visualRect(index)
            if rect.intersects(visible) and rect.top() >= visible.top() and rect.bottom() <= visible.bottom():
                yield index


def cell_texts(view: QAbstractItemView) -> list[TextBox]:
    """Each visible cell's text of a table, list or tree drawn by a stock delegate (custom ones draw their own)."""
    if view.model() is None or type(view.itemDelegate()) not in (QStyledItemDelegate, QItemDelegate):
        return []
    margin = view.style().pixelMetric(QStyle.PixelMetric.PM_FocusFrameHMargin, None, view) + 1
    viewport = view.viewport()
    boxes: list[TextBox] = []
    for index in _cell_indexes(view):
        text = index.data(Qt.ItemDataRole.DisplayRole)
        if not isinstance(text, str) or not text.strip():
            continue
        room = view.visualRect(index).adjusted(margin, 0, -margin, 0)
        if index.data(Qt.ItemDataRole.DecorationRole) is not None:
            room.setLeft(room.left() + view.iconSize().width() + 4)
        if index.data(Qt.ItemDataRole.CheckStateRole) is not None:
            room.setLeft(room.left() + view.style().pixelMetric(QStyle.PixelMetric.PM_IndicatorWidth) + 4)
        font = index.data(Qt.ItemDataRole.FontRole)
        font = font if isinstance(font, QFont) else view.font()
        metrics = QFontMetrics(font)
        need = _text_size(metrics, text)
        if getattr(view, "wordWrap", lambda: False)():
            flags = int(Qt.TextFlag.TextWordWrap)
            need = metrics.boundingRect(QRect(0, 0, max(room.width(), 1), 100_000), flags, text).size()
        align = index.data(Qt.ItemDataRole.TextAlignmentRole)
        align = Qt.AlignmentFlag(int(align)) if align is not None else _ALIGN_DEFAULT
        brush = index.data(Qt.ItemDataRole.ForegroundRole)
        selected = view.selectionModel() is not None and view.selectionModel().isSelected(index)
        ink = _ink(view, _Role.HighlightedText) if selected else \
            brush.color() if hasattr(brush, "color") else _ink(view, _Role.Text)
        box = _box(viewport, text, need, room, align, ink=ink, font=font, group=view)
        box.owner = describe(view, text)
        boxes.append(box)
    return boxes


def collect(widget: QWidget) -> list[TextBox]:
    """The texts one widget draws itself (a header before the item view it is, a button before its kinds)."""
    if isinstance(widget, QLabel):
        return label_texts(widget)
    if isinstance(widget, QAbstractButton):
        return button_texts(widget)
    if isinstance(widget, QComboBox):
        return combo_texts(widget)
    if isinstance(widget, QLineEdit):
        return line_edit_texts(widget)
    if isinstance(widget, QGroupBox):
        return group_box_texts(widget)
    if isinstance(widget, QTabBar):
        return tab_texts(widget)
    if isinstance(widget, QHeaderView):
        return header_texts(widget)
    if isinstance(widget, QAbstractItemView):
        return cell_texts(widget)
    return []


def widget_texts(window: QWidget) -> list[TextBox]:
    """Every visible widget text in ``window``."""
    boxes: list[TextBox] = []
    for widget in window.findChildren(QWidget):
        if not widget.isVisible() or widget.width() <= 0 or widget.height() <= 0:
            continue
        boxes += collect(widget)
    return boxes
