"""Make ``assets/fonts/NotoSansCJKtc-*-subset.otf``: Noto Sans CJK TC cut down to the characters the UI shows.

The characters are every translation in ``assets/translations/*.ts`` plus printable ASCII and the punctuation
and symbols the source texts use, so the subset covers exactly what the Traditional Chinese UI can draw. The
source is Debian's ``fonts-noto-cjk`` (``apt-get install fonts-noto-cjk``): face 3 of each ``.ttc`` is the
Traditional Chinese (TC) one, whose default glyphs are the Taiwanese forms, so the subset keeps no layout
features (their alternates would double the file). Licence: SIL OFL 1.1 (``assets/fonts/LICENSE-OFL.txt``).

    python tools/font_subset.py [--source-dir /usr/share/fonts/opentype/noto]

``tests/gui/test_fonts.py`` recomputes :func:`required_characters` and checks that the committed subset holds them.
"""

from __future__ import annotations

import argparse
import html
import re
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
TRANSLATIONS = REPO / "assets" / "translations"
FONTS = REPO / "assets" / "fonts"
TC_FACE = 3  # index of "Noto Sans CJK TC" in NotoSansCJK-*.ttc
WEIGHTS = ("Regular", "Bold")
EXTRA = "…—–−×÷·•°±≤≥≈→←↑↓⚠✓✗▶■αβγσΨψ√∞²³₀₁⁰¹⁴⁵⁶⁷⁸⁹≠“”‘’「」『』、。，：；！？（）【】《》〈〉～％＋／"


def ui_characters(translations: Path = TRANSLATIONS) -> set[str]:
    """Every character of every translation and source text in ``translations/*.ts``, plus ASCII and ``EXTRA``."""
    chars = {chr(c) for c in range(0x20, 0x7F)} | set(EXTRA)
    for ts in sorted(translations.glob("*.ts")):
        text = ts.read_text(encoding="utf-8")
        for body in re.findall(r"<(?:translation|source)[^>]*>(.*?)</(?:translation|source)>", text, re.S):
            chars |= set(html.unescape(body))
    return {c for c in chars if c.isprintable() and c != "\n"}


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
