"""build.spec: the frozen build carries every file the app reads, and leaves out only what it never loads.

The spec is executed with stand-ins for PyInstaller's classes and helpers (no PyInstaller run: that takes a
minute and is what ``make bundle-check`` does), so these tests see exactly the lists the spec hands to PyInstaller.
"""

from __future__ import annotations

import sys
import tomllib
import types
from pathlib import Path
from typing import Any

import pytest

REPO = Path(__file__).resolve().parents[1]
SPEC = REPO / "build.spec"

#: files under assets/ and engine/ that the app never reads, so the bundle may leave them out
NOT_READ_AT_RUN_TIME = {".md", ".ts"}


class Recorder:
    """Stands in for Analysis, PYZ, EXE, COLLECT and BUNDLE: remembers its arguments."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        self.args, self.kwargs = args, kwargs


def run_spec(
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
    binaries: list[tuple[str, str, str]] | None = None,
    datas: list[tuple[str, str, str]] | None = None,
    links: dict[str, list[str]] | None = None,
) -> dict[str, Any]:
    """Execute build.spec; Analysis returns ``binaries`` and ``datas`` as if its hooks had collected them, and
    each binary links to the libraries named in ``links`` (by source path)."""
    metadata_asked: list[str] = []

    def copy_metadata(name: str) -> list[tuple[str, str]]:
        metadata_asked.append(name)
        return [(f"/site-packages/{name}.dist-info", f"{name}.dist-info")]

    hooks = types.ModuleType("PyInstaller.utils.hooks")
    hooks.collect_submodules = lambda package, **_kw: [package, f"{package}.some_module"]  # type: ignore[attr-defined]
    hooks.copy_metadata = copy_metadata  # type: ignore[attr-defined]
    bindepend = types.ModuleType("PyInstaller.depend.bindepend")
    bindepend.get_imports = lambda src: [(name, f"/usr/lib/{name}") for name in (links or {}).get(src, [])]  # type: ignore[attr-defined]
    for name in ("PyInstaller", "PyInstaller.utils", "PyInstaller.depend"):
        monkeypatch.setitem(sys.modules, name, types.ModuleType(name))
    monkeypatch.setitem(sys.modules, "PyInstaller.utils.hooks", hooks)
    monkeypatch.setitem(sys.modules, "PyInstaller.depend.bindepend", bindepend)
    monkeypatch.setattr(sys, "path", list(sys.path))

    class Analysis(Recorder):
        def __init__(self, *args: Any, **kwargs: Any) -> None:
            super().__init__(*args, **kwargs)
            self.binaries = list(binaries or [])
            self.datas = [(dest, src, "DATA") for src, dest in kwargs["datas"]] + list(datas or [])
            self.pure: list[Any] = []
            self.scripts: list[Any] = []

    namespace: dict[str, Any] = {
        "SPECPATH": str(REPO),
        "workpath": str(tmp_path),
        "Analysis": Analysis,
        "PYZ": Recorder,
        "EXE": Recorder,
        "COLLECT": Recorder,
        "BUNDLE": Recorder,
    }
    exec(compile(SPEC.read_text(encoding="utf-8"), str(SPEC), "exec"), namespace)
    namespace["metadata_asked"] = metadata_asked
    return namespace


def shipped(spec: dict[str, Any]) -> set[tuple[str, str]]:
    """(source file relative to the checkout, destination folder) for every data file the spec passes on."""
    return {
        (Path(src).relative_to(REPO).as_posix(), dest)
        for src, dest in spec["a"].kwargs["datas"]
        if Path(src).is_relative_to(REPO)
    }


def test_every_file_the_app_reads_is_in_the_bundle_at_its_relative_path(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    data = shipped(run_spec(monkeypatch, tmp_path))
    on_disk = [
        p
        for top in ("assets", "engine")
        for p in (REPO / top).rglob("*")
        if p.is_file() and p.suffix not in {".py", ".pyc"} and "__pycache__" not in p.parts
    ]
    relative = [(p, p.relative_to(REPO).as_posix(), p.parent.relative_to(REPO).as_posix()) for p in on_disk]
    missing = [p for p, source, folder in relative if (source, folder) not in data]
    assert [p for p in missing if p.suffix not in NOT_READ_AT_RUN_TIME] == []
    # gui.resources reads sys._MEIPASS/assets/...; engine.catalog reads its package folder
    assert ("assets/icons/vramlab.svg", "assets/icons") in data
    assert {p.name for p in (REPO / "engine" / "catalog").glob("*.json")} <= {
        Path(src).name for src, dest in data if dest == "engine/catalog"
    }
    assert {Path(src).name for src, dest in data if dest == "assets/icons/pages"} >= {"memory.svg", "serving.svg"}
    lessons = {p.name for p in (REPO / "engine" / "lessons" / "data").glob("*.json")}  # engine.lessons reads them
    assert len(lessons) >= 10
    assert lessons <= {Path(src).name for src, dest in data if dest == "engine/lessons/data"}


def test_pages_and_engine_are_collected_whole_for_lazy_imports(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    hidden = run_spec(monkeypatch, tmp_path)["a"].kwargs["hiddenimports"]
    assert {"gui", "gui.some_module", "engine", "engine.some_module", "pyqtgraph"} <= set(hidden)


def test_metadata_for_the_versions_about_shows(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    from gui.shell.about import BUNDLED

    asked = run_spec(monkeypatch, tmp_path)["metadata_asked"]
    assert "vramlab" in asked
    assert {name for name, _ in BUNDLED if name not in ("Qt", "PySide6")} <= set(asked)


def test_version_and_names(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    spec = run_spec(monkeypatch, tmp_path)
    pyproject = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))
    assert spec["VERSION"] == pyproject["project"]["version"]
    assert spec["exe"].kwargs["name"] == spec["coll"].kwargs["name"] == "vramlab"
    # strip=True breaks numpy's OpenBLAS; OpenGL must stay for pyqtgraph (ENVIRONMENT.md)
    assert spec["exe"].kwargs["strip"] is False
    assert spec["coll"].kwargs["strip"] is False
    assert not any(m.startswith(("PySide6.QtOpenGL", "PySide6.QtSvg")) for m in spec["EXCLUDED_MODULES"])


def lib(dest: str, kind: str = "BINARY") -> tuple[str, str, str]:
    return (dest, f"/src/{dest}", kind)


def test_unused_plugins_translations_and_their_libraries_are_left_out(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    plugins = "PySide6/Qt/plugins"
    binaries = [
        lib(f"{plugins}/platforms/libqxcb.so"),
        lib(f"{plugins}/platforms/libqoffscreen.so"),
        lib(f"{plugins}/platforms/libqeglfs.so"),
        lib(f"{plugins}/platformthemes/libqgtk3.so"),
        lib(f"{plugins}/platformthemes/libqxdgdesktopportal.so"),
        lib(f"{plugins}/imageformats/libqsvg.so"),
        lib(f"{plugins}/imageformats/libqjpeg.so"),
        lib(f"{plugins}/tls/libqopensslbackend.so"),
        lib("PySide6/plugins/platforms/qwindows.dll"),  # Windows layout
        lib("PySide6/QtCore.abi3.so", "EXTENSION"),
        lib("libxcb-cursor.so.0"),  # needed by the xcb platform
        lib("libgtk-only.so.1"),  # needed only by the GTK theme
    ]
    datas = [
        ("PySide6/Qt/translations/qtbase_zh_TW.qm", "/src/qtbase_zh_TW.qm", "DATA"),
        ("PySide6/Qt/translations/qtbase_de.qm", "/src/qtbase_de.qm", "DATA"),
        ("PySide6/Qt/translations/qt_zh_TW.qm", "/src/qt_zh_TW.qm", "DATA"),
        ("libxcb-cursor.so", "libxcb-cursor.so.0", "SYMLINK"),
        ("libgtk-only.so", "libgtk-only.so.1", "SYMLINK"),
        ("PySide6/Qt/lib/libgtk-only.so.1", "../../../libgtk-only.so.1", "SYMLINK"),
        ("PySide6/Qt/lib/libgtk.so", "libgtk-only.so.1", "SYMLINK"),  # a link to a dropped link
        ("PySide6/Qt/lib/QtCore.framework/Versions/Current", "A", "SYMLINK"),  # macOS: a link to a folder
    ]
    links = {
        f"/src/{plugins}/platforms/libqxcb.so": ["libxcb-cursor.so.0"],
        f"/src/{plugins}/platformthemes/libqgtk3.so": ["libgtk-only.so.1"],
    }
    spec = run_spec(monkeypatch, tmp_path, binaries, datas, links)
    kept_binaries = {dest for dest, _, _ in spec["a"].binaries}
    assert kept_binaries == {
        f"{plugins}/platforms/libqxcb.so",
        f"{plugins}/platforms/libqoffscreen.so",
        f"{plugins}/platformthemes/libqxdgdesktopportal.so",
        f"{plugins}/imageformats/libqsvg.so",
        "PySide6/plugins/platforms/qwindows.dll",
        "PySide6/QtCore.abi3.so",
        "libxcb-cursor.so.0",
    }
    kept_datas = {dest for dest, _, kind in spec["a"].datas if kind != "DATA" or dest.startswith("PySide6")}
    # no dangling link: the GTK library went, and so did the links to it; other links stay
    assert kept_datas == {
        "PySide6/Qt/translations/qtbase_zh_TW.qm",
        "libxcb-cursor.so",
        "PySide6/Qt/lib/QtCore.framework/Versions/Current",
    }
