"""gui.text.i18n: every user-visible text is extracted and translated, the committed .ts and .qm are current, and a
compiled translation changes the UI."""

from __future__ import annotations

import importlib
import re
import shutil
import sys
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtWidgets import QApplication

from gui.pages import page_title
from gui.settings import LANGUAGE_KEY, settings
from gui.text import i18n

REPO = Path(__file__).resolve().parents[3]
sys.path.insert(0, str(REPO / "tools"))
translations: Any = importlib.import_module("translations")  # tools/translations.py: the maintainers' extraction

TS = REPO / "assets" / "translations" / "vramlab_zh_TW.ts"
QM = TS.with_suffix(".qm")
BIN = Path(sys.executable).parent
HAVE_TOOLS = all(shutil.which(t, path=str(BIN)) or shutil.which(t) for t in ("pyside6-lupdate", "pyside6-lrelease"))
needs_tools = pytest.mark.skipif(not HAVE_TOOLS, reason="pyside6-lupdate / lrelease not found")
PLACEHOLDER = re.compile(r"\{[^}]*\}|<[^>]+>|&[a-z]+;|\n")


def messages(ts: Path = TS) -> list[tuple[str, str, ET.Element]]:
    root = ET.parse(ts).getroot()
    return [(c.findtext("name", ""), m.findtext("source", ""), m.find("translation"))  # type: ignore[misc]
            for c in root.iter("context") for m in c.iter("message")]


@needs_tools
def test_the_committed_ts_is_current(tmp_path: Path) -> None:
    """Re-extracting into a copy changes nothing: no new, vanished or moved text."""
    copy = tmp_path / TS.name
    shutil.copy(TS, copy)
    translations.update(copy)
    assert copy.read_text(encoding="utf-8") == TS.read_text(encoding="utf-8"), (
        "texts changed: run `python tools/translations.py update`, translate, then `... release`")


def test_every_message_is_translated_and_keeps_its_placeholders() -> None:
    found = messages()
    assert len(found) > 350
    for context, source, translation in found:
        assert translation is not None, f"{context}: {source!r} has no translation element"
        assert translation.get("type") is None, f"{context}: {source!r} is {translation.get('type')}"
        text = translation.text or ""
        assert text.strip(), f"{context}: {source!r} has no translation"
        assert sorted(PLACEHOLDER.findall(text)) == sorted(PLACEHOLDER.findall(source)), (context, source, text)


def test_key_texts_are_extracted() -> None:
    sources = {s for _, s, _ in messages()}
    for source in ("Memory", "Serving", "&Quit", "Theme: &dark", "About VRAM Lab", "&Presentation mode",
                   "Token embeddings", "The frozen reference is part of the loss.", "log-probs (KL)"):
        assert source in sources, source


@needs_tools
def test_the_committed_qm_is_compiled_from_the_ts(tmp_path: Path) -> None:
    fresh = tmp_path / QM.name
    translations.release(TS, fresh)
    assert fresh.read_bytes() == QM.read_bytes(), "stale .qm: run `python tools/translations.py release`"


def test_the_compiled_translation_is_used(qapp: QApplication) -> None:
    i18n.set_language(qapp, "zh_TW")
    try:
        assert page_title("memory") == "記憶體"
        assert i18n.current_language(qapp) == "zh_TW"
    finally:
        i18n.set_language(qapp, "en")
    assert page_title("memory") == "Memory"


def test_english_needs_no_translator_and_the_choice_is_remembered(qapp: QApplication) -> None:
    assert i18n.install_translators(qapp, "en") == []
    assert i18n.system_language() in i18n.LANGUAGES
    assert i18n.saved_language() == i18n.system_language()
    i18n.set_language(qapp, "zh_TW", remember=True)
    i18n.set_language(qapp, "en")
    assert settings().value(LANGUAGE_KEY) == "zh_TW"
    assert i18n.saved_language() == "zh_TW"
    with pytest.raises(ValueError, match="unknown language"):
        i18n.set_language(qapp, "fr")
