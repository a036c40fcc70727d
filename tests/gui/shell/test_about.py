"""gui.shell.about: version and the licences of everything bundled."""

from __future__ import annotations

from PySide6.QtWidgets import QLabel
from pytestqt.qtbot import QtBot

import engine
from gui.shell.about import BUNDLED, AboutDialog, app_version


def test_version_is_the_package_or_the_engine() -> None:
    assert app_version() == engine.__version__


def test_dialog_lists_version_and_licences(qtbot: QtBot) -> None:
    dialog = AboutDialog()
    qtbot.addWidget(dialog)
    text = " ".join(label.text() for label in dialog.findChildren(QLabel))
    assert app_version() in text
    for name, licence in BUNDLED:
        assert name in text
        assert licence in text
    assert "LGPLv3" in text
