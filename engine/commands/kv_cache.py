"""``python -m engine kv-cache``: KV cache bytes per token and per sequence, for a model and a length.

Also the serving flags other commands share (``add_serving_arguments``, ``serving_setup_from_args``): the
serving page's ``ServingSetup``, spelled as this command spells its KV cache flags.
"""

from __future__ import annotations

import argparse
from typing import Any

from engine.catalog import get_model
from engine.serving import ServingSetup, WeightDtype
from engine.serving.kv import kv_cache
from engine.serving.vllm_setup import KvCacheDtype
from engine.serving.vllm_versions import Engine
from engine.specs import KvDtype, ModelSpec
from engine.units import Unit, format_bytes


def register(sub: Any) -> None:
    p = sub.add_parser("kv-cache", help="KV cache bytes per token and per sequence (MHA, GQA, MQA, MLA)")
    which = p.add_mutually_exclusive_group(required=True)
    which.add_argument("--model", help="catalog id or Hugging Face repository name")
    which.add_argument("--config", help="path to a Hugging Face config.json")
    add_kv_arguments(p, tokens_required=True)
    p.add_argument("--json", action="store_true", help="print JSON")
    p.set_defaults(handler=run)


def add_kv_arguments(p: argparse.ArgumentParser, *, tokens_required: bool, tp_flag: str = "--tp",
                     serving: bool = False) -> None:
    """``--tokens``, ``--dtype`` (the KV cache's), ``--sequences``, ``--tp``; defaults are ``ServingSetup``'s.
    ``tp_flag`` renames the tensor-parallel flag where a training ``--tp`` sits beside it (its value is
    ``args.serving_tp`` either way). ``serving``: ``--dtype`` takes vLLM's ``--kv-cache-dtype`` values."""
    d = ServingSetup()
    if tokens_required:
        p.add_argument("--tokens", type=int, required=True, help="tokens per sequence (prompt + output)")
    else:
        p.add_argument("--tokens", type=int, default=d.tokens, help=f"tokens per sequence (default {d.tokens:,})")
    if serving:
        p.add_argument("--dtype", type=KvCacheDtype, choices=list(KvCacheDtype), default=d.kv_dtype,
                       help="KV cache dtype, as vLLM's --kv-cache-dtype (default auto: the model's)")
    else:
        p.add_argument("--dtype", type=KvDtype, choices=list(KvDtype), default=KvDtype.FP16, help="KV cache dtype")
    p.add_argument("--sequences", type=int, default=d.sequences, help=f"concurrent sequences (default {d.sequences})")
    p.add_argument(tp_flag, dest="serving_tp", type=int, default=d.tp,
                   help=f"tensor-parallel GPUs: bytes are per GPU (default {d.tp})")


def add_serving_arguments(p: argparse.ArgumentParser, tp_flag: str = "--tp") -> None:
    """Every ``ServingSetup`` field as a flag: the KV flags, ``--weight-dtype``, and vLLM's
    ``--gpu-memory-utilization``, ``--max-num-batched-tokens``, ``--max-num-seqs``, ``--enforce-eager``,
    ``--vllm-version``, ``--vllm-engine`` (pipeline parallelism is the ``serve`` command's)."""
    d = ServingSetup()
    add_kv_arguments(p, tokens_required=False, tp_flag=tp_flag, serving=True)
    p.add_argument("--weight-dtype", type=WeightDtype, choices=list(WeightDtype), default=d.weight_dtype,
                   help=f"serving weights format (default {d.weight_dtype.value})")
    p.add_argument("--gpu-memory-utilization", type=float, default=d.gpu_memory_utilization,
                   help=f"share of each GPU the serving engine may use (default {d.gpu_memory_utilization})")
    p.add_argument("--max-num-batched-tokens", type=int, default=None, help="default: vLLM's for the version")
    p.add_argument("--max-num-seqs", type=int, default=None, help="default: vLLM's for the version")
    p.add_argument("--enforce-eager", action="store_true", help="no CUDA graphs")
    p.add_argument("--vllm-version", default=d.vllm_version, help=f"X.Y[.Z] (default {d.vllm_version})")
    p.add_argument("--vllm-engine", choices=[e.value for e in Engine], default=None, help="v0 or v1")


def serving_setup_from_args(a: argparse.Namespace) -> ServingSetup:
    """The ``ServingSetup`` that :func:`add_serving_arguments`' flags describe (validated by the engine)."""
    return ServingSetup(tokens=a.tokens, sequences=a.sequences, kv_dtype=a.dtype, weight_dtype=a.weight_dtype,
                        tp=a.serving_tp, gpu_memory_utilization=a.gpu_memory_utilization,
                        max_num_batched_tokens=a.max_num_batched_tokens, max_num_seqs=a.max_num_seqs,
                        enforce_eager=a.enforce_eager, vllm_version=a.vllm_version,
                        vllm_engine=Engine(a.vllm_engine) if a.vllm_engine else None)


def _model(args: argparse.Namespace) -> ModelSpec:
    if args.model is not None:  # an empty --model is an unknown model, not "no model"
        return get_model(args.model)
    from engine.hf_import import load_config  # loaded only when asked for

    return load_config(args.config)


def run(args: argparse.Namespace) -> tuple[dict[str, Any], str]:
    # the engine's bounds on every number, named by their flags (--tokens, --sequences, --tp)
    ServingSetup(tokens=args.tokens, sequences=args.sequences, tp=args.serving_tp)
    m = _model(args)
    kv = kv_cache(m, args.tokens, args.dtype, args.serving_tp)
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
