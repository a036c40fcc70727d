"""Sizes of the Linux installers and start-up time of the frozen app, against the budgets of issue 8.

Reads what ``make dist`` built (nothing is rebuilt here):

- ``onedir_mb``: the bundle ``dist/vramlab/``, the sum of its files' sizes (symbolic links not followed);
- ``deb_mb`` and ``tar_gz_mb``: the two download files;
- ``frozen_startup_median_s``: launch to first window painted, median over separate processes of the bundle's
  ``vramlab``, with the same probe as ``bench/startup.py`` (``VRAMLAB_STARTUP_PROBE``); the first start is a
  warm-up and is not counted;
- ``frozen_cold_startup_median_s`` (only when run as root on Linux): the same with the page cache dropped before
  every start (``/proc/sys/vm/drop_caches``), i.e. the first start after a reboot or an install.

MB are 10^6 bytes (what a download page shows). Without a display the app runs offscreen.

    python bench/dist.py [--runs 7] [--json] [--check]      # --check: exit 1 if a budget is exceeded
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tomllib
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from bench.startup import probe_seconds  # noqa: E402

DIST = REPO / "dist"
DROP_CACHES = Path("/proc/sys/vm/drop_caches")

#: figure -> the most it may be (issue 8)
BUDGETS = {"deb_mb": 80.0, "onedir_mb": 200.0, "frozen_startup_median_s": 1.5, "frozen_cold_startup_median_s": 1.5}


def version() -> str:
    project = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    return str(project["version"])


def artifacts() -> dict[str, Path]:
    """The three things ``make dist`` builds, by the figure's name."""
    v = version()
    return {
        "onedir_mb": DIST / "vramlab",
        "tar_gz_mb": DIST / f"vramlab-{v}-linux-x86_64.tar.gz",
        "deb_mb": DIST / f"vramlab_{v}_amd64.deb",
    }


def size_mb(path: Path) -> float:
    """A file's size, or the sum of a folder's files (links not followed), in MB of 10^6 bytes."""
    if path.is_file():
        return path.stat().st_size / 1e6
    total = sum(p.lstat().st_size for p in path.rglob("*") if p.is_file() and not p.is_symlink())
    return total / 1e6


def _drop_page_cache() -> None:
    os.sync()
    DROP_CACHES.write_text("3\n")


def one_start(exe: Path, env: dict[str, str], cold: bool) -> float:
    """One start of the frozen app (after dropping the disk cache when ``cold``)."""
    if cold:
        _drop_page_cache()
    return probe_seconds([str(exe)], env)


def can_drop_caches() -> bool:
    return sys.platform == "linux" and os.geteuid() == 0 and os.access(DROP_CACHES, os.W_OK)


def measure_startup(exe: Path, runs: int, cold: bool) -> list[float]:
    env = dict(os.environ)
    if sys.platform == "linux" and not (env.get("DISPLAY") or env.get("WAYLAND_DISPLAY")):
        env.setdefault("QT_QPA_PLATFORM", "offscreen")
    env.setdefault("VRAMLAB_SETTINGS_DIR", str(REPO / "build" / "bench-settings"))
    if not cold:
        one_start(exe, env, cold=False)  # warm-up, not counted
    return [one_start(exe, env, cold) for _ in range(runs)]


def figures(runs: int) -> dict[str, float | list[float]]:
    """Every figure that can be measured from what is in dist/ now."""
    out: dict[str, float | list[float]] = {}
    for name, path in artifacts().items():
        if path.exists():
            out[name] = round(size_mb(path), 1)
    exe = artifacts()["onedir_mb"] / "vramlab"
    if exe.exists():
        warm = measure_startup(exe, runs, cold=False)
        out["frozen_startup_median_s"] = round(statistics.median(warm), 3)
        out["frozen_startup_runs_s"] = [round(t, 3) for t in warm]
        if can_drop_caches():
            cold = measure_startup(exe, runs, cold=True)
            out["frozen_cold_startup_median_s"] = round(statistics.median(cold), 3)
            out["frozen_cold_startup_runs_s"] = [round(t, 3) for t in cold]
    return out


def over_budget(found: dict[str, float | list[float]]) -> list[str]:
    """One line per budget exceeded, or per figure that could not be measured."""
    problems = []
    for name, limit in BUDGETS.items():
        value = found.get(name)
        if value is None:
            if name != "frozen_cold_startup_median_s":  # needs root; the others need only make dist
                problems.append(f"{name}: not measured (run make dist first)")
        elif isinstance(value, float) and value > limit:
            problems.append(f"{name}: {value} > {limit}")
    return problems


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=7, help="counted starts (default 7)")
    parser.add_argument("--json", action="store_true", help="print the figures as one JSON object")
    parser.add_argument("--check", action="store_true", help="exit 1 if a figure is missing or over budget")
    args = parser.parse_args(argv)
    found = figures(args.runs)
    if args.json:
        print(json.dumps(found))
    else:
        for name, value in found.items():
            limit = BUDGETS.get(name)
            print(f"{name:32} {value}" + (f"   (budget <= {limit})" if limit is not None else ""))
    problems = over_budget(found)
    for line in problems:
        sys.stderr.write(f"budget: {line}\n")
    return 1 if args.check and problems else 0


if __name__ == "__main__":
    sys.exit(main())
