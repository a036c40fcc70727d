"""setup.py: the wheel carries every data file the engine reads (catalogs, lessons) and the whole assets folder."""

from __future__ import annotations

import fnmatch
import runpy
import sys
import types
from pathlib import Path
from typing import Any

import pytest

REPO = Path(__file__).resolve().parents[2]


def setup_arguments(monkeypatch: pytest.MonkeyPatch) -> dict[str, Any]:
    """The keyword arguments setup.py passes to ``setuptools.setup`` (setuptools itself is not run)."""
    seen: dict[str, Any] = {}
    fake = types.ModuleType("setuptools")
    fake.setup = lambda **kw: seen.update(kw)  # type: ignore[attr-defined]
    fake.find_packages = lambda include=(): ["engine"]  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "setuptools", fake)
    runpy.run_path(str(REPO / "setup.py"))
    return seen


def test_every_engine_data_file_matches_a_package_data_glob(monkeypatch: pytest.MonkeyPatch) -> None:
    globs = setup_arguments(monkeypatch)["package_data"]["engine"]
    engine = REPO / "engine"
    data = [p.relative_to(engine).as_posix() for p in engine.rglob("*")
            if p.is_file() and p.suffix not in {".py", ".pyc", ".md"} and "__pycache__" not in p.parts]
    assert any(d.startswith("lessons/data/") for d in data)
    assert [d for d in data if not any(fnmatch.fnmatch(d, g) for g in globs)] == []


def test_assets_ship_as_gui_assets(monkeypatch: pytest.MonkeyPatch) -> None:
    kw = setup_arguments(monkeypatch)
    assert kw["package_dir"]["gui.assets"] == "assets"
    assert kw["package_data"]["gui.assets"] == ["**/*"]
