"""Make ``assets/fonts/NotoSansCJKtc-*-subset.otf``: Noto Sans CJK TC cut down to the characters the UI shows.

The characters are every translation in ``assets/translations/*.ts``, every character of the lessons (their data
files and the engine's sentences that check them, ``engine/lessons/``), the language names of the View menu
(``gui.text.i18n.LANGUAGE_NAMES``), Qt's own Traditional Chinese texts for the dialogs and controls the app shows
(``QT_CONTEXTS`` of PySide6's ``qtbase_zh_TW.qm``: file dialogs, message-box buttons, edit menus), printable
ASCII and common punctuation, so the subset covers what the Traditional Chinese UI can draw. The
source is Debian's ``fonts-noto-cjk`` (``apt-get install fonts-noto-cjk``): face 3 of each ``.ttc`` is the
Traditional Chinese (TC) one, whose default glyphs are the Taiwanese forms, so the subset keeps no layout
features (their alternates would double the file). Licence: SIL OFL 1.1 (``assets/fonts/LICENSE-OFL.txt``).

    python tools/font_subset.py [--source-dir /usr/share/fonts/opentype/noto]

``tests/gui/text/test_fonts.py`` recomputes :func:`required_characters` and checks that the committed subset holds them.
"""

from __future__ import annotations

import argparse
import ast
import html
import importlib.util
import re
import struct
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
TRANSLATIONS = REPO / "assets" / "translations"
LESSONS = REPO / "engine" / "lessons"
FONTS = REPO / "assets" / "fonts"
TC_FACE = 3  # index of "Noto Sans CJK TC" in NotoSansCJK-*.ttc
WEIGHTS = ("Regular", "Bold")
#: Qt's own translation contexts whose texts the app can show (its dialogs, buttons, edit menus, key names)
QT_CONTEXTS = frozenset({
    "QAbstractSpinBox", "QApplication", "QComboBox", "QDialog", "QDialogButtonBox", "QErrorMessage", "QFileDialog",
    "QFileSystemModel", "QGuiApplication", "QInputDialog", "QLineEdit", "QMessageBox", "QPlatformTheme",
    "QProgressDialog", "QScrollBar", "QShortcut", "QUnicodeControlCharacterMenu", "QWidgetTextControl",
})  # fmt: skip
QM_MAGIC = bytes.fromhex("3CB86418CAEF9C95CD211CBF60A1BDDD")
EXTRA = "…—–−×÷·•°±≤≥≈→←↑↓⚠✓✗▶■αβγσΨψ√∞²³₀₁⁰¹⁴⁵⁶⁷⁸⁹≠“”‘’「」『』、。，：；！？（）【】《》〈〉～％＋／"


def ui_characters(translations: Path = TRANSLATIONS) -> set[str]:
    """Every character of the ``.ts`` files, the language names, Qt's texts (``QT_CONTEXTS``), ASCII, ``EXTRA``."""
    chars = {chr(c) for c in range(0x20, 0x7F)} | set(EXTRA) | set("".join(language_names()))
    for ts in sorted(translations.glob("*.ts")):
        text = ts.read_text(encoding="utf-8")
        for body in re.findall(r"<(?:translation|source)[^>]*>(.*?)</(?:translation|source)>", text, re.S):
            chars |= set(html.unescape(body))
    for qm in qt_translations():
        chars |= {c for context, text in qm_messages(qm) if context in QT_CONTEXTS for c in text}
    chars |= lesson_characters()
    return {c for c in chars if c.isprintable() and c != "\n"}


def lesson_characters(folder: Path = LESSONS) -> set[str]:
    """Every character of the lessons' data files and of the engine modules that write their why-sentences (the
    lessons carry their own Chinese, outside the ``.ts`` files)."""
    chars: set[str] = set()
    for path in sorted(folder.rglob("*")):
        if path.suffix in (".json", ".py"):
            chars |= set(path.read_text(encoding="utf-8"))
    return chars


