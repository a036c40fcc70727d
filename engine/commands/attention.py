"""``python -m engine attention``: the eight-step attention walk-through with real sizes (``--json``)."""

from __future__ import annotations

import argparse
import math
from typing import Any

from engine.attention import DEFAULT_SENTENCE, AttentionStep, attention_steps, flash_kept
from engine.catalog import DEFAULT_MODEL, get_model
from engine.specs import KvDtype
from engine.units import Unit, format_bytes


def register(sub: Any) -> None:
    p = sub.add_parser("attention", help="attention one step at a time, with each tensor's size in a real model")
    p.add_argument("--model", default=DEFAULT_MODEL, help=f"catalog id (default {DEFAULT_MODEL})")
    p.add_argument("--seq-len", type=int, default=4_096, help="sequence length of the real model (default 4096)")
    p.add_argument("--dtype", type=KvDtype, default=KvDtype.BF16, choices=list(KvDtype), help="default bf16")
    p.add_argument("--batch", type=int, default=1, help="batch size of the real model (default 1)")
    p.add_argument("--sentence", default=DEFAULT_SENTENCE, help="the toy sentence, at most 8 words")
    p.add_argument("--json", action="store_true", help="print JSON")
    p.set_defaults(handler=run)


def _cells(matrix: Any) -> list[list[float | None]]:
    """Rows of numbers, with null where a cell is -inf (JSON has no infinity)."""
    return [[None if math.isinf(x) else float(x) for x in row] for row in matrix.tolist()]


def _step_json(step: AttentionStep) -> dict[str, Any]:
    return {
        "index": step.index,
        "key": step.key.value,
        "name": step.name,
        "formula": step.formula,
        "explanation": step.explanation,
        "operands": [k.value for k in step.operands],
        "shape": step.sizes.shape,
        "per_head_bytes": step.sizes.per_head_bytes,
        "per_layer_bytes": step.sizes.per_layer_bytes,
        "all_layers_bytes": step.sizes.all_layers_bytes,
        "size_formula": step.sizes.formula,
        "size_source": step.sizes.source,
        "row_labels": list(step.row_labels),
        "col_labels": list(step.col_labels),
        "matrix": _cells(step.matrix),
        "weight": None if step.weight is None else _cells(step.weight),
    }


def _line(step: AttentionStep) -> str:
    per_head = "shared" if step.sizes.per_head_bytes is None else format_bytes(step.sizes.per_head_bytes, Unit.GIB)
    return (
        f"{step.index + 1}. {step.name:<17} {step.formula:<24} per head {per_head:>11}"
        f"  per layer {format_bytes(step.sizes.per_layer_bytes, Unit.GIB):>11}"
        f"  all layers {format_bytes(step.sizes.all_layers_bytes, Unit.GIB):>11}"
    )


def run(args: argparse.Namespace) -> tuple[dict[str, Any], str]:
    model = get_model(args.model)
    steps = attention_steps(args.sentence, model, args.seq_len, args.dtype, args.batch)
    flash = flash_kept(model=model, seq_len=args.seq_len, dtype=args.dtype, batch=args.batch)
    data = {
        "model": model.id,
        "seq_len": args.seq_len,
        "dtype": args.dtype.value,
        "batch": args.batch,
        "tokens": list(steps[0].row_labels),
        "steps": [_step_json(s) for s in steps],
        "flash_attention_kept": flash.model_dump(mode="json"),
    }
    head = f"{model.label}, {args.seq_len:,} tokens, batch {args.batch}, {args.dtype.value}: {args.sentence!r}"
    tail = f"FlashAttention keeps instead: {format_bytes(flash.per_layer_bytes, Unit.GIB)} per layer"
    return data, "\n".join([head, *(_line(s) for s in steps), tail])
