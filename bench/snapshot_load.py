"""Reading a large memory snapshot: load (restricted unpickler), replay and the allocator model's check (target:
1,000,000 events in <= 5 s and <= 1.5 GB of memory on the 2-core development machine; the check takes about
1.5 s of the 3.1 s measured at 1,173,729 events).

Run: ``python bench/snapshot_load.py [--events N] [--json]``. The snapshot is generated first
(``tools/snapshot_fixtures.large``: training steps of a 64-layer toy model, Python frames, pickled as
``torch.cuda.memory._dump_snapshot`` pickles it), written to a temporary file, then read back by a fresh process
that runs exactly what ``python -m engine snapshot FILE`` runs; ``seconds`` is that process's time from its
imports to the finished report, ``cpu_seconds`` the CPU time it used (the same, on an idle machine: the work is
single-threaded; on a machine shared with other jobs, the wall time is longer), ``peak_rss_mb`` its peak
resident memory (Linux ``ru_maxrss``).
``machine_factor`` (``bench/machine.py``) says how much slower this machine is than a typical laptop; the
targets are this 2-core machine's own, not scaled.
"""

from __future__ import annotations

import argparse
import json
import pickle
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from bench.machine import Target, machine_factor, report  # noqa: E402

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
    result["machine_factor"] = machine_factor()
    return result


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--events", type=int, default=1_000_000)
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--check", action="store_true", help="exit 1 when a target is missed")
    args = ap.parse_args()
    r = measure(args.events)
    if not args.json:
        print(f"{r['events']:,} events ({r['file_mb']} MB pickle): {r['seconds']} s, {r['cpu_seconds']} s of CPU")
    targets = [Target("load and replay (CPU time)", float(r["cpu_seconds"]), TARGET_SECONDS, "s"),
               Target("peak resident memory", float(r["peak_rss_mb"]), TARGET_RSS_MB, "MB")]
    missed = report(r, targets, args.json)
    return missed if args.check else 0


if __name__ == "__main__":
    sys.exit(main())
