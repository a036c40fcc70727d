"""Reading a large memory snapshot: load (restricted unpickler) and replay (target: 1,000,000 events in <= 5 s
and <= 1.5 GB of memory on the 2-core development machine).

Run: ``python bench/snapshot_load.py [--events N] [--json]``. The snapshot is generated first
(``tools/snapshot_fixtures.large``: training steps of a 64-layer toy model, Python frames, pickled as
``torch.cuda.memory._dump_snapshot`` pickles it), written to a temporary file, then read back by a fresh process
that runs exactly what ``python -m engine snapshot FILE`` runs; ``seconds`` is that process's time from its
imports to the finished report, ``cpu_seconds`` the CPU time it used (the same, on an idle machine: the work is
single-threaded; on a machine shared with other jobs, the wall time is longer), ``peak_rss_mb`` its peak
resident memory (Linux ``ru_maxrss``).
``machine_factor`` is the best time of ``sum(range(10000))`` over 100 us (how much slower this machine is
than a typical laptop: shared/ENVIRONMENT.md).
"""

from __future__ import annotations

import argparse
import json
import pickle
import subprocess
import sys
import tempfile
import timeit
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

TARGET_SECONDS = 5.0
TARGET_RSS_MB = 1500.0

_CHILD = """
import json, resource, sys, time
sys.path.insert(0, {repo!r})
t0, c0 = time.perf_counter(), time.process_time()
from engine.snapshot import read_report
report = read_report({path!r})
seconds, cpu = time.perf_counter() - t0, time.process_time() - c0
rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
print(json.dumps({{"events": report.events, "seconds": seconds, "cpu_seconds": cpu, "peak_rss_mb": rss,
                   "peak_allocated_bytes": report.peak_allocated_bytes}}))
"""


def machine_factor() -> float:
    best = min(timeit.repeat("sum(range(10000))", number=200, repeat=5)) / 200
    return best / 100e-6


def measure(events: int) -> dict[str, float | int]:
    """Generate a snapshot of at least ``events`` events, then load and replay it in a fresh process."""
    from tools.snapshot_fixtures import large

    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "snapshot.pickle"
        snap = large(events)
        path.write_bytes(pickle.dumps(snap, protocol=4))
        del snap
        size_mb = path.stat().st_size / 1e6
        out = subprocess.run([sys.executable, "-c", _CHILD.format(repo=str(REPO), path=str(path))],
                             capture_output=True, text=True, check=True, timeout=600)
    result: dict[str, float | int] = json.loads(out.stdout)
    result["file_mb"] = round(size_mb, 1)
    result["seconds"] = round(float(result["seconds"]), 2)
    result["cpu_seconds"] = round(float(result["cpu_seconds"]), 2)
    result["peak_rss_mb"] = round(float(result["peak_rss_mb"]), 1)
    result["machine_factor"] = round(machine_factor(), 2)
    return result


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--events", type=int, default=1_000_000)
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    r = measure(args.events)
    if args.json:
        print(json.dumps(r))
    else:
        print(f"{r['events']:,} events ({r['file_mb']} MB pickle): {r['seconds']} s, {r['cpu_seconds']} s of CPU "
              f"(target {TARGET_SECONDS}), "
              f"peak RSS {r['peak_rss_mb']} MB (target {TARGET_RSS_MB}); machine factor {r['machine_factor']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
