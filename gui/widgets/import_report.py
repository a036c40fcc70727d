"""The panel an import opens: what the files said, one tab each for what was read, ignored (with why) and assumed.

A non-modal dialog beside the window, so the page behind it shows the imported setup while the user reads. It
shows a ``ReportView`` (``gui.text.config_import_texts``: already translated) and keeps the function that made it,
so a language switch redraws it in the new language.
"""

from __future__ import annotations

import html
from collections.abc import Callable

from PySide6.QtCore import QEvent, Qt
from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QLabel,
    QTabWidget,
    QTextBrowser,
    QVBoxLayout,
    QWidget,
)

from gui.text.config_import_texts import ReportView, section_html

# the panel's first size, in average characters and lines of the type of the moment (presentation mode's larger
# type gets a larger panel), within the screen
SIZE = (125, 38)


class ImportReportPanel(QDialog):
    """Summary, notes (where the method is drawn, a model kept) and the read / ignored / assumed tabs.

    Signals: none of its own.
    """

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("importReport")
        self.setModal(False)
        self.summary, self.shown, self.notes = QLabel(self), QLabel(self), QLabel(self)
        self.summary.setTextFormat(Qt.TextFormat.RichText)  # bold, at the type size of the moment
        for label in (self.summary, self.shown, self.notes):
            label.setWordWrap(True)
            label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.tabs = QTabWidget(self)
        self.pages = [QTextBrowser(self.tabs) for _ in range(3)]
        for browser in self.pages:
            browser.setOpenLinks(False)
            self.tabs.addTab(browser, "")
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close, self)
        buttons.rejected.connect(self.close)
        layout = QVBoxLayout(self)
        for w in (self.summary, self.shown, self.notes):
            layout.addWidget(w)
        layout.addWidget(self.tabs, 1)
        layout.addWidget(buttons)
        self._source: Callable[[], ReportView] | None = None
        self.view: ReportView | None = None
        self._retitle()

    def show_report(self, source: Callable[[], ReportView]) -> None:
        """Show what ``source()`` gives (called again after a language switch) and bring the panel forward."""
        self._source = source
        self.tabs.setCurrentIndex(0)
        self._render()
        if not self.isVisible():
            self._fit()
        self.show()
        if QGuiApplication.platformName() != "offscreen":  # it cannot raise windows (and warns)
            self.raise_()

    def _render(self) -> None:
        if self._source is None:
            return
        view = self.view = self._source()
        self.summary.setText(f"<b>{html.escape(view.summary)}</b>")
        self.shown.setText(view.shown)
        self.notes.setText("\n\n".join(view.notes))
        self.notes.setVisible(bool(view.notes))
        for i, (browser, section) in enumerate(zip(self.pages, view.sections, strict=True)):
            self.tabs.setTabText(i, section.title)
            browser.setHtml(section_html(section))

    def _fit(self) -> None:
        """``SIZE`` in the current type, no larger than the screen's free area."""
        metrics = self.fontMetrics()
        width, height = SIZE[0] * metrics.averageCharWidth(), SIZE[1] * metrics.height()
        screen = self.screen().availableGeometry()
        self.resize(min(width, screen.width()), min(height, screen.height()))

    def _retitle(self) -> None:
        self.setWindowTitle(self.tr("Imported training config"))

    def changeEvent(self, event: QEvent) -> None:
        if event.type() == QEvent.Type.LanguageChange:
            self._retitle()
            self._render()
        super().changeEvent(event)
