"""tools/lessons_screenshots.py: the docs' pictures of the Lessons drawer render at 1280x800, a hint shown."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtGui import QImage
from PySide6.QtWidgets import QApplication

from gui.lessons.progress import LessonProgress
from gui.look.theme import ThemeManager
from gui.text import i18n
from tools.lessons_screenshots import SIZE, shoot


def test_both_languages_render(qapp: QApplication, theme: ThemeManager, tmp_path: Path) -> None:
    try:
        for language in i18n.LANGUAGES:
            path = shoot(qapp, theme, language, tmp_path / f"lessons-{language}.png")
            assert (QImage(str(path)).width(), QImage(str(path)).height()) == SIZE
    finally:
        i18n.set_language(qapp, "en")
    progress = LessonProgress(["fit-7b-24gb"])
    assert (progress.started, progress.hints("fit-7b-24gb")) == ("fit-7b-24gb", 1)  # reset for each language
