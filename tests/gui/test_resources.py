"""gui.resources: assets found from a checkout, a wheel layout and a PyInstaller bundle."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from PySide6.QtGui import QIcon
from pytestqt.qtbot import QtBot

from gui import resources

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture(autouse=True)
def fresh_cache() -> None:
    resources.assets_dir.cache_clear()


def test_checkout_assets() -> None:
    assert resources.assets_dir() == REPO / "assets"
    assert resources.asset_path("icons/vramlab.svg").is_file()
    assert resources.find_asset("translations/vramlab_xx.qm") is None
    with pytest.raises(resources.AssetError, match="missing asset"):
        resources.asset_path("nope.svg")


def test_frozen_bundle_comes_first(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    shutil.copytree(REPO / "assets" / "icons", tmp_path / "assets" / "icons")
    monkeypatch.setattr("sys._MEIPASS", str(tmp_path), raising=False)
    assert resources.assets_dir() == tmp_path / "assets"


def test_wheel_layout_inside_the_package(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    gui_dir = tmp_path / "site-packages" / "gui"
    shutil.copytree(REPO / "assets" / "icons", gui_dir / "assets" / "icons")
    monkeypatch.setattr(resources, "_GUI_DIR", gui_dir)
    assert resources.assets_dir() == gui_dir / "assets"


def test_missing_everywhere(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(resources, "_GUI_DIR", tmp_path / "a" / "gui")
    with pytest.raises(resources.AssetError, match="not found"):
        resources.assets_dir()


def test_icons_load(qtbot: QtBot) -> None:
    for svg in (REPO / "assets" / "icons").rglob("*.svg"):
        assert not QIcon(str(svg)).pixmap(32, 32).isNull(), svg.name
