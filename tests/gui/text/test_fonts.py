"""gui.text.fonts and the bundled Noto Sans CJK TC subset: it holds every character the translations use, it is
registered, and Chinese asks for it first (Taiwanese glyph forms)."""

from __future__ import annotations

import importlib
import sys
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtGui import QFont, QFontDatabase, QFontInfo, QRawFont
from PySide6.QtWidgets import QApplication

from gui.resources import asset_path
from gui.text import fonts

REPO = Path(__file__).resolve().parents[3]
sys.path.insert(0, str(REPO / "tools"))
font_subset: Any = importlib.import_module("font_subset")  # tools/font_subset.py: the subset's character list


@pytest.mark.parametrize("relative", fonts.FONT_FILES)
def test_the_subset_has_every_ui_character(relative: str) -> None:
    chars = font_subset.required_characters()
    assert {"記", "體", "，", "A"} <= chars
    path = asset_path(relative)
    try:
        tt_lib: Any = importlib.import_module("fontTools.ttLib")
    except ImportError:  # fall back on Qt's own reader
        raw = QRawFont(str(path), 12)
        missing = sorted(c for c in chars if not raw.supportsCharacter(c))
    else:
        cmap = tt_lib.TTFont(path).getBestCmap()
        missing = sorted(c for c in chars if ord(c) not in cmap)
    assert not missing, f"{relative} lacks {''.join(missing)!r}: run `python tools/font_subset.py`"


def test_the_lessons_chinese_is_among_the_required_characters() -> None:
    from engine.lessons import lessons

    texts = [t.zh_TW for x in lessons() for t in (x.title, x.text, *x.hints, x.explanation.text)]
    han = {c for t in texts for c in t if ord(c) >= 0x2E80}
    assert han
    assert han <= font_subset.required_characters()


def test_the_licence_ships_beside_the_fonts() -> None:
    text = asset_path("fonts/LICENSE-OFL.txt").read_text(encoding="utf-8")
    assert "SIL OPEN FONT LICENSE Version 1.1" in text
    assert "Noto Sans CJK TC" in text


def test_registered_and_named_first_for_chinese(qapp: QApplication) -> None:
    assert fonts.TC_FAMILY in fonts.register_fonts()
    assert fonts.TC_FAMILY in QFontDatabase.families()
    assert fonts.families_for("zh_TW", "Sans")[0] == fonts.TC_FAMILY
    assert fonts.families_for("en", "Sans") == ["Sans", fonts.TC_FAMILY]
    font = QFont()
    font.setFamilies(fonts.families_for("zh_TW", qapp.font().family()))
    assert QFontInfo(font).family() == fonts.TC_FAMILY  # Han characters take the TC face, not a JP fallback


def test_english_keeps_the_systems_latin_face(qapp: QApplication) -> None:
    before = QFontInfo(qapp.font()).family()
    fonts.register_fonts()
    fonts.apply_language_font(qapp, "en")
    assert QFontInfo(qapp.font()).family() == before  # the TC face is only the fallback for Han characters
    assert qapp.font().families()[-1] == fonts.TC_FAMILY
