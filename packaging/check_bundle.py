"""Check a built onedir bundle the way a user would meet it: start it, render every page, read its files.

    python packaging/check_bundle.py dist/vramlab        (make bundle-check; CI runs it after the tests)

Fails (exit 1, one line per problem) when:
- ``vramlab --version`` does not print the version in pyproject.toml (the one place it is set);
- ``vramlab --smoke-test`` (English, then Traditional Chinese) does not exit 0, or prints a traceback, or (on
  Linux, where this is tested) any Qt warning other than the offscreen platform's harmless one; elsewhere other
  warnings are printed, not failed on;
- ``vramlab --screenshot DIR`` does not write one 1280x800 PNG per page of the registry;
- a file the app reads at run time (assets/, the engine's catalogs) is missing from the bundle, a symbolic link
  in it is dangling, or (Linux) a Qt plugin the app needs was left out.
Runs the app offscreen, with its settings in a temporary folder. Windows and macOS builds are windowed (no
console), so their ``--version`` may print nothing; there only its exit status is checked.
"""

from __future__ import annotations

import os
import struct
import subprocess
import sys
import tempfile
import tomllib
from pathlib import Path

from bundle_files import data_files  # this folder's module: the spec's rule for data files

REPO = Path(__file__).resolve().parents[1]
# gui.pages, gui.shell.screenshot: the pages and the screenshot size the bundle must match
sys.path.insert(0, str(REPO))

#: stderr lines that are not problems: the offscreen platform cannot propagate size hints (as in pyproject.toml)
HARMLESS = ("This plugin does not support propagateSizeHints",)
#: Qt plugins the Linux bundle must keep (relative to PySide6/Qt/plugins)
NEEDED_LINUX_PLUGINS = (
    "platforms/libqxcb.so",  # X11 and XWayland desktops
    "platforms/libqwayland.so",  # Wayland desktops
    "platforms/libqoffscreen.so",  # --smoke-test, --screenshot without a display
    "imageformats/libqsvg.so",  # the SVG icons
    "iconengines/libqsvgicon.so",
    "xcbglintegrations/libqxcb-glx-integration.so",  # pyqtgraph's OpenGL paths on X11
)


def pyproject_version() -> str:
    return str(tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["project"]["version"])


def executable(onedir: Path) -> Path:
    return onedir / ("vramlab.exe" if sys.platform == "win32" else "vramlab")


def internal(onedir: Path) -> Path:
    """Where PyInstaller 6 puts everything but the executable (sys._MEIPASS)."""
    return onedir / "_internal"


def run(onedir: Path, *args: str, settings: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen", "VRAMLAB_SETTINGS_DIR": str(settings)}
    env.pop("VRAMLAB_STARTUP_PROBE", None)
    return subprocess.run(
        [str(executable(onedir)), *args], env=env, capture_output=True, text=True, timeout=300, check=False
    )


def noise(stderr: str) -> list[str]:
    """The stderr lines that are problems: on Linux all but the known harmless ones; elsewhere (untested here)
    tracebacks only, the other lines are shown."""
    lines = [line for line in stderr.splitlines() if line.strip() and not line.startswith(HARMLESS)]
    if sys.platform == "linux" or "Traceback (most recent call last):" in lines:
        return lines
    for line in lines:
        print(f"check_bundle: warning: {line}")
    return []


def check_version(onedir: Path, settings: Path) -> list[str]:
    result = run(onedir, "--version", settings=settings)
    if result.returncode != 0:
        return [f"--version exited {result.returncode}: {result.stderr.strip()}"]
    if sys.platform != "linux" and not result.stdout:  # windowed builds may have no stdout
        return []
    expected, got = f"vramlab {pyproject_version()}", result.stdout.strip()
    return [] if got == expected else [f"--version printed {got!r}, not {expected!r}"]


def check_smoke(onedir: Path, settings: Path) -> list[str]:
    problems = []
    for extra in ((), ("--lang", "zh_TW")):
        result = run(onedir, "--smoke-test", *extra, settings=settings)
        label = " ".join(("--smoke-test", *extra))
        if result.returncode != 0:
            problems.append(f"{label} exited {result.returncode}")
        problems += [f"{label}: {line}" for line in noise(result.stderr)]
    return problems


def png_size(path: Path) -> tuple[int, int] | None:
    head = path.read_bytes()[:24]
    if len(head) < 24 or head[:8] != b"\x89PNG\r\n\x1a\n":
        return None
    width, height = struct.unpack(">II", head[16:24])
    return width, height


def check_screenshots(onedir: Path, settings: Path, folder: Path) -> list[str]:
    from gui.pages import PAGE_IDS
    from gui.shell.screenshot import SIZE

    result = run(onedir, "--screenshot", str(folder), settings=settings)
    if result.returncode != 0:
        return [f"--screenshot exited {result.returncode}: {result.stderr.strip()}"]
    problems = [f"--screenshot: {line}" for line in noise(result.stderr)]
    for page_id in PAGE_IDS:
        shot = folder / f"{page_id}.png"
        size = png_size(shot) if shot.exists() else None
        if size != SIZE:
            problems.append(f"--screenshot: {shot.name} is {'missing' if size is None else size}, not {SIZE}")
    return problems


def check_files(onedir: Path) -> list[str]:
    inside = internal(onedir)
    wanted = [Path(dest) / Path(src).name for src, dest in data_files(REPO)]
    problems = [f"missing from the bundle: {rel.as_posix()}" for rel in wanted if not (inside / rel).is_file()]
    problems += [
        f"dangling link: {p.relative_to(onedir)}" for p in onedir.rglob("*") if p.is_symlink() and not p.exists()
    ]
    if sys.platform == "linux":
        plugins = inside / "PySide6" / "Qt" / "plugins"
        problems += [f"Qt plugin left out: {rel}" for rel in NEEDED_LINUX_PLUGINS if not (plugins / rel).is_file()]
    return problems


def check(onedir: Path) -> list[str]:
    if not executable(onedir).exists():
        return [f"no bundle at {onedir} (run make bundle)"]
    with tempfile.TemporaryDirectory(prefix="vramlab-check-") as tmp:
        settings, shots = Path(tmp) / "settings", Path(tmp) / "shots"
        return (
            check_files(onedir)
            + check_version(onedir, settings)
            + check_smoke(onedir, settings)
            + check_screenshots(onedir, settings, shots)
        )


def main(argv: list[str]) -> int:
    if len(argv) != 1:
        sys.stderr.write("usage: python packaging/check_bundle.py ONEDIR\n")
        return 2
    problems = check(Path(argv[0]))
    for line in problems:
        sys.stderr.write(f"check_bundle: {line}\n")
    if not problems:
        print(f"check_bundle: {argv[0]} OK (version, smoke test in en and zh_TW, screenshots, files, plugins)")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
