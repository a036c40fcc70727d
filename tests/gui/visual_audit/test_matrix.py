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

from engine.alignment import Stage
from gui.look.theme import ThemeManager, ThemeMode, light_palette
from gui.pages.alignment import AlignmentPage
from gui.pages.memory import MemoryPage
from gui.shell.main_window import MainWindow
from gui.state.scenario import Scenario
from gui.text import i18n
from gui.text.fonts import register_fonts
from gui.visual_audit.chart_texts import chart_texts
from gui.visual_audit.run import audit
from gui.visual_audit.window import Look, Setup, arrange, matrix, settle

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


@pytest.mark.parametrize("stage", list(Stage), ids=[s.value for s in Stage])
def test_every_alignment_stage_reads_at_200_percent(window: MainWindow, qapp: QApplication, stage: Stage) -> None:
    """Issue 17: the Alignment page lost its stage labels and its diagram text overflowed its boxes; the matrix
    shows the DPO stage only, so each stage is drawn here at the hardest size and audited."""
    arrange(window, Setup("alignment", Look(scale=200), (1280, 720), "zh_TW"))
    page = window.pages.currentWidget()
    assert isinstance(page, AlignmentPage)
    page.select(stage)
    settle(qapp, window)
    assert audit(window, "zh_TW") == []
    boxes, _strokes, _bare = chart_texts(window)
    stage_labels = [b.text for b in boxes if b.owner.startswith("StageBars") and "(left)" in b.owner]
    assert len(stage_labels) == len(Stage)


@pytest.mark.parametrize("language", ["en", "zh_TW"])
def test_the_settings_column_reaches_offload_and_units_at_1280x800(window: MainWindow, qapp: QApplication,
                                                                     language: str) -> None:
    """Issue 17: in zh_TW at 1280x800 the memory page's settings column hid the offload and units rows."""
    arrange(window, Setup("memory", Look(), (1280, 800), language))
    page = window.pages.currentWidget()
    assert isinstance(page, MemoryPage)
    scroll = page._settings
    for widget in (page.controls.offload_optimizer, page.controls.offload_params, page.controls.unit):
        scroll.ensureWidgetVisible(widget)
        qapp.processEvents()
        top_left = widget.mapTo(scroll.viewport(), widget.rect().topLeft())
        assert scroll.viewport().rect().contains(top_left)
        assert widget.isVisibleTo(window)
    assert audit(window, language) == []
