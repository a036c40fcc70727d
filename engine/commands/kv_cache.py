"""``python -m engine kv-cache``: KV cache bytes per token and per sequence, for a model and a length."""

from __future__ import annotations

import argparse
from typing import Any

from engine.catalog import get_model
from engine.serving.kv import kv_cache
from engine.specs import KvDtype, ModelSpec
from engine.units import Unit, format_bytes


def register(sub: Any) -> None:
    p = sub.add_parser("kv-cache", help="KV cache bytes per token and per sequence (MHA, GQA, MQA, MLA)")
    which = p.add_mutually_exclusive_group(required=True)
    which.add_argument("--model", help="catalog id or Hugging Face repository name")
    which.add_argument("--config", help="path to a Hugging Face config.json")
    p.add_argument("--tokens", type=int, required=True, help="tokens per sequence (prompt + output)")
    p.add_argument("--dtype", type=KvDtype, choices=list(KvDtype), default=KvDtype.FP16, help="KV dtype")
    p.add_argument("--sequences", type=int, default=1, help="concurrent sequences (default 1)")
    p.add_argument("--tp", type=int, default=1, help="tensor-parallel GPUs: bytes are per GPU (default 1)")
    p.add_argument("--json", action="store_true", help="print JSON")
    p.set_defaults(handler=run)


def _model(args: argparse.Namespace) -> ModelSpec:
    if args.model:
        return get_model(args.model)
    from engine.hf_import import load_config  # loaded only when asked for

    return load_config(args.config)


def run(args: argparse.Namespace) -> tuple[dict[str, Any], str]:
    if args.sequences < 1:
        raise ValueError("--sequences must be at least 1")
    m = _model(args)
    kv = kv_cache(m, args.tokens, args.dtype, args.tp)
    data = {
        "model": m.id,
        "attention": kv.attention.value,
        "dtype": kv.dtype.value,
        "tokens": kv.tokens,
        "sequences": args.sequences,
        "tp": kv.tp,
        "bytes_per_token": kv.bytes_per_token,
        "bytes_per_sequence": kv.bytes_per_sequence,
        "bytes_total": kv.total(args.sequences),
        "formula": kv.formula,
        "detail": kv.detail,
        "source": kv.source,
        "kv": kv.model_dump(mode="json"),
    }
    text = (
        f"{m.label} ({kv.attention.value}), {kv.tokens:,} tokens in {kv.dtype.value}: "
        f"{format_bytes(kv.bytes_per_sequence, Unit.GB)} per sequence "
        f"({format_bytes(kv.bytes_per_sequence, Unit.GIB)}); {kv.bytes_per_token:,} B per token; "
        f"x{args.sequences} = {format_bytes(kv.total(args.sequences), Unit.GB)}\n"
        f"  {kv.formula}\n  = {kv.detail}"
    )
    return data, text
