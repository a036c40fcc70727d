"""Trace the stack cases (calibration/stacks/cases.py) and keep the records in calibration/stacks/traces.jsonl.

    /work/calib-venv/bin/python -m calibration.stacks.trace --list
    /work/calib-venv/bin/python -m calibration.stacks.trace --case ID [--case ID ...]   # replace those lines
    /work/calib-venv/bin/python -m calibration.stacks.trace --all [--stack hf-trainer]
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from calibration.stacks.cases import CASES, case_by_id

TRACES = Path(__file__).with_name("traces.jsonl")


def _runner(stack: str) -> Any:
    if stack == "hf-trainer":
        from calibration.stacks import hf_trainer

        return hf_trainer.run_case
    if stack == "torchtitan":
        from calibration.stacks import torchtitan_step

        return torchtitan_step.run_case
    if stack == "torchtune":
        from calibration.stacks import torchtune_step

        return torchtune_step.run_case
    raise KeyError(f"no tracer for stack {stack!r}")


def _load() -> dict[str, dict[str, Any]]:
    if not TRACES.exists():
        return {}
    return {r["id"]: r for r in map(json.loads, TRACES.read_text().splitlines()) if r}


def _write(records: dict[str, dict[str, Any]]) -> None:
    order = {c["id"]: i for i, c in enumerate(CASES)}
    ids = sorted(records, key=lambda i: order.get(i, len(order)))
    TRACES.write_text("".join(json.dumps(records[i]) + "\n" for i in ids))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    group = parser.add_mutually_exclusive_group(required=True)
    group.add_argument("--all", action="store_true")
    group.add_argument("--case", action="append", metavar="ID")
    group.add_argument("--list", action="store_true")
    parser.add_argument("--stack", help="with --all: only this stack's cases")
    args = parser.parse_args(argv)
    if args.list:
        print("\n".join(c["id"] for c in CASES))
        return 0
    ids = args.case or [c["id"] for c in CASES if args.stack in (None, c["stack"])]
    keep, failed = _load(), 0
    for case_id in ids:
        case = case_by_id(case_id)
        try:
            record = _runner(case["stack"])(case)
        except Exception as exc:  # one case failing must not lose the others
            failed += 1
            print(f"{case_id:70s} FAILED: {type(exc).__name__}: {str(exc)[:200]}", flush=True)
            continue
        keep[case_id] = record
        _write(keep)
        print(f"{case_id:70s} peak {record['peak_bytes'] / 2**30:8.3f} GiB  {record['peak_phase']}  "
              f"{record['trace_seconds']:5.1f} s", flush=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
