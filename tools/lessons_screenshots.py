"""Screenshots of the Lessons drawer for the docs: ``docs/screenshots/lessons-en.png`` and ``lessons-zh_TW.png``.

A 1280x800 window on the light theme with the drawer open on ``fit-7b-24gb``, started (its goal not met yet) and
with its first hint shown; settings go to a temporary folder, so a user's progress is neither read nor changed.

    QT_QPA_PLATFORM=offscreen python tools/lessons_screenshots.py [--out docs/screenshots] [--lesson ID]
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

from PySide6.QtCore import Qt  # noqa: E402
from PySide6.QtWidgets import QApplication  # noqa: E402

from gui import settings  # noqa: E402
from gui.look.theme import ThemeManager, ThemeMode  # noqa: E402
from gui.pages.contract import Page  # noqa: E402
from gui.shell.main_window import MainWindow  # noqa: E402
from gui.state.scenario import Scenario  # noqa: E402
from gui.text import i18n  # noqa: E402
from gui.text.fonts import register_fonts  # noqa: E402

SIZE = (1280, 800)
LESSON = "fit-7b-24gb"


def shoot(app: QApplication, theme: ThemeManager, language: str, path: Path, lesson_id: str = LESSON) -> Path:
    """Render the window in ``language`` with the drawer on ``lesson_id`` (started, one hint) into ``path``."""
    i18n.set_language(app, language)
    window = MainWindow(Scenario(), theme)
    window.setAttribute(Qt.WidgetAttribute.WA_DontShowOnScreen, True)
    window.resize(*SIZE)
    window.show()
    window.lessons.set_open(True)
    panel = window.lessons.panel
    assert panel is not None
    panel.reset_progress()  # the same for each language: nothing passed, one hint
    panel.show_lesson(lesson_id)
    panel.start()
    panel.reveal_hint()
    app.processEvents()
    panel.flush()
    page = window.pages.currentWidget()
    if isinstance(page, Page):
        page.flush()
    app.processEvents()
    if not window.grab().save(str(path)):
        raise OSError(f"cannot save {path}")
    window.close()
    window.deleteLater()
    return path


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", type=Path, default=REPO / "docs" / "screenshots")
    ap.add_argument("--lesson", default=LESSON)
    args = ap.parse_args(argv)
    settings.redirect(tempfile.mkdtemp(prefix="vramlab-shots-"))
    app = QApplication(sys.argv[:1])
    register_fonts()
    theme = ThemeManager(app, ThemeMode.LIGHT)
    args.out.mkdir(parents=True, exist_ok=True)
    for language in i18n.LANGUAGES:
        print(shoot(app, theme, language, args.out / f"lessons-{language}.png", args.lesson))
    return 0


if __name__ == "__main__":
    sys.exit(main())
