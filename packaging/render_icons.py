"""Render the app icon (``assets/icons/vramlab.svg``) to PNG files for installers and desktop menus.

    python packaging/render_icons.py OUT_DIR      # writes OUT_DIR/vramlab-<size>.png for every size below

The PNGs are build outputs, not sources: they are made from the SVG on every build so they cannot drift from it.
The .deb installs them under /usr/share/icons/hicolor/<size>x<size>/apps; PyInstaller turns the 512 px one into
the Windows .ico and the macOS .icns (with Pillow). Runs headless (Qt's offscreen platform).
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

SIZES = (16, 24, 32, 48, 64, 128, 256, 512)
SVG = Path(__file__).resolve().parents[1] / "assets" / "icons" / "vramlab.svg"


def render(out_dir: Path) -> list[Path]:
    """Write one PNG per size into ``out_dir``; returns their paths."""
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    from PySide6.QtCore import Qt
    from PySide6.QtGui import QGuiApplication, QImage, QPainter
    from PySide6.QtSvg import QSvgRenderer

    _app = QGuiApplication.instance() or QGuiApplication([])
    renderer = QSvgRenderer(str(SVG))
    if not renderer.isValid():
        raise SystemExit(f"render_icons: cannot read {SVG}")
    out_dir.mkdir(parents=True, exist_ok=True)
    written = []
    for size in SIZES:
        image = QImage(size, size, QImage.Format.Format_ARGB32_Premultiplied)
        image.fill(Qt.GlobalColor.transparent)
        painter = QPainter(image)
        renderer.render(painter)
        painter.end()
        path = out_dir / f"vramlab-{size}.png"
        if not image.save(str(path)):
            raise SystemExit(f"render_icons: cannot write {path}")
        written.append(path)
    return written


if __name__ == "__main__":
    if len(sys.argv) != 2:
        raise SystemExit("usage: python packaging/render_icons.py OUT_DIR")
    for png in render(Path(sys.argv[1])):
        print(png)