def language_names() -> list[str]:
    """``gui.text.i18n.LANGUAGE_NAMES``'s values, read from the source (no Qt import)."""
    tree = ast.parse((REPO / "gui" / "text" / "i18n.py").read_text(encoding="utf-8"))
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign) and any(getattr(t, "id", "") == "LANGUAGE_NAMES" for t in node.targets):
            return list(ast.literal_eval(node.value).values())
    raise LookupError("LANGUAGE_NAMES not found in gui/text/i18n.py")


def qt_translations() -> list[Path]:
    """PySide6's ``qtbase_<lang>.qm`` for each Chinese ``.ts`` here (none if PySide6 is not installed)."""
    spec = importlib.util.find_spec("PySide6")
    if spec is None or spec.origin is None:
        return []
    folder = Path(spec.origin).parent / "Qt" / "translations"
    langs = [ts.stem.removeprefix("vramlab_") for ts in TRANSLATIONS.glob("vramlab_zh*.ts")]
    return [folder / f"qtbase_{lang}.qm" for lang in langs if (folder / f"qtbase_{lang}.qm").exists()]


def qm_messages(path: Path) -> list[tuple[str, str]]:
    """(context, translation) of every message of a compiled ``.qm`` (Qt's binary format: tagged blocks; the
    messages block 0x69 holds records of tagged fields, 3 = translation in UTF-16BE, 7 = context in UTF-8)."""
    data = path.read_bytes()
    if data[:16] != QM_MAGIC:
        raise ValueError(f"{path} is not a .qm file")
    found, i = [], 16
    while i < len(data):
        tag, size = data[i], struct.unpack(">I", data[i + 1 : i + 5])[0]
        if tag == 0x69:
            found += _records(data[i + 5 : i + 5 + size])
        i += 5 + size
    return found


def _records(block: bytes) -> list[tuple[str, str]]:
    found: list[tuple[str, str]] = []
    fields: dict[int, bytes] = {}
    j = 0
    while j < len(block):
        tag = block[j]
        j += 1
        if tag == 1:  # end of a message
            text = fields.get(3, b"").decode("utf-16-be")
            found.append((fields.get(7, b"").decode("utf-8", "replace"), text))
            fields = {}
        elif tag != 5:  # 5: an obsolete flag without data
            size = struct.unpack(">I", block[j : j + 4])[0]
            j += 4
            if size != 0xFFFFFFFF:
                fields[tag] = block[j : j + size]
                j += size
    return found


def required_characters(translations: Path = TRANSLATIONS) -> set[str]:
    """What the subset must hold: ASCII, and every Han character and full-width sign of the UI. (Other signs,
    such as superscript digits, are not in Noto Sans CJK at all; the system's Latin font draws them, as it does
    in English.)"""
    return {c for c in ui_characters(translations) if c.isascii() or ord(c) >= 0x2E80}


def subset(source: Path, target: Path, chars: set[str]) -> None:
    """Write the TC face of ``source`` (a .ttc) holding only ``chars`` to ``target`` (OpenType/CFF)."""
    with tempfile.NamedTemporaryFile("w", suffix=".txt", encoding="utf-8", delete=False) as f:
        f.write("".join(sorted(chars)))
    subprocess.run(
        [sys.executable, "-m", "fontTools.subset", str(source), f"--font-number={TC_FACE}",
         f"--text-file={f.name}", f"--output-file={target}", "--layout-features=", "--no-hinting",
         "--name-IDs=*", "--name-languages=*"],
        check=True,
    )  # fmt: skip
    Path(f.name).unlink()


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--source-dir", type=Path, default=Path("/usr/share/fonts/opentype/noto"))
    args = p.parse_args()
    chars = ui_characters()
    for weight in WEIGHTS:
        target = FONTS / f"NotoSansCJKtc-{weight}-subset.otf"
        subset(args.source_dir / f"NotoSansCJK-{weight}.ttc", target, chars)
        print(f"{target.relative_to(REPO)}: {len(chars)} characters, {target.stat().st_size:,} bytes")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
