"""Every benchmark, one after the other, each in its own process; exits 1 when any misses a target.

    python bench/run_all.py        # or: make bench

Each benchmark prints its figures against its targets (``bench/machine.py``: the machine factor scales the
targets given per typical laptop). ``bench/dist.py`` (installer sizes, frozen start-up) needs ``make dist`` first
and runs only when a bundle is there. Timing is noisy on shared machines: rerun a miss before believing it.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
BENCHES = ("engine_speed.py", "gui_latency.py", "attention_fps.py", "snapshot_load.py", "startup.py")


def main() -> int:
    failed: list[str] = []
    runs = [[sys.executable, str(REPO / "bench" / name), "--check"] for name in BENCHES]
    if (REPO / "dist" / "vramlab").is_dir():
        runs.append([sys.executable, str(REPO / "bench" / "dist.py"), "--check"])
    else:
        print("dist.py: skipped (no bundle: make dist first)")
    for command in runs:
        name = Path(command[1]).name
        print(f"== {name}", flush=True)
        if subprocess.run(command, cwd=REPO, check=False).returncode:
            failed.append(name)
    print("all targets met" if not failed else f"missed a target: {', '.join(failed)}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
