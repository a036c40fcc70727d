"""``--screenshot DIR`` and ``--smoke-test``: build every page without showing a window on screen.

Screenshots are the whole window (navigation included) at 1280x800, one ``DIR/<page_id>.png`` per page.
"""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication

from gui.pages import PAGE_IDS
from gui.pages.contract import Page
from gui.shell.main_window import MainWindow

SIZE = (1280, 800)


class OutputError(OSError):
    """A screenshot folder that cannot be created or written."""


def check_writable(folder: Path) -> None:
    """Create ``folder`` if needed and prove it is writable; raises ``OutputError`` with one-line reason."""
    try:
        folder.mkdir(parents=True, exist_ok=True)
        probe = folder / ".vramlab-write-test"
        probe.write_bytes(b"")
        probe.unlink()
    except OSError as err:
        raise OutputError(f"cannot write screenshots to {folder}: {err.strerror or err}") from None


def _offscreen(window: MainWindow) -> None:
    window.setAttribute(Qt.WidgetAttribute.WA_DontShowOnScreen, True)
    window.resize(*SIZE)
    window.show()


def save_screenshots(app: QApplication, window: MainWindow, folder: Path) -> list[Path]:
    """Render each page at 1280x800 into ``folder``; returns the files written."""
    _offscreen(window)
    written: list[Path] = []
    for page_id in PAGE_IDS:
        window.pages.show_page(page_id)
        _settle(app, window)
        path = folder / f"{page_id}.png"
        if not window.grab().save(str(path)):
            raise OutputError(f"cannot save {path}")
        written.append(path)
    return written


def smoke_test(app: QApplication, window: MainWindow) -> None:
    """Build and show every page once (the frozen build's self-check)."""
    _offscreen(window)
    for page_id in PAGE_IDS:
        window.pages.show_page(page_id)
        _settle(app, window)


def _settle(app: QApplication, window: MainWindow) -> None:
    """Let the page on top finish: its pending recompute (every view, no waiting for a pause), then the paint."""
    page = window.pages.currentWidget()
    if isinstance(page, Page):
        page.flush()
    app.processEvents()
