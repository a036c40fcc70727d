"""The panel an import opens: what the files said, one tab each for what was read, ignored (with why) and assumed.

A non-modal dialog beside the window, so the page behind it shows the imported setup while the user reads. It
shows a ``ReportView`` (``gui.config_import_texts``: already translated) and keeps the function that made it,
so a language switch redraws it in the new language.
"""

from __future__ import annotations

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

from gui.config_import_texts import ReportView, section_html

SIZE = (780, 560)


class ImportReportPanel(QDialog):
    """Summary, notes (where the method is drawn, a model kept) and the read / ignored / assumed tabs.

    Signals: none of its own.
    """

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("importReport")
        self.setModal(False)
        self.summary = QLabel(self)
        self.notes = QLabel(self)
        for label in (self.summary, self.notes):
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
        for w in (self.summary, self.notes):
            layout.addWidget(w)
        layout.addWidget(self.tabs, 1)
        layout.addWidget(buttons)
        self._source: Callable[[], ReportView] | None = None
        self.view: ReportView | None = None
        self._retitle()
        self.resize(*SIZE)

    def show_report(self, source: Callable[[], ReportView]) -> None:
        """Show what ``source()`` gives (called again after a language switch) and bring the panel forward."""
        self._source = source
        self.tabs.setCurrentIndex(0)
        self._render()
        self.show()
        if QGuiApplication.platformName() != "offscreen":  # it cannot raise windows (and warns)
            self.raise_()

    def _render(self) -> None:
        if self._source is None:
            return
        view = self.view = self._source()
        self.summary.setText(view.summary)
        self.notes.setText("\n\n".join(view.notes))
        self.notes.setVisible(bool(view.notes))
        for i, (browser, section) in enumerate(zip(self.pages, view.sections, strict=True)):
            self.tabs.setTabText(i, section.title)
            browser.setHtml(section_html(section))

    def _retitle(self) -> None:
        self.setWindowTitle(self.tr("Imported training config"))

    def changeEvent(self, event: QEvent) -> None:
        if event.type() == QEvent.Type.LanguageChange:
            self._retitle()
            self._render()
        super().changeEvent(event)
