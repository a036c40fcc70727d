"""Start-up of the desktop app: the command line, the ``QApplication``, the theme, the language, the window.

``vramlab [SCENARIO] [--page NAME] [--theme MODE] [--lang LANG] [--screenshot DIR | --smoke-test] [--version]``.
``SCENARIO`` is a saved scenario (``*.vramlab.json``) to open: a file it cannot use gets File > Open's message
over the window, or, with ``--screenshot`` / ``--smoke-test``, one line on stderr and exit 2, as bad arguments
and unwritable folders do (never a traceback). Heavy modules
(pages, pyqtgraph) are imported only when needed so that the first window shows quickly.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any, NoReturn

# The engine the first page computes with, imported before anything imports PySide6: from then on PySide6's import
# hook reads the source of every module imported (its ``__feature__`` check, shibokensupport/feature.py
# ``_mod_uses_pyside``, PySide 6.11), which for these 250 modules (numpy, pydantic and the engine's) was 0.07 s of
# CPU at every start (bench/startup.py; tests/gui/test_startup_imports.py checks the order).
import engine.catalog.local
import engine.errors
import engine.lever_facts
import engine.timing.choices
import engine.training.accuracy
import engine.training.advisor
import engine.training.sweep
import engine.units  # noqa: F401
from gui.pages import PAGE_IDS

THEMES = ("system", "light", "dark")


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        sys.stderr.write(f"vramlab: error: {message}\n")
        raise SystemExit(2)


class _Version(argparse._VersionAction):
    """``--version``: the package's version, looked up only when asked (reading the installed package's metadata
    costs tens of milliseconds that every other start would pay)."""

    def __call__(self, parser: argparse.ArgumentParser, namespace: argparse.Namespace,
                 values: str | Sequence[Any] | None, option_string: str | None = None) -> None:
        from gui.shell.about import app_version

        self.version = f"vramlab {app_version()}"
        super().__call__(parser, namespace, values, option_string)


def build_parser() -> argparse.ArgumentParser:
    from gui.text.i18n import LANGUAGES

    p = _Parser(prog="vramlab", description="VRAM Lab: GPU memory in LLM fine-tuning, explained.")
    p.add_argument("--version", action=_Version)
    p.add_argument("scenario", nargs="?", type=Path, help="a saved scenario (*.vramlab.json) to open")
    p.add_argument("--page", choices=PAGE_IDS, default=PAGE_IDS[0], help="page to open first")
    p.add_argument("--theme", choices=THEMES, help="light, dark, or follow the OS (default: last used)")
    p.add_argument("--lang", choices=LANGUAGES, help="user-interface language (default: the OS's)")
    mode = p.add_mutually_exclusive_group()
    mode.add_argument("--screenshot", type=Path, metavar="DIR", help="save every page as DIR/<page>.png, exit")
    mode.add_argument("--smoke-test", action="store_true", help="build every page offscreen, then exit")
    return p


def _has_display() -> bool:
    return sys.platform != "linux" or bool(
        os.environ.get("QT_QPA_PLATFORM") or os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY")
    )


def _create_app(args: argparse.Namespace) -> tuple[Any, Any]:
    from PySide6.QtWidgets import QApplication

    from gui import settings
    from gui.look.theme import ThemeManager, ThemeMode
    from gui.text import i18n

    QApplication.setOrganizationName(settings.ORGANIZATION)
    QApplication.setApplicationName(settings.APPLICATION)
    QApplication.setApplicationDisplayName("VRAM Lab")
    QApplication.setDesktopFileName("vramlab")
    settings.redirect_from_env()
    app = QApplication(sys.argv[:1])
    from gui.text.fonts import register_fonts

    register_fonts()
    i18n.set_language(app, args.lang or i18n.saved_language())
    saved = str(settings.settings().value(settings.THEME_KEY, "system"))
    theme = ThemeManager(app, ThemeMode(args.theme or (saved if saved in THEMES else "system")))
    return app, theme


def _run(args: argparse.Namespace) -> int:
    app, theme = _create_app(args)
    from PySide6.QtCore import QTimer
    from PySide6.QtGui import QIcon

    from gui.actions.scenario_files import apply
    from gui.resources import find_asset
    from gui.shell.main_window import MainWindow
    from gui.shell.startup_probe import StartupProbe, launch_time
    from gui.state.scenario import Scenario

    icon = find_asset("icons/vramlab.svg")
    if icon is not None:
        app.setWindowIcon(QIcon(str(icon)))
    scenario = Scenario()
    if args.loaded is not None:  # headless: checked already; a bad file has exited 2
        apply(scenario, args.loaded)
    window = MainWindow(scenario, theme, initial_page=args.page)
    if args.screenshot is not None or args.smoke_test:
        from gui.shell import screenshot

        if args.smoke_test:
            screenshot.smoke_test(app, window)
        else:
            screenshot.save_screenshots(app, window, args.screenshot)
        return 0
    started = launch_time()
    if started is not None:
        StartupProbe(started, window)
    from gui import errors

    errors.install()  # from here on, an uncaught error is a message and a log entry, not a crash
    window.show()
    if args.scenario is not None:  # a bad file gets the same message as File > Open, over the window
        QTimer.singleShot(0, lambda: window.files.open_path(args.scenario))
    return int(app.exec())


def _load_scenario(path: Path) -> Any:
    from gui.files.scenario_file import ScenarioFileError, load

    try:
        return load(path)
    except ScenarioFileError as err:
        raise OSError(f"{path}: {err}") from None


def main(argv: Sequence[str] | None = None) -> int:
    """The ``vramlab`` entry point; returns the exit status."""
    args = build_parser().parse_args(argv)
    headless = args.screenshot is not None or args.smoke_test
    if headless and not _has_display():
        os.environ["QT_QPA_PLATFORM"] = "offscreen"
    elif not _has_display():
        sys.stderr.write("vramlab: error: no display (set DISPLAY, or QT_QPA_PLATFORM=offscreen)\n")
        return 2
    try:
        args.loaded = _load_scenario(args.scenario) if headless and args.scenario is not None else None
        if args.screenshot is not None:
            from gui.shell.screenshot import check_writable

            check_writable(args.screenshot)
        return _run(args)
    except OSError as err:
        sys.stderr.write(f"vramlab: error: {err}\n")
        return 2
