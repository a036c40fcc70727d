"""Start-up time of the desktop app: launch to first window painted, median over separate processes.

Each run starts ``python -m gui`` afresh with ``VRAMLAB_STARTUP_PROBE`` holding the launch time; the app prints
``startup_s=...`` at its window's first paint and quits (``gui/startup_probe.py``). The first run is a warm-up
(disk cache) and is not counted. Without a display the app runs offscreen.

    python bench/startup.py [--runs 7] [--json]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
TARGET_S = 1.0


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
    """One cold start from source."""
    return probe_seconds([sys.executable, "-m", "gui"], env, cwd=REPO)


def measure(runs: int) -> list[float]:
    env = dict(os.environ)
    if sys.platform == "linux" and not (env.get("DISPLAY") or env.get("WAYLAND_DISPLAY")):
        env.setdefault("QT_QPA_PLATFORM", "offscreen")
    env.setdefault("VRAMLAB_SETTINGS_DIR", str(REPO / "build" / "bench-settings"))
    one_start(env)  # warm-up, not counted
    return [one_start(env) for _ in range(runs)]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=7, help="counted starts (default 7)")
    parser.add_argument("--json", action="store_true", help='print {"median_s": ...} and the runs as JSON')
    args = parser.parse_args(argv)
    times = measure(args.runs)
    median = statistics.median(times)
    if args.json:
        print(json.dumps({"median_s": round(median, 4), "runs_s": [round(t, 4) for t in times]}))
    else:
        print(f"first window: median {median:.3f} s over {len(times)} starts (target <= {TARGET_S:.1f} s)")
        print("runs: " + ", ".join(f"{t:.3f}" for t in times))
    return 0


if __name__ == "__main__":
    sys.exit(main())
