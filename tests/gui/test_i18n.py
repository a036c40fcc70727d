"""gui.i18n: every user-visible text is extractable by lupdate, and a compiled translation changes the UI."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from PySide6.QtWidgets import QApplication

from gui import i18n
from gui.pages import page_title

REPO = Path(__file__).resolve().parents[2]
BIN = Path(sys.executable).parent
LUPDATE = shutil.which("pyside6-lupdate", path=str(BIN)) or shutil.which("pyside6-lupdate")
LRELEASE = shutil.which("pyside6-lrelease", path=str(BIN)) or shutil.which("pyside6-lrelease")
needs_tools = pytest.mark.skipif(not (LUPDATE and LRELEASE), reason="pyside6-lupdate / lrelease not found")


def extract(ts: Path) -> str:
    sources = sorted(str(p) for p in (REPO / "gui").rglob("*.py"))
    subprocess.run([str(LUPDATE), *sources, "-ts", str(ts)], check=True, capture_output=True, timeout=120)
    return ts.read_text(encoding="utf-8")


@needs_tools
def test_user_visible_texts_are_extractable(tmp_path: Path) -> None:
    text = extract(tmp_path / "vramlab_xx.ts")
    for source in ("Memory", "Serving", "&amp;Quit", "Theme: &amp;dark", "Does not fit on {gpu}: short by {x}",
                   "About VRAM Lab", "VRAM Lab is MIT-licensed. It bundles:"):  # fmt: skip
        assert f"<source>{source}</source>" in text, source


@needs_tools
def test_a_compiled_translation_is_used(tmp_path: Path, qapp: QApplication, monkeypatch: pytest.MonkeyPatch) -> None:
    ts = tmp_path / "vramlab_zh_TW.ts"
    text = extract(ts).replace(
        '<source>Memory</source>\n        <translation type="unfinished"></translation>',
        "<source>Memory</source>\n        <translation>記憶體</translation>",
    )
    ts.write_text(text, encoding="utf-8")
    subprocess.run([str(LRELEASE), str(ts)], check=True, capture_output=True, timeout=120)
    monkeypatch.setattr(i18n, "find_asset", lambda rel: tmp_path / Path(rel).name)
    translators = i18n.install_translators(qapp, "zh_TW")
    try:
        assert translators
        assert page_title("memory") == "記憶體"
    finally:
        for translator in translators:
            qapp.removeTranslator(translator)
    assert page_title("memory") == "Memory"


def test_english_needs_no_translator(qapp: QApplication) -> None:
    assert i18n.install_translators(qapp, "en") == []
    assert i18n.system_language() in i18n.LANGUAGES
