"""Every benchmark, one after the other, each in its own process; exits 1 when any misses a target.

    python bench/run_all.py        # or: make bench

Each benchmark prints its figures against its targets (``bench/machine.py``: the machine factor scales the
targets given per typical laptop; ``bench/startup.py``'s target is a ratio to a bare window started beside it).
A benchmark that misses a target, or fails to run, makes the whole run fail; all of them run regardless.
``bench/dist.py`` (installer sizes, frozen start-up) needs ``make dist`` first and runs only when a bundle is there.
Timing is noisy on shared machines: rerun a miss before believing it (``bench/gui_latency.py --cpu`` checks its
target against the main thread's CPU time, which other jobs on the machine do not inflate).
"""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
BENCHES = ("engine_speed.py", "gui_latency.py", "attention_fps.py", "snapshot_load.py", "startup.py",
           "allocator_replay.py")


def run(commands: Sequence[Sequence[str]]) -> list[str]:
    """Run each benchmark command (its script's path second) from the repository root; the scripts that failed."""
    failed: list[str] = []
    for command in commands:
        name = Path(command[1]).name
        print(f"== {name}", flush=True)
        if subprocess.run(list(command), cwd=REPO, check=False).returncode:
            failed.append(name)
    return failed


def main() -> int:
    commands = [[sys.executable, str(REPO / "bench" / name), "--check"] for name in BENCHES]
    if (REPO / "dist" / "vramlab").is_dir():
        commands.append([sys.executable, str(REPO / "bench" / "dist.py"), "--check"])
    else:
        print("dist.py: skipped (no bundle: make dist first)")
    failed = run(commands)
    print("all targets met" if not failed else f"missed a target: {', '.join(failed)}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
