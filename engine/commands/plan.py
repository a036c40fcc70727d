"""``python -m engine plan``: the parallel layouts that fit, fewest GPUs first (``engine.training.planner``), or
with ``--rank time`` fastest first for the same tokens (``engine.timing.rank``), each row with its ``time``
(``step_seconds``, ``tokens_per_second_per_gpu``, ``tokens_per_second``; ``error`` where it cannot be timed).

Every row's numbers are ``estimate``'s for the same flags; ``flags`` spells them out. The training flags of
``estimate`` set what is trained (method, precision, sequence length, ...); the planner searches the layout, the
ZeRO stage and checkpointing, keeping a tensor, pipeline, context or expert size given above 1.
"""

from __future__ import annotations

import argparse
from typing import Any

from engine.catalog import get_gpu
from engine.commands.setup_flags import add_setup_arguments, resolve_model, setup_from_args
from engine.specs import TrainingSetup, field_bounds
from engine.timing.rank import TimedRow, rank_by_time
from engine.training.planner import PlanRow, plan, search_base
from engine.units import Unit, format_bytes

MAX_ROWS_TEXT = 15


def register(sub: Any) -> None:
    p = sub.add_parser("plan", help="the tensor / pipeline / context / expert layouts that fit, fewest GPUs first")
    add_setup_arguments(p)
    p.add_argument("--max-gpus", type=int, required=True, help="the most GPUs to consider")
    p.add_argument("--rank", choices=["gpus", "time"], default="gpus",
                   help="gpus: fewest GPUs first (default); time: fastest for the same tokens first, with tokens/s")
    p.add_argument("--json", action="store_true", help="print JSON")
    p.set_defaults(handler=run)


def flags(s: TrainingSetup) -> list[str]:
    """The ``estimate`` flags that give this row's setup (beside the model, GPU and training flags)."""
    p = s.parallel
    out = ["--gpus", str(s.gpus), "--sharding", s.sharding.value, "--checkpointing", s.checkpointing.value]
    for flag, value in (("--tp", p.tp), ("--pp", p.pp), ("--cp", p.cp), ("--ep", p.ep)):
        if value > 1:
            out += [flag, str(value)]
    if p.sequence_parallel:
        out.append("--sequence-parallel")
    if p.pp > 1:
        out += ["--micro-batches", str(p.micro_batches), "--pp-schedule", p.schedule.value]
    return out


def row_json(r: PlanRow) -> dict[str, Any]:
    s, e = r.setup, r.estimate
    p = s.parallel
    return {"gpus": s.gpus, "dp": s.dp, "tp": p.tp, "pp": p.pp, "cp": p.cp, "ep": p.ep,
            "sharding": s.sharding.value, "sequence_parallel": p.sequence_parallel,
            "checkpointing": s.checkpointing.value, "micro_batches": p.micro_batches,
            "peak_allocated_bytes": e.peak_allocated_bytes, "device_bytes": e.device_bytes, "fits": e.fits,
            "note": r.note, "flags": flags(s)}


def time_row_json(t: TimedRow) -> dict[str, Any]:
    """A row of ``--rank time``: the row and its ``time``."""
    if t.time is None:
        return {**row_json(t.row), "time": {"error": t.error}}
    return {**row_json(t.row), "time": {"step_seconds": t.time.step_seconds,
                                         "tokens_per_second_per_gpu": t.time.tokens_per_second_per_gpu,
                                         "tokens_per_second": t.tokens_per_second}}


def _time_text(timed_rows: list[TimedRow]) -> list[str]:
    lines = []
    for t in timed_rows[:MAX_ROWS_TEXT]:
        s, p = t.row.setup, t.row.setup.parallel
        speed = f"{t.tokens_per_second:>12,.0f} tok/s" if t.time else f"  {t.error}"
        lines.append(f"  {s.gpus:>5} GPUs  dp {s.dp:<4} tp {p.tp} pp {p.pp:<2} cp {p.cp} ep {p.ep:<2} "
                     f"{s.sharding.value:<5} ckpt {s.checkpointing.value:<4}{speed}")
    return lines


def run(args: argparse.Namespace) -> tuple[dict[str, Any], str]:
    limit = int(field_bounds(TrainingSetup, "gpus")[1] or 1)
    if not 1 <= args.max_gpus <= limit:
        raise ValueError(f"--max-gpus must be within 1..{limit:,}; got {args.max_gpus}")
    model, gpu = resolve_model(args.model, args.config), get_gpu(args.gpu)
    base = search_base(setup_from_args(args))
    rows = plan(model, base, gpu, args.max_gpus)
    if getattr(args, "rank", "gpus") == "time":
        ranked = rank_by_time(model, gpu, rows)
        data = {"model": model.id, "gpu": gpu.id, "max_gpus": args.max_gpus, "rank": "time",
                "layouts": [time_row_json(t) for t in ranked]}
        head = f"{model.label} on {gpu.name}, at most {args.max_gpus} GPUs: {len(rows)} layouts fit, fastest first"
        more = [f"  ... {len(rows) - MAX_ROWS_TEXT} more (--json lists every one)"] if len(rows) > MAX_ROWS_TEXT else []
        return data, "\n".join([head, *_time_text(ranked), *more])
    data = {"model": model.id, "gpu": gpu.id, "max_gpus": args.max_gpus, "layouts": [row_json(r) for r in rows]}
    lines = [f"{model.label} on {gpu.name}, at most {args.max_gpus} GPUs: {len(rows)} layouts fit"
             + ("" if rows else " (try more GPUs, LoRA or QLoRA, or a shorter sequence)")]
    for r in rows[:MAX_ROWS_TEXT]:
        s, p = r.setup, r.setup.parallel
        lines.append(f"  {s.gpus:>5} GPUs  dp {s.dp:<4} tp {p.tp} pp {p.pp:<2} cp {p.cp} ep {p.ep:<2} "
                     f"{s.sharding.value:<5} ckpt {s.checkpointing.value:<4} "
                     f"{format_bytes(r.estimate.device_bytes, Unit.GB):>10}  {r.note}")
    if len(rows) > MAX_ROWS_TEXT:
        lines.append(f"  ... {len(rows) - MAX_ROWS_TEXT} more (--json lists every one)")
    return data, "\n".join(lines)
