"""gui.actions.snapshot_open: File > Open PyTorch snapshot…, and the entry point the drop router calls."""

from __future__ import annotations

from pathlib import Path

import pytest
from pytestqt.qtbot import QtBot

from gui.actions.snapshot_open import open_snapshot
from gui.files.file_kind import FileKind
from gui.pages.timeline import TimelinePage
from gui.settings import LAST_FOLDER_KEY, settings
from gui.shell.main_window import MainWindow
from tests.gui.snapshot_files import small


def timeline_page(window: MainWindow) -> TimelinePage:
    page = window.pages.page("timeline")
    assert isinstance(page, TimelinePage)
    return page


def test_a_dropped_snapshot_is_read_on_the_timeline(qtbot: QtBot, window: MainWindow, tmp_path: Path) -> None:
    path = small(tmp_path, "run.pickle")
    # the drop router (gui.actions.file_drop) calls open_snapshot
    assert window.drops.route([path]) == [FileKind.SNAPSHOT]
    assert window.pages.current_page_id() == "timeline"
    qtbot.waitSignal(timeline_page(window).loader.loaded, timeout=30_000).wait()


def test_open_snapshot_shows_the_timeline_and_reads_there(qtbot: QtBot, window: MainWindow, tmp_path: Path) -> None:
    path = small(tmp_path)
    assert not window.pages.is_built("timeline")
    open_snapshot(path, window)  # what a drop router calls
    page = timeline_page(window)
    assert window.pages.current_page_id() == "timeline"
    qtbot.waitSignal(page.loader.loaded, timeout=30_000).wait()
    assert page.measurement is not None
    assert page.measurement.report.file == path.name


def test_the_file_menu_asks_then_opens(qtbot: QtBot, window: MainWindow, tmp_path: Path,
                                       monkeypatch: pytest.MonkeyPatch) -> None:
    path = small(tmp_path)
    asked: list[str] = []

    def answer(_parent: object, title: str, _folder: str, file_filter: str) -> tuple[str, str]:
        asked.append(f"{title} | {file_filter}")
        return str(path), ""

    monkeypatch.setattr("gui.files.snapshot_dialog.QFileDialog.getOpenFileName", answer)
    action = window.actions_by_id["open_snapshot"]
    assert action.text().replace("&", "") == "Open PyTorch snapshot…"
    action.trigger()
    assert asked == ["Open PyTorch snapshot | PyTorch memory snapshots (*.pickle *.pkl *.json *.gz);;All files (*)"]
    qtbot.waitSignal(timeline_page(window).loader.loaded, timeout=30_000).wait()
    assert settings().value(LAST_FOLDER_KEY) == str(tmp_path)


def test_a_cancelled_file_dialog_opens_nothing(window: MainWindow, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("gui.files.snapshot_dialog.QFileDialog.getOpenFileName", lambda *_a: ("", ""))
    window.actions_by_id["open_snapshot"].trigger()
    assert not window.pages.is_built("timeline")
