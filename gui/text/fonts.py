"""The bundled Chinese font, and which font families the app asks for in each language.

Qt draws Han characters with whatever CJK font it finds, and with a Japanese one it draws Japanese glyph forms
(e.g. 說, 體 differ); a machine may have none at all. VRAM Lab ships a subset of Noto Sans CJK TC
(``assets/fonts``, made by ``tools/font_subset.py``, SIL OFL 1.1) holding every character of its translations,
registers it at start-up and names it explicitly: first for Traditional Chinese, so that every Han character
takes the Taiwanese forms, and as a fallback in English (the language menu writes 繁體中文 in any language).
"""

from __future__ import annotations

from PySide6.QtGui import QFont, QFontDatabase, QFontInfo
from PySide6.QtWidgets import QApplication

from gui.resources import find_asset

TC_FAMILY = "Noto Sans CJK TC"
FONT_FILES = ("fonts/NotoSansCJKtc-Regular-subset.otf", "fonts/NotoSansCJKtc-Bold-subset.otf")
_BASE_FAMILY = "base_font_family"  # application property: the family in force before any language font


def register_fonts() -> list[str]:
    """Register the bundled fonts with Qt (once per file); returns the families they provide."""
    families: list[str] = []
    for relative in FONT_FILES:
        path = find_asset(relative)
        if path is None:
            continue
        font_id = QFontDatabase.addApplicationFont(str(path))
        if font_id >= 0:
            families += [f for f in QFontDatabase.applicationFontFamilies(font_id) if f not in families]
    return families


def families_for(language: str, base: str) -> list[str]:
    """The family list for a language: the TC face first for Chinese, after the base family otherwise."""
    return [TC_FAMILY, base] if language == "zh_TW" else [base, TC_FAMILY]


def apply_language_font(app: QApplication, language: str, point_size: float | None = None) -> QFont:
    """Set the application font's families for ``language`` (and its size, when given); returns it."""
    base = app.property(_BASE_FAMILY)
    if not isinstance(base, str) or not base:
        base = QFontInfo(app.font()).family()  # the real face: an alias ("Sans Serif") would lose to the TC face
        app.setProperty(_BASE_FAMILY, base)
    font = QFont(app.font())
    font.setFamilies(families_for(language, base))
    if point_size is not None:
        font.setPointSizeF(point_size)
    app.setFont(font)
    return font
