"""packaging/: the .deb's layout and control file, its launcher and its desktop entry.

``build_deb.sh`` runs on a stand-in bundle (a shell script), so this checks the package's shape in a second;
the real bundle in a real Debian is ``make deb-check``'s job.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import tomllib
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
PACKAGING = REPO / "packaging"

#: system libraries the issue names as the .deb's dependencies (the xcb ones are in depends.txt too)
REQUIRED_DEPENDS = {
    "libgl1", "libegl1", "libfontconfig1", "libxkbcommon0", "libxkbcommon-x11-0", "libdbus-1-3", "libxcb-cursor0",
}  # fmt: skip


def depends() -> list[str]:
    lines = (PACKAGING / "deb" / "depends.txt").read_text().splitlines()
    return [line.strip() for line in lines if line.strip() and not line.startswith("#")]


def test_depends_lists_the_libraries_qt_loads() -> None:
    declared = set(depends())
    assert declared >= REQUIRED_DEPENDS
    assert declared >= {"libxcb1", "libxcb-icccm4", "libxcb-xkb1", "libx11-xcb1"}


def test_launcher_starts_the_bundle_in_opt() -> None:
    launcher = PACKAGING / "vramlab.sh"
    assert os.access(launcher, os.X_OK)
    assert 'exec /opt/vramlab/vramlab "$@"' in launcher.read_text()


def desktop_entry() -> dict[str, str]:
    lines = (PACKAGING / "vramlab.desktop").read_text().splitlines()
    return dict(line.split("=", 1) for line in lines if "=" in line)


def test_desktop_entry_starts_the_launcher_with_the_app_icon() -> None:
    entry = desktop_entry()
    assert entry["Exec"] == "vramlab"  # /usr/bin/vramlab
    assert entry["Icon"] == "vramlab"  # hicolor/*/apps/vramlab.{svg,png}
    assert entry["StartupWMClass"] == "vramlab"  # QApplication.setDesktopFileName("vramlab") in gui/app.py


@pytest.mark.skipif(shutil.which("desktop-file-validate") is None, reason="apt-get install desktop-file-utils")
def test_desktop_entry_validates() -> None:
    result = subprocess.run(
        ["desktop-file-validate", str(PACKAGING / "vramlab.desktop")], capture_output=True, text=True, check=False
    )
    assert result.returncode == 0
    assert result.stdout + result.stderr == ""  # no hints or warnings either


@pytest.fixture
def built_deb(tmp_path: Path) -> Path:
    """build_deb.sh run on a stand-in onedir (a script called vramlab), quickly compressed."""
    onedir, icons = tmp_path / "vramlab", tmp_path / "icons"
    (onedir / "_internal").mkdir(parents=True)
    (onedir / "vramlab").write_text("#!/bin/sh\necho vramlab\n")
    (onedir / "vramlab").chmod(0o755)
    icons.mkdir()
    for size in (16, 256):
        (icons / f"vramlab-{size}.png").write_bytes(b"\x89PNG\r\n\x1a\n")
    deb = tmp_path / "out" / "vramlab.deb"
    env = {**os.environ, "DEB_COMPRESS": "zstd", "DEB_LEVEL": "1", "DEB_STAGE": str(tmp_path / "stage")}
    subprocess.run(
        ["sh", str(PACKAGING / "build_deb.sh"), str(onedir), str(icons), str(deb)],
        env=env, capture_output=True, text=True, timeout=60, check=True,
    )  # fmt: skip
    return deb


@pytest.mark.skipif(shutil.which("dpkg-deb") is None, reason="needs dpkg-deb (Debian/Ubuntu)")
def test_deb_installs_under_opt_with_launcher_menu_entry_and_icons(built_deb: Path) -> None:
    listing = subprocess.run(["dpkg-deb", "-c", str(built_deb)], capture_output=True, text=True, check=True).stdout
    files = {line.split()[-1].removeprefix(".") for line in listing.splitlines() if not line.startswith("d")}
    assert {
        "/opt/vramlab/vramlab",
        "/usr/bin/vramlab",
        "/usr/share/applications/vramlab.desktop",
        "/usr/share/icons/hicolor/scalable/apps/vramlab.svg",
        "/usr/share/icons/hicolor/16x16/apps/vramlab.png",
        "/usr/share/icons/hicolor/256x256/apps/vramlab.png",
        "/usr/share/doc/vramlab/copyright",
    } <= files
    assert all(p.startswith(("/opt/vramlab/", "/usr/")) for p in files)
    assert "-rwxr-xr-x root/root" in next(line for line in listing.splitlines() if line.endswith("/usr/bin/vramlab"))


@pytest.mark.skipif(shutil.which("dpkg-deb") is None, reason="needs dpkg-deb (Debian/Ubuntu)")
def test_deb_control_has_version_from_pyproject_and_dependencies(built_deb: Path) -> None:
    def field(name: str) -> str:
        return subprocess.run(
            ["dpkg-deb", "-f", str(built_deb), name], capture_output=True, text=True, check=True
        ).stdout.strip()

    version = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]["version"]
    assert field("Package") == "vramlab"
    assert field("Version") == version
    assert field("Architecture") == "amd64"
    declared = [d.strip() for d in field("Depends").split(",")]
    assert declared[0].startswith("libc6 (>= 2.")
    assert declared[1:] == depends()
