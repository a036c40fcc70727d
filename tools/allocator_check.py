"""The allocator model's check on snapshot files: a Markdown table of recorded against simulated reserved bytes.

    python tools/allocator_check.py SNAPSHOT [SNAPSHOT ...]

Each file is read as ``python -m engine snapshot`` reads it (``engine.snapshot``: never unpickled with code), and
its ``allocator_check`` (``engine.snapshot.allocator_check``) printed: the reserved peak recorded and simulated
from the trace's allocations and frees, their difference, the largest difference at any event, and the segments
(``cudaMalloc`` calls and page mappings) each made. docs/accuracy.md quotes its output on published snapshots.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from engine.snapshot import read_report

GIB = 2**30


def row(path: Path) -> str:
    r = read_report(path)
    c = r.allocator_check
    if not c.checked:
        return f"| {path.name} | {r.events:,} | not checked: {c.reason} | | | | |"
    err = f"{c.peak_error:+.2%}" if c.peak_error is not None else "-"
    return (f"| {path.name} | {r.events:,} | {c.recorded_peak_reserved_bytes / GIB:.3f} | "
            f"{c.simulated_peak_reserved_bytes / GIB:.3f} | {err} | {c.largest_difference_bytes / 2**20:.0f} | "
            f"{c.recorded_segment_allocs:,} / {c.simulated_segment_allocs:,} |")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("files", nargs="+", type=Path)
    args = ap.parse_args()
    print("| snapshot | events | recorded peak (GiB) | simulated peak (GiB) | peak error | largest difference (MiB) "
          "| segments recorded / simulated |")
    print("| --- | ---: | ---: | ---: | ---: | ---: | ---: |")
    for path in args.files:
        print(row(path))
    return 0


if __name__ == "__main__":
    sys.exit(main())
