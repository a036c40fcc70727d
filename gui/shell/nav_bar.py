"""The left sidebar: the app's name and icon on top, then one row per registered page (icon and title)."""

from __future__ import annotations

from PySide6.QtCore import QSize, Qt, Signal
from PySide6.QtGui import QIcon, QPalette
from PySide6.QtWidgets import QFrame, QHBoxLayout, QLabel, QListWidget, QListWidgetItem, QVBoxLayout, QWidget

from gui.pages import PAGE_IDS, page_title
from gui.resources import find_asset

WIDTH = 184


def _icon(relative: str) -> QIcon:
    """An SVG icon that keeps its colours when its row is selected (no highlight tint)."""
    icon = QIcon()
    path = find_asset(relative)
    if path is not None:
        for mode in (QIcon.Mode.Normal, QIcon.Mode.Selected, QIcon.Mode.Active):
            icon.addFile(str(path), QSize(), mode)
    return icon


def _brand(parent: QWidget) -> QWidget:
    brand = QWidget(parent)
    row = QHBoxLayout(brand)
    row.setContentsMargins(14, 14, 8, 14)
    logo = QLabel(brand)
    logo.setPixmap(_icon("icons/vramlab.svg").pixmap(QSize(30, 30)))
    name = QLabel("VRAM Lab", brand)
    font = name.font()
    font.setPointSizeF(font.pointSizeF() * 1.25)
    font.setBold(True)
    name.setFont(font)
    row.addWidget(logo)
    row.addWidget(name, 1)
    return brand


class NavBar(QFrame):
    """The app's name, then a vertical list of the pages; picking a row asks for that page.

    Signals:
        page_requested(str): the user picked a page (its id).
    """

    page_requested = Signal(str)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("navBar")
        self.setFixedWidth(WIDTH)
        self.setAutoFillBackground(True)
        self.setBackgroundRole(QPalette.ColorRole.Base)
        self.list = QListWidget(self)
        self.list.setIconSize(QSize(22, 22))
        self.list.setSpacing(2)
        self.list.setFrameShape(QFrame.Shape.NoFrame)
        self.list.setFocusPolicy(Qt.FocusPolicy.StrongFocus)
        for page_id in PAGE_IDS:
            item = QListWidgetItem(_icon(f"icons/pages/{page_id}.svg"), page_title(page_id), self.list)
            item.setSizeHint(QSize(WIDTH - 12, 40))
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(_brand(self))
        layout.addWidget(self.list, 1)
        self.list.currentRowChanged.connect(lambda row: self.page_requested.emit(PAGE_IDS[row]))

    def select(self, page_id: str) -> None:
        """Highlight a page's row without asking for the page again."""
        self.list.blockSignals(True)
        self.list.setCurrentRow(PAGE_IDS.index(page_id))
        self.list.blockSignals(False)

    def current_page_id(self) -> str:
        return PAGE_IDS[self.list.currentRow()]
