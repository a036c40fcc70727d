"""``python -m engine timeline``: the predicted memory of steps 1 and 2, layer by layer (issue 15's contract).

Takes every flag of ``estimate``. JSON: ``points`` (``index``, ``step``, ``phase``, ``moment``, ``layer``,
``allocated_bytes``, ``terms``) and ``peak_index``; the largest ``allocated_bytes`` is ``estimate``'s
``peak_allocated_bytes``. ``--memory-viz FILE`` also writes the prediction as a snapshot that PyTorch's
memory_viz opens (``engine.snapshot.export``), which ``python -m engine snapshot`` reads back too.
"""

from __future__ import annotations

import argparse
import json
from dataclasses import asdict
from pathlib import Path
from typing import Any

from engine.catalog import get_gpu
from engine.commands.setup_flags import add_setup_arguments, resolve_model, setup_from_args
from engine.training.timeline import Timeline, timeline
from engine.units import Unit, format_bytes


def register(sub: Any) -> None:
    p = sub.add_parser("timeline", help="predicted memory of steps 1 and 2, layer by layer")
    add_setup_arguments(p)
    p.add_argument("--memory-viz", metavar="FILE", default=None,
                   help="also write the prediction as a snapshot for PyTorch's memory_viz (JSON)")
    p.add_argument("--json", action="store_true", help="print JSON")
    p.set_defaults(handler=run)


def to_json(t: Timeline) -> dict[str, Any]:
    data = {"points": [asdict(p) for p in t.points], "peak_index": t.peak_index,
            "peak_allocated_bytes": t.peak_allocated_bytes}
    if t.stage is not None:
        data["stage"] = t.stage
    return data


def to_text(t: Timeline, label: str) -> str:
    u = Unit.GB
    lines = [label]
    for step in (1, 2):
        tops: dict[str, int] = {}
        for p in t.points:
            if p.step == step:
                tops[p.phase] = max(tops.get(p.phase, 0), p.allocated_bytes)
        lines.append(f"step {step}{' (and later)' if step == 2 else ''}: "
                     + ", ".join(f"{phase} {format_bytes(b, u)}" for phase, b in tops.items()))
    peak = t.points[t.peak_index]
    where = f"step {peak.step}, {peak.moment.value}" + (f", layer {peak.layer}" if peak.layer is not None else "")
    lines.append(f"allocated peak {format_bytes(peak.allocated_bytes, u)} at point {peak.index} ({where})")
    return "\n".join(lines)


def run(args: argparse.Namespace) -> tuple[dict[str, Any], str]:
    model = resolve_model(args.model, args.config)
    setup = setup_from_args(args)
    t = timeline(model, setup, get_gpu(args.gpu))
    data = {"model": model.id, "setup": setup.full_json(), **to_json(t)}
    text = to_text(t, f"{model.label}: {setup.method.value}, batch {setup.batch} x {setup.seq_len:,} tokens"
                   + (f", pipeline stage {t.stage} (the most loaded)" if t.stage is not None else ""))
    if args.memory_viz is not None:
        from engine.snapshot.export import to_memory_viz

        out = Path(args.memory_viz)
        out.write_text(json.dumps(to_memory_viz(t)), encoding="utf-8")
        data["memory_viz"] = str(out)
        text += f"\nwrote {out} (open it at https://pytorch.org/memory_viz)"
    return data, text
