"""gui.shell.screenshot: every page rendered whole, in the app's own window, finished before it is grabbed.

(The command line, ``--screenshot`` and ``--smoke-test`` in a real process, is tested in ``test_app.py``.)"""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtGui import QImage, QPixmap
from PySide6.QtWidgets import QApplication
from pytestqt.qtbot import QtBot

from engine.specs import Method
from gui.pages import PAGE_IDS
from gui.pages.contract import Page
from gui.shell import screenshot
from gui.shell.main_window import MainWindow
from gui.state.scenario import Scenario


def test_each_page_is_saved_finished(qtbot: QtBot, qapp: QApplication, tmp_path: Path,
                                    monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("gui.pages.memory.SECONDARY_MS", 60_000)  # its charts would wait a minute for a pause
    scenario = Scenario()
    window = MainWindow(scenario)
    qtbot.addWidget(window)
    scenario.update(method=Method.LORA)  # the memory page has work pending: it must be done before the grab
    grab = window.grab
    pending_at_grab: list[bool] = []

    def checked_grab() -> QPixmap:
        page = window.pages.currentWidget()
        assert isinstance(page, Page)
        pending_at_grab.append(page.recompute.pending())
        return grab()

    monkeypatch.setattr(window, "grab", checked_grab)
    written = screenshot.save_screenshots(qapp, window, tmp_path)
    assert [p.name for p in written] == [f"{p}.png" for p in PAGE_IDS]
    assert pending_at_grab == [False] * len(PAGE_IDS)
    image = QImage(str(written[0]))
    assert (image.width(), image.height()) == screenshot.SIZE


def test_an_unwritable_folder_is_one_line(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("")
    with pytest.raises(screenshot.OutputError, match=r"^cannot write screenshots to .*shots"):
        screenshot.check_writable(blocker / "shots")
    screenshot.check_writable(tmp_path / "new" / "shots")
    assert (tmp_path / "new" / "shots").is_dir()
