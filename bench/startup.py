"""Start-up time of the desktop app against a bare PySide6 + pyqtgraph window, started the same way, interleaved.

Each run starts ``python -m gui`` afresh with ``VRAMLAB_STARTUP_PROBE`` holding the launch time; the app prints
``startup_s=...`` at its window's first paint, with ``startup_cpu_s=...`` (the process's CPU time by then), then
``settled_s=...`` once what the first paint did not wait for (the memory page's charts) is drawn, and quits
(``gui/shell/startup_probe.py``). ``bench/bare_window.py`` does the same with one plot and nothing else. The two
alternate (app, bare, app, bare, ...) so that both see the same machine load; the first pair is a warm-up (disk cache,
and the bytecode cache: both run without ``PYTHONDONTWRITEBYTECODE``, so that the app's modules load from
``__pycache__`` as an installed app's do and as the bare window's libraries do) and is not counted.

Targets (ratios within one run: no machine factor needed): the app's median first paint within 1.3x the bare
window's, and its median settled time (the whole first page drawn, its charts too: issue 24) within 1.3x the bare
window's settled time. Also reported, against no target: the same ratio of CPU times by the first paint (steadier
than the wall clock on a machine other jobs share). Without a display both run offscreen.

    python bench/startup.py [--runs 15] [--json] [--check]
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
FIGURES = ("startup_s", "startup_cpu_s", "settled_s")


def probe(command: list[str], env: dict[str, str], cwd: Path | None = None) -> dict[str, float]:
    """The figures the start-up probe prints (``startup_s``: seconds from spawning ``command``, the app from source
    or frozen, to the first paint of its window; gui/shell/startup_probe.py), by name."""
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
    found = dict(line.partition("=")[::2] for line in result.stdout.splitlines() if "=" in line)
    return {name: float(value) for name, value in found.items() if name in FIGURES}


def probe_seconds(command: list[str], env: dict[str, str], cwd: Path | None = None) -> float:
    """Seconds from spawning ``command`` to the first paint of its window (``startup_s``)."""
    return probe(command, env, cwd)["startup_s"]


def one_start(env: dict[str, str]) -> dict[str, float]:
    """One cold start of the app from source."""
    return probe([sys.executable, "-m", "gui"], env, cwd=REPO)


def one_bare(env: dict[str, str]) -> dict[str, float]:
    """One cold start of the bare PySide6 + pyqtgraph window."""
    return probe([sys.executable, str(REPO / "bench" / "bare_window.py")], env, cwd=REPO)


def measure(runs: int) -> tuple[list[dict[str, float]], list[dict[str, float]]]:
    """(app, bare) figures of each start, interleaved."""
    env = dict(os.environ)
    env.pop("PYTHONDONTWRITEBYTECODE", None)  # else every start of a checkout compiles the app's modules again
    if sys.platform == "linux" and not (env.get("DISPLAY") or env.get("WAYLAND_DISPLAY")):
        env.setdefault("QT_QPA_PLATFORM", "offscreen")
    env.setdefault("VRAMLAB_SETTINGS_DIR", str(REPO / "build" / "bench-settings"))
    one_start(env), one_bare(env)  # warm-up, not counted
    app: list[dict[str, float]] = []
    bare: list[dict[str, float]] = []
    for _ in range(runs):
        app.append(one_start(env))
        bare.append(one_bare(env))
    return app, bare


def summary(app: list[dict[str, float]], bare: list[dict[str, float]]) -> dict[str, object]:
    """Medians of each figure, the app's over the bare window's, and every run's first paint."""
    out: dict[str, object] = {}
    for name, key in (("startup_s", ""), ("startup_cpu_s", "cpu_"), ("settled_s", "settled_")):
        median = statistics.median(r[name] for r in app)
        baseline = statistics.median(r[name] for r in bare)
        out |= {f"{key}median_s": round(median, 4), f"bare_{key}median_s": round(baseline, 4),
                f"{key}ratio": round(median / baseline, 3)}
    out |= {"runs_s": [r["startup_s"] for r in app], "bare_runs_s": [r["startup_s"] for r in bare]}
    return out


def main(argv: list[str] | None = None) -> int:
    from bench.machine import Target, report

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=15, help="counted starts of each (default 15)")
    parser.add_argument("--json", action="store_true", help="print the figures and targets as JSON")
    parser.add_argument("--check", action="store_true", help="exit 1 when a target is missed")
    args = parser.parse_args(argv)
    app, bare = measure(args.runs)
    result = summary(app, bare)
    if not args.json:
        print(f"over {len(app)} interleaved starts each, medians, app / bare PySide6 + pyqtgraph window:")
        print(f"  first paint {result['median_s']:.3f} s / {result['bare_median_s']:.3f} s = {result['ratio']}x")
        print(f"  CPU time by the first paint {result['cpu_median_s']:.3f} s / {result['bare_cpu_median_s']:.3f} s "
              f"= {result['cpu_ratio']}x")
        print(f"  settled (first page fully drawn) {result['settled_median_s']:.3f} s / "
              f"{result['bare_settled_median_s']:.3f} s = {result['settled_ratio']}x")
    ratio, settled = result["ratio"], result["settled_ratio"]
    assert isinstance(ratio, float)
    assert isinstance(settled, float)
    targets = [Target("first paint over a bare window's", ratio, TARGET_RATIO, "x"),
               Target("first page settled over a bare window's", settled, TARGET_RATIO, "x")]
    missed = report(result, targets, args.json)
    return missed if args.check else 0


if __name__ == "__main__":
    sys.exit(main())
