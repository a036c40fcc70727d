"""Opening a PyTorch memory snapshot from the window: File > Open PyTorch snapshot…, and a dropped file.

``open_snapshot(path, window)`` brings the Timeline page up and starts reading ``path`` there, in a worker thread
(the call returns at once; a file the engine refuses gets its one-line reason in a dialog). The drop router
(``gui.actions.file_drop``) calls it for a dropped file that ``gui.files.file_kind`` recognises as a snapshot.
``ask_and_open(window)`` asks for the file first (``gui.files.snapshot_dialog``, the dialog the Timeline page's own
button shows); ``handlers(window)`` gives the main window its File-menu handler. Nothing heavy is imported here
until a snapshot is opened: the main window imports this module at start-up.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from PySide6.QtWidgets import QWidget

from gui.files.snapshot_dialog import ask_path
from gui.pages.contract import OpensSnapshot

if TYPE_CHECKING:
    from gui.pages.page_stack import PageStack

PAGE_ID = "timeline"


class Window(Protocol):
    """What opening a snapshot needs from the main window: its pages."""

    pages: PageStack


def open_snapshot(path: Path, window: Window) -> None:
    """Show the Timeline page and start reading ``path`` on it (in a worker thread)."""
    window.pages.show_page(PAGE_ID)
    page = window.pages.page(PAGE_ID)
    assert isinstance(page, OpensSnapshot), f"the {PAGE_ID} page cannot open a snapshot"
    page.open_snapshot(Path(path))


def ask_and_open(window: Window, parent: QWidget) -> bool:
    """File > Open PyTorch snapshot…: ask for the file, then ``open_snapshot``."""
    path = ask_path(parent)
    if path is None:
        return False
    open_snapshot(path, window)
    return True


def handlers(window: Window, parent: QWidget) -> dict[str, Callable[..., object]]:
    """The main window's menu handler for ``open_snapshot``."""
    return {"open_snapshot": lambda _c=False: ask_and_open(window, parent)}
