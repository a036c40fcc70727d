"""gui.text.tr: the engine's one translation marker, and the run-time lookup."""

from __future__ import annotations

from PySide6.QtCore import QCoreApplication
from pytestqt.qtbot import QtBot

from engine import translatable
from gui.text.tr import QT_TRANSLATE_NOOP, translate


def test_the_marker_is_the_engines_and_returns_its_text() -> None:
    assert QT_TRANSLATE_NOOP is translatable.QT_TRANSLATE_NOOP
    assert QT_TRANSLATE_NOOP("pages", "Memory") == "Memory"


def test_translate_falls_back_to_the_source_text(qtbot: QtBot) -> None:
    assert translate("no-such-context", "Memory") == "Memory"
    assert translate("pages", "Memory") == QCoreApplication.translate("pages", "Memory")
