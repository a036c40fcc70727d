"""Start-up time of the desktop app against a bare PySide6 + pyqtgraph window, started the same way, interleaved.

Each run starts ``python -m gui`` afresh with ``VRAMLAB_STARTUP_PROBE`` holding the launch time; the app prints
``startup_s=...`` at its window's first paint and quits (``gui/startup_probe.py``). ``bench/bare_window.py`` does
the same with one plot and nothing else. The two alternate (app, bare, app, bare, ...) so that both see the same
machine load; the first pair is a warm-up (disk cache, and the bytecode cache: both run without
``PYTHONDONTWRITEBYTECODE``, so that the app's modules load from ``__pycache__`` as an installed app's do and as the
bare window's libraries do) and is not counted. Target: the app's median within 1.3x the bare window's (a ratio:
no machine factor needed). Without a display both run offscreen.

    python bench/startup.py [--runs 7] [--json] [--check]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
TARGET_RATIO = 1.3


def probe_seconds(command: list[str], env: dict[str, str], cwd: Path | None = None) -> float:
    """Seconds from spawning ``command`` (the app, from source or frozen) to the first paint of its window, as
    the app's start-up probe reports them (gui/startup_probe.py)."""
    launched = time.time()
    result = subprocess.run(
        command,
        cwd=cwd,
        env={**env, "VRAMLAB_STARTUP_PROBE": repr(launched)},
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    line = next(x for x in result.stdout.splitlines() if x.startswith("startup_s="))
    return float(line.partition("=")[2])


def one_start(env: dict[str, str]) -> float:
    """One cold start of the app from source."""
    return probe_seconds([sys.executable, "-m", "gui"], env, cwd=REPO)


def one_bare(env: dict[str, str]) -> float:
    """One cold start of the bare PySide6 + pyqtgraph window."""
    return probe_seconds([sys.executable, str(REPO / "bench" / "bare_window.py")], env, cwd=REPO)


def measure(runs: int) -> tuple[list[float], list[float]]:
    """(app, bare) start-up seconds, interleaved."""
    env = dict(os.environ)
    env.pop("PYTHONDONTWRITEBYTECODE", None)  # else every start of a checkout compiles the app's modules again
    if sys.platform == "linux" and not (env.get("DISPLAY") or env.get("WAYLAND_DISPLAY")):
        env.setdefault("QT_QPA_PLATFORM", "offscreen")
    env.setdefault("VRAMLAB_SETTINGS_DIR", str(REPO / "build" / "bench-settings"))
    one_start(env), one_bare(env)  # warm-up, not counted
    app: list[float] = []
    bare: list[float] = []
    for _ in range(runs):
        app.append(one_start(env))
        bare.append(one_bare(env))
    return app, bare


def main(argv: list[str] | None = None) -> int:
    from bench.machine import Target, report

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=7, help="counted starts of each (default 7)")
    parser.add_argument("--json", action="store_true", help="print the figures and targets as JSON")
    parser.add_argument("--check", action="store_true", help="exit 1 when a target is missed")
    args = parser.parse_args(argv)
    app, bare = measure(args.runs)
    median, baseline = statistics.median(app), statistics.median(bare)
    ratio = round(median / baseline, 3)
    result = {"median_s": round(median, 4), "bare_median_s": round(baseline, 4), "ratio": ratio,
              "runs_s": [round(t, 4) for t in app], "bare_runs_s": [round(t, 4) for t in bare]}
    if not args.json:
        print(f"first window: app median {median:.3f} s, bare PySide6 + pyqtgraph window {baseline:.3f} s "
              f"over {len(app)} interleaved starts each")
    missed = report(result, [Target("start-up over a bare window", ratio, TARGET_RATIO, "x")], args.json)
    return missed if args.check else 0


if __name__ == "__main__":
    sys.exit(main())
