"""``python -m engine snapshot FILE``: a PyTorch memory snapshot read safely, replayed and explained.

``FILE`` is what ``torch.cuda.memory._dump_snapshot()`` writes (a pickle, read without running anything in it),
or the same dict as JSON, optionally gzip-compressed (docs/snapshot.md). ``--compare`` with the estimate's flags
adds the estimate for that setup beside the measurement. Flag names and JSON keys are a stable contract.
"""

from __future__ import annotations

import argparse
from typing import Any

from engine.catalog import get_gpu
from engine.commands.setup_flags import add_setup_arguments, resolve_model, setup_from_args
from engine.snapshot import SnapshotReport, read_report
from engine.units import Unit, format_bytes


def register(sub: Any) -> None:
    p = sub.add_parser("snapshot", help="read a PyTorch memory snapshot (torch.cuda.memory._dump_snapshot)")
    p.add_argument("file", help="snapshot file: pickle or JSON, optionally gzip-compressed")
    p.add_argument("--device", type=int, default=None, help="CUDA device index (default: the first with data)")
    p.add_argument("--compare", action="store_true", help="add the estimate for the setup given by the flags below")
    add_setup_arguments(p)
    p.add_argument("--json", action="store_true", help="print JSON")
    p.set_defaults(handler=run)


def _where(r: SnapshotReport) -> str:
    if r.peak_event < 0:
        return "before the first event"
    for s in r.steps:
        if s.first_event <= r.peak_event <= s.last_event:
            phase = next((n for n, p in s.phases.items() if p.first_event <= r.peak_event <= p.last_event), "")
            return f"event {r.peak_event:,} (step {s.step}{', ' + phase if phase else ''})"
    return f"event {r.peak_event:,}"


def to_text(r: SnapshotReport, compare: dict[str, Any] | None) -> str:
    u = Unit.GB
    lines = [
        f"{r.file}, device {r.device}: {r.events:,} events, stack frames: {r.stacks}",
        f"allocated peak   {format_bytes(r.peak_allocated_bytes, u):>12}  at {_where(r)}",
        f"reserved peak    {format_bytes(r.peak_reserved_bytes, u):>12}",
    ]
    lines += [f"  {name:<17} {format_bytes(b, u):>12}" for name, b in r.by_term.items() if b]
    lines.append(f"steps found: {len(r.steps)}" + "".join(
        f"; {s.step}: events {s.first_event:,}-{s.last_event:,}, peak {format_bytes(s.peak_allocated_bytes, u)}"
        for s in r.steps))
    lines += [f"OOM at event {o['event']:,}: {format_bytes(o['requested_bytes'], u)} requested" for o in r.ooms]
    lines.append(_allocator_line(r))
    if compare is not None:
        ratio = compare["ratio"]
        lines.append(f"estimate {format_bytes(compare['estimated_peak_allocated_bytes'], u)}, measured "
                     f"{format_bytes(compare['measured_peak_allocated_bytes'], u)}"
                     + (f" (measured / estimated = {ratio:.3f})" if ratio is not None else ""))
    lines.append(r.attribution)
    return "\n".join(lines)


def _allocator_line(r: SnapshotReport) -> str:
    c = r.allocator_check
    if not c.checked:
        return f"allocator model: not checked ({c.reason})"
    u = Unit.GB
    err = f" ({c.peak_error:+.2%})" if c.peak_error is not None else ""
    return (f"allocator model: reserved peak {format_bytes(c.simulated_peak_reserved_bytes, u)} simulated from the "
            f"trace, {format_bytes(c.recorded_peak_reserved_bytes, u)} recorded{err}; segments made "
            f"{c.simulated_segment_allocs:,} / {c.recorded_segment_allocs:,}")


def run(args: argparse.Namespace) -> tuple[dict[str, Any], str]:
    report = read_report(args.file, args.device)
    data = report.to_json()
    comparison = None
    if args.compare:
        from engine.snapshot.compare import compare
        from engine.training import estimate

        e = estimate(resolve_model(args.model, args.config), setup_from_args(args), get_gpu(args.gpu))
        comparison = data["compare"] = compare(report, e)
    return data, to_text(report, comparison)
