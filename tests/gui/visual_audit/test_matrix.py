"""Screenshots as tests (issue 17): every page, and the Lessons drawer, in every look (light and dark, presentation
mode at 100%, 150% and 200%), at 1280x720 and 1920x1080, in English and Traditional Chinese, audited by
``gui.visual_audit``: no clipped or overlapping text, no line through a label, no contrast under WCAG 2.1's
minimum, no English on a Chinese screen, nothing squashed, empty or scrolling sideways.

One window serves the whole matrix (a language or a look rebuilds its pages; a size only resizes it), so the
parametrisation is ordered by language and look. ``VRAMLAB_VISUAL=slice`` runs one size per page, look and
language (every page at every scale once per language and theme); ``VRAMLAB_VISUAL_SHOTS=DIR`` also saves each
screen as ``DIR/<setup>.png`` (``make visual``).
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest
import shiboken6
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication

from gui import i18n
from gui.fonts import register_fonts
from gui.main_window import MainWindow
from gui.scenario import Scenario
from gui.theme import ThemeManager, ThemeMode, light_palette
from gui.visual_audit.run import audit
from gui.visual_audit.window import Setup, arrange, matrix

SETUPS = matrix(full=os.environ.get("VRAMLAB_VISUAL", "full") != "slice")
SHOTS = os.environ.get("VRAMLAB_VISUAL_SHOTS")


@pytest.fixture(scope="module")
def window(qapp: QApplication) -> Iterator[MainWindow]:
    register_fonts()
    theme = ThemeManager(qapp, ThemeMode.LIGHT)
    win = MainWindow(Scenario(), theme)
    win.setAttribute(Qt.WidgetAttribute.WA_DontShowOnScreen, True)
    win.show()
    yield win
    win.presentation.leave()
    win.close()
    win.deleteLater()
    i18n.set_language(qapp, "en")
    shiboken6.delete(theme)
    qapp.setPalette(light_palette())
    qapp.processEvents()


@pytest.mark.parametrize("setup", SETUPS, ids=[str(s) for s in SETUPS])
def test_the_screen_has_no_visual_defect(window: MainWindow, setup: Setup) -> None:
    arrange(window, setup)
    findings = audit(window, setup.language)
    if SHOTS:
        Path(SHOTS).mkdir(parents=True, exist_ok=True)
        window.grab().save(str(Path(SHOTS) / f"{setup}.png"))
    assert not findings, f"{setup}: {len(findings)} visual defect(s)\n" + "\n".join(f"  {f}" for f in findings)


def test_the_matrix_covers_every_page_look_size_and_language() -> None:
    slice_, full = matrix(full=False), matrix(full=True)
    assert len(full) == 7 * 5 * 2 * 2
    covered = {(s.page, s.lessons, s.look, s.language) for s in slice_}
    assert covered == {(s.page, s.lessons, s.look, s.language) for s in full}
    assert len(slice_) == len(full) // 2
