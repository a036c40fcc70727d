"""The last line of defence: an error nobody caught becomes a message, never a traceback on screen.

Every expected problem (a bad config, a corrupt scenario, an absurd value) is handled where it happens and named
there. This hook is for the unexpected: it writes the traceback to a log file, tells the user in one sentence
that the app kept its state and where the details are, and lets the event loop go on. One dialog at a time:
an error repeating in every paint event does not stack up windows.

``contain`` runs a piece of a page's work (its recompute) so that an error goes to the installed hook instead of
unwinding through Qt's C++ frames: an exception left pending inside a C++ virtual call (an event filter) while
a rebuild deletes widgets once crashed the app in Shiboken (issue 17). Tests and the GUI fuzz driver install
their own hook, so an error contained here still fails them.
"""

from __future__ import annotations

import sys
import tempfile
import traceback
from collections.abc import Callable
from pathlib import Path
from types import TracebackType

from PySide6.QtCore import QCoreApplication, QStandardPaths, QTimer
from PySide6.QtWidgets import QMessageBox

_showing = False
Listener = Callable[[type[BaseException], BaseException, TracebackType | None], None]
# who else hears of an error the hook reports (the GUI fuzz driver, tests/gui/fuzz_driver.py, fails on it)
_listeners: list[Listener] = []


def log_path() -> Path:
    """Where tracebacks go: the user's cache folder (the temporary folder if it has none)."""
    folder = QStandardPaths.writableLocation(QStandardPaths.StandardLocation.CacheLocation)
    return Path(folder or tempfile.gettempdir()) / "vramlab-errors.log"


def report(kind: type[BaseException], value: BaseException, tb: TracebackType | None) -> Path:
    """Append the traceback to the log and say so on stderr in one line; returns the log's path."""
    path = log_path()
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        with path.open("a", encoding="utf-8") as log:
            log.write("".join(traceback.format_exception(kind, value, tb)) + "\n")
    except OSError:
        pass
    sys.stderr.write(f"vramlab: unexpected error: {kind.__name__}: {value} (details: {path})\n")
    return path


def _tell(summary: str, path: Path) -> None:
    global _showing  # noqa: PLW0603 - one dialog at a time, process-wide
    if _showing:
        return
    _showing = True
    try:
        title = QCoreApplication.translate("errors", "Something went wrong")
        text = QCoreApplication.translate(
            "errors", "{summary}\n\nVRAM Lab kept its state; you can go on. Details were written to {path}."
        ).format(summary=summary, path=path)
        QMessageBox.warning(None, title, text)
    finally:
        _showing = False


def add_listener(listener: Listener) -> None:
    """Hand every error the hook reports to ``listener`` too, after logging it."""
    _listeners.append(listener)


def hook(kind: type[BaseException], value: BaseException, tb: TracebackType | None) -> None:
    """``sys.excepthook`` for the running app."""
    if issubclass(kind, KeyboardInterrupt):
        sys.__excepthook__(kind, value, tb)
        return
    path = report(kind, value, tb)
    for listener in _listeners:
        listener(kind, value, tb)
    summary = f"{kind.__name__}: {value}"
    QTimer.singleShot(0, lambda: _tell(summary, path))


def contain(run: Callable[[], None]) -> None:
    """Run ``run``; an error it raises goes to ``sys.excepthook`` (the app's ``hook``, a test's, the fuzz
    driver's), never up through the Qt code that called us."""
    try:
        run()
    except Exception:  # every error is reported to the hook, none is lost
        sys.excepthook(*sys.exc_info())


def install() -> None:
    sys.excepthook = hook
