"""The File menu's export and copy entries, for whichever page is on top.

A page takes part by being one of two protocols (``gui.pages.contract``; the main window needs no page-specific
code):

- ``ExportsChart``, ``export_chart() -> QWidget``: its main chart (PNG at 1x/2x/3x, SVG, copy as image);
- ``ExportsBreakdown``, ``export_breakdown() -> Breakdown``: the memory terms it shows (CSV, JSON, Markdown,
  copy as a table).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from PySide6.QtCore import QObject, Signal
from PySide6.QtWidgets import QFileDialog, QMessageBox, QWidget

from gui.files import breakdown_table, chart_export
from gui.files.breakdown_table import Breakdown
from gui.pages.contract import ExportsBreakdown, ExportsChart, Page
from gui.settings import LAST_FOLDER_KEY, settings
from gui.text.words import term_title

TABLE_FORMATS = {"csv": breakdown_table.to_csv, "json": breakdown_table.to_json, "md": breakdown_table.to_markdown}
CHART_ACTIONS = ("export:png1", "export:png2", "export:png3", "export:svg", "copy:chart")
TABLE_ACTIONS = ("export:csv", "export:json", "export:md", "copy:table")


def chart_of(page: QWidget | None) -> QWidget | None:
    """The page's exportable chart, if it offers one."""
    return page.export_chart() if isinstance(page, ExportsChart) else None


def breakdown_of(page: QWidget | None) -> Breakdown | None:
    """The page's memory breakdown, if it offers one."""
    return page.export_breakdown() if isinstance(page, ExportsBreakdown) else None


class ExportActions(QObject):
    """Export and copy, for the page ``current_page()`` returns.

    Signals:
        exported(str): a file was written (its path), or ``"clipboard"`` after a copy.
    """

    exported = Signal(str)

    def __init__(self, window: QWidget, current_page: Callable[[], QWidget | None]) -> None:
        super().__init__(window)
        self._window, self._current = window, current_page

    def handlers(self) -> dict[str, Callable[..., object]]:
        """Menu action id -> handler."""
        found: dict[str, Callable[..., object]] = {
            f"export:png{s}": (lambda _c=False, s=s: self.export_png(s)) for s in chart_export.SCALES}
        found.update({f"export:{fmt}": (lambda _c=False, f=fmt: self.export_table(f)) for fmt in TABLE_FORMATS})
        found["export:svg"] = lambda _c=False: self.export_svg()
        found["copy:chart"] = lambda _c=False: self.copy_chart()
        found["copy:table"] = lambda _c=False: self.copy_table()
        return found

    def enabled(self) -> dict[str, bool]:
        """Which export actions the current page supports."""
        page = self._current()  # asked of the page's type: building its chart or its table costs (a first paint)
        chart, table = isinstance(page, ExportsChart), isinstance(page, ExportsBreakdown)
        return {**dict.fromkeys(CHART_ACTIONS, chart), **dict.fromkeys(TABLE_ACTIONS, table)}

    def export_png(self, scale: int, path: Path | None = None) -> Path | None:
        chart = chart_of(self._current())
        if chart is None:
            return None
        path = path or self._ask("png", self.tr("PNG image (*.png)"))
        return self._write(path, lambda p: chart_export.save_png(chart, p, scale))

    def export_svg(self, path: Path | None = None) -> Path | None:
        chart = chart_of(self._current())
        if chart is None:
            return None
        path = path or self._ask("svg", self.tr("SVG drawing (*.svg)"))
        return self._write(path, lambda p: chart_export.save_svg(chart, p, self._title()))

    def _table(self) -> Breakdown | None:
        """The page's table, or None: no table on the page, or the engine refuses what the page shows (vLLM's
        refusals, in its words: the page says them too), which the user is told."""
        try:
            return breakdown_of(self._current())
        except ValueError as err:
            QMessageBox.information(self._window, self.tr("Nothing to export"), str(err))
            return None

    def export_table(self, fmt: str, path: Path | None = None) -> Path | None:
        table = self._table()
        if table is None:
            return None
        names = {"csv": self.tr("CSV table (*.csv)"), "json": self.tr("JSON (*.json)"),
                 "md": self.tr("Markdown table (*.md)")}
        path = path or self._ask(fmt, names[fmt])
        text = TABLE_FORMATS[fmt](table, term_title)
        return self._write(path, lambda p: chart_export.write_text(p, text))

    def copy_chart(self) -> None:
        chart = chart_of(self._current())
        if chart is not None:
            chart_export.copy_image(chart)
            self.exported.emit("clipboard")

    def copy_table(self) -> None:
        table = self._table()
        if table is not None:
            chart_export.copy_table(breakdown_table.to_tsv(table, term_title))
            self.exported.emit("clipboard")

    def _title(self) -> str:
        try:
            table = breakdown_of(self._current())
        except ValueError:  # the engine refuses what the page shows: the chart is still the page's
            table = None
        return table.title if table is not None else "VRAM Lab"

    def _ask(self, suffix: str, file_filter: str) -> Path | None:
        page = self._current()
        page_id = page.page_id if isinstance(page, Page) else "chart"
        folder = str(settings().value(LAST_FOLDER_KEY, str(Path.home())))
        suggested = str(Path(folder) / f"vramlab-{page_id}.{suffix}")
        name, _ = QFileDialog.getSaveFileName(self._window, self.tr("Export"), suggested, file_filter)
        return Path(name) if name else None

    def _write(self, path: Path | None, write: Callable[[Path], object]) -> Path | None:
        if path is None:
            return None
        try:
            write(path)
        except chart_export.ExportError as err:
            QMessageBox.warning(self._window, self.tr("Export failed"), str(err))
            return None
        settings().setValue(LAST_FOLDER_KEY, str(path.parent))
        self.exported.emit(str(path))
        return path
