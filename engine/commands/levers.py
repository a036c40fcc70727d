"""``python -m engine levers``: the three levers switched off and on, term by term, and the rule that picks one;
then the long-context lever (TRL's chunked loss / fused linear cross-entropy / activation offload), which the rule
considers too.

Takes the ``estimate`` command's model, setup and GPU flags; ``--zero3-gpus`` sets N for the ZeRO-3 lever.
"""

from __future__ import annotations

import argparse
from typing import Any

from engine.catalog import get_gpu
from engine.cli import UsageError
from engine.commands.setup_flags import add_setup_arguments, resolve_model, setup_from_args
from engine.lever_facts import COMMUNICATION_SOURCE, communication, lora_share
from engine.levers import Lever, advice, all_levers, zero3_gpus
from engine.specs import TrainingSetup, field_bounds
from engine.units import Unit, format_bytes


def register(sub: Any) -> None:
    p = sub.add_parser("levers", help="LoRA/QLoRA, FlashAttention/checkpointing, ZeRO-3, long context: "
                                      "each lever's terms")
    add_setup_arguments(p)
    p.add_argument("--zero3-gpus", type=int, default=None, help="N for the ZeRO-3 lever (default: --gpus, or 8)")
    p.add_argument("--json", action="store_true", help="print JSON")
    p.set_defaults(handler=run)


def lever_json(lv: Lever) -> dict[str, Any]:
    return {
        "lever": lv.kind.value,
        "touches": list(lv.touches),
        "current_step": None if lv.current is None else lv.steps[lv.current].key,
        "steps": [{"step": s.key, "touches": list(s.touches), "peak_allocated_bytes": s.estimate.peak_allocated_bytes,
                   "device_bytes": s.estimate.device_bytes, "fits": s.estimate.fits,
                   "terms": {t.name: t.bytes for t in s.estimate.terms}} for s in lv.steps],
        "changes": [{"term": c.name, "before": c.before, "after": c.after, "largest_before": c.largest_before,
                     "largest_after": c.largest_after, "touched": c.touched} for c in lv.changes()],
    }


def run(args: argparse.Namespace) -> tuple[dict[str, Any], str]:
    lo, hi = field_bounds(TrainingSetup, "gpus")
    if args.zero3_gpus is not None and not (lo or 1) <= args.zero3_gpus <= (hi or 1):
        raise UsageError(f"--zero3-gpus: {args.zero3_gpus:,} is outside the engine's range ({lo:,.0f} to {hi:,.0f})")
    model, setup, gpu = resolve_model(args.model, args.config), setup_from_args(args), get_gpu(args.gpu)
    computed = all_levers(model, setup, gpu, args.zero3_gpus)
    share, comm = lora_share(model, setup), communication(model, setup)
    tip = advice(model, setup, gpu, args.zero3_gpus, computed)
    data = {
        "model": model.id, "gpu": gpu.id, "setup": setup.as_json(),
        "levers": [lever_json(lv) for lv in computed],
        "lora": {"rank": share.rank, "trainable": share.trainable, "total_params": share.total,
                 "non_embedding_params": share.non_embedding, "share_of_total": share.of_total,
                 "share_of_non_embedding": share.of_non_embedding},
        "zero3": {"gpus": zero3_gpus(setup, args.zero3_gpus), "data_parallel_bytes": comm.data_parallel,
                  "zero3_bytes": comm.zero3, "communication_factor": comm.factor, "source": COMMUNICATION_SOURCE},
        "advice": {"biggest_term": tip.term.name, "bytes": tip.term.bytes,
                   "lever": tip.lever.value if tip.lever else None, "step": tip.step, "after": tip.after},
    }
    u = Unit.GB
    lines = [f"{lv.kind.value}: " + " -> ".join(f"{s.key} {format_bytes(s.estimate.peak_allocated_bytes, u)}"
                                               for s in lv.steps) for lv in computed]
    lines.append(f"LoRA r{share.rank}: {share.trainable:,} trainable, {100 * share.of_total:.2f}% of all, "
                 f"{100 * share.of_non_embedding:.2f}% of non-embedding parameters")
    lines.append(f"ZeRO-3 communication: {comm.factor:.2f}x data parallel ({COMMUNICATION_SOURCE})")
    moved = f"{tip.lever.value} ({tip.step}) -> {format_bytes(tip.after, u)}" if tip.lever else "none of the four"
    lines.append(f"biggest term: {tip.term.name} {format_bytes(tip.term.bytes, u)}; lever: {moved}")
    return data, "\n".join(lines)
