"""The one asset accessor: finds ``assets/`` from a checkout, an installed wheel and a PyInstaller bundle.

Every file the GUI loads (icons, translations, fonts) is named by its path relative to ``assets/``, e.g.
``asset_path("icons/vramlab.svg")``; the frozen build's spec maps the same relative paths.

Search order:
1. ``sys._MEIPASS/assets`` in a PyInstaller bundle;
2. ``gui/assets`` inside the installed package (the wheel ships it there);
3. ``<checkout>/assets`` next to the ``gui`` package (a source checkout or an editable install).
"""

from __future__ import annotations

import sys
from functools import cache
from pathlib import Path

_GUI_DIR = Path(__file__).resolve().parent


class AssetError(FileNotFoundError):
    """An asset that is in none of the places searched."""


def _candidates() -> list[Path]:
    found: list[Path] = []
    bundle = getattr(sys, "_MEIPASS", None)
    if bundle:
        found.append(Path(bundle) / "assets")
    found.append(_GUI_DIR / "assets")
    found.append(_GUI_DIR.parent / "assets")
    return found


@cache
def assets_dir() -> Path:
    """The folder holding VRAM Lab's assets (the first candidate that exists)."""
    for folder in _candidates():
        if (folder / "icons").is_dir():
            return folder
    raise AssetError(f"assets/ not found; looked in: {', '.join(str(p) for p in _candidates())}")


def asset_path(relative: str) -> Path:
    """The path of one asset, e.g. ``asset_path("icons/vramlab.svg")``; raises ``AssetError`` if missing."""
    path = assets_dir() / relative
    if not path.exists():
        raise AssetError(f"missing asset: {relative} (in {assets_dir()})")
    return path


def find_asset(relative: str) -> Path | None:
    """Like ``asset_path`` but ``None`` when the asset is absent (optional files such as translations)."""
    path = assets_dir() / relative
    return path if path.exists() else None
