"""``python -m engine estimate``: per-GPU training memory (the scripting contract of issue 3).

Flag names and JSON keys are a stable contract: scripts rely on them.
"""

from __future__ import annotations

import argparse
from typing import Any

from engine.catalog import get_gpu, get_model
from engine.specs import (
    Attention,
    Checkpointing,
    LoraSpec,
    LoraTargets,
    Method,
    ModelSpec,
    Optimizer,
    Precision,
    QuantSpec,
    QuantType,
    Sharding,
    TrainingSetup,
)
from engine.training import Estimate, estimate
from engine.training.states import weights_per_gpu
from engine.units import Unit, format_bytes, format_count

DEFAULT_MODEL = "llama-2-7b"
DEFAULT_GPU = "a100-80gb"


def _choices(enum: type[Any]) -> list[str]:
    return [e.value for e in enum]


def register(sub: Any) -> None:
    p = sub.add_parser("estimate", help="per-GPU peak memory of one fine-tuning step")
    add_setup_arguments(p)
    p.add_argument("--json", action="store_true", help="print JSON")
    p.set_defaults(handler=run)


def add_setup_arguments(p: argparse.ArgumentParser) -> None:
    """The model, setup and GPU flags, shared by every command that takes a training setup."""
    d = TrainingSetup()
    src = p.add_mutually_exclusive_group()
    src.add_argument("--model", default=None, help=f"catalog id or HF repo name (default {DEFAULT_MODEL})")
    src.add_argument("--config", default=None, help="a Hugging Face config.json, or a folder holding one")
    p.add_argument("--method", choices=_choices(Method), default=d.method.value)
    p.add_argument("--precision", choices=_choices(Precision), default=d.precision.value)
    p.add_argument("--optimizer", choices=_choices(Optimizer), default=d.optimizer.value)
    p.add_argument("--batch", type=int, default=d.batch, help="micro-batch per GPU")
    p.add_argument("--seq-len", type=int, default=d.seq_len)
    p.add_argument("--grad-accum", type=int, default=d.grad_accum)
    p.add_argument("--attention", choices=_choices(Attention), default=d.attention.value)
    p.add_argument("--checkpointing", choices=_choices(Checkpointing), default=d.checkpointing.value)
    p.add_argument("--gpus", type=int, default=d.gpus)
    p.add_argument("--sharding", choices=_choices(Sharding), default=d.sharding.value)
    p.add_argument("--offload-optimizer", action="store_true")
    p.add_argument("--offload-params", action="store_true")
    p.add_argument("--lora-rank", type=int, default=d.lora.rank)
    p.add_argument("--lora-alpha", type=float, default=d.lora.alpha)
    p.add_argument("--lora-dropout", type=float, default=d.lora.dropout)
    p.add_argument("--lora-targets", choices=_choices(LoraTargets), default=d.lora.targets.value)
    p.add_argument("--quant", choices=_choices(QuantType), default=d.quant.quant_type.value, help="QLoRA 4-bit type")
    p.add_argument("--no-double-quant", action="store_true", help="QLoRA without double quantization")
    p.add_argument("--gpu", default=DEFAULT_GPU, help=f"GPU type for the verdict (default {DEFAULT_GPU})")


def resolve_model(model: str | None, config: str | None) -> ModelSpec:
    """A catalog model, or one imported from a Hugging Face config (``--config``)."""
    if config is not None:
        from engine.hf_import import load_config

        return load_config(config)
    return get_model(model or DEFAULT_MODEL)


def setup_from_args(a: argparse.Namespace) -> TrainingSetup:
    return TrainingSetup(
        method=Method(a.method),
        precision=Precision(a.precision),
        optimizer=Optimizer(a.optimizer),
        batch=a.batch,
        seq_len=a.seq_len,
        grad_accum=a.grad_accum,
        attention=Attention(a.attention),
        checkpointing=Checkpointing(a.checkpointing),
        gpus=a.gpus,
        sharding=Sharding(a.sharding),
        offload_optimizer=a.offload_optimizer,
        offload_params=a.offload_params,
        lora=LoraSpec(
            rank=a.lora_rank, alpha=a.lora_alpha, dropout=a.lora_dropout, targets=LoraTargets(a.lora_targets)
        ),
        quant=QuantSpec(quant_type=QuantType(a.quant), double_quant=not a.no_double_quant),
    )


def to_json(e: Estimate) -> dict[str, Any]:
    """The contract: the keys of issue 3 plus details (terms_detail, phases, verdict)."""
    return {
        "model": e.model.id,
        "gpu": e.gpu.id,
        "setup": e.setup.model_dump(mode="json"),
        "total_params": e.total_params,
        "trainable_params": e.trainable_params,
        "trainable_share": e.trainable_params / e.total_params,
        "peak_allocated_bytes": e.peak_allocated_bytes,
        "reserved_bytes": e.reserved_bytes,
        "device_bytes": e.device_bytes,
        "host_bytes": e.host_bytes,
        "paged_bytes": e.paged_bytes,
        "peak_phase": e.peak_phase,
        "peak_step": e.peak_step,
        "terms": {t.name: t.bytes for t in e.terms},
        "weights_breakdown": weights_per_gpu(e.model, e.setup),
        "terms_detail": [t.as_dict() for t in e.terms],
        "phases": [{"phase": p.name, "step": p.step, "bytes": round(p.total)} for p in e.phases],
        "gpu_memory_bytes": e.gpu.memory_bytes,
        "fits": e.fits,
        "verdict": e.verdict.value,
        "headroom_bytes": e.headroom_bytes,
    }


def to_text(e: Estimate) -> str:
    u = Unit.GB
    lines = [
        f"{e.model.label}: {e.setup.method.value}, {e.setup.precision.value}, {e.setup.optimizer.value}, "
        f"batch {e.setup.batch} x {e.setup.seq_len:,} tokens, {e.setup.gpus} GPU(s) {e.setup.sharding.value}",
        f"parameters {format_count(e.total_params)}, trainable {format_count(e.trainable_params)} "
        f"({100 * e.trainable_params / e.total_params:.2f}%)",
    ]
    lines += [f"  {t.name:<17} {format_bytes(t.bytes, u):>12}" for t in e.terms if t.bytes]
    step = "first step" if e.peak_step == 1 else "later steps"
    lines += [
        f"allocated peak   {format_bytes(e.peak_allocated_bytes, u):>12}  ({e.peak_phase}, {step})",
        f"reserved         {format_bytes(e.reserved_bytes, u):>12}",
        f"device total     {format_bytes(e.device_bytes, u):>12}  of {e.gpu.name}: "
        + ("fits" if e.fits else f"short by {format_bytes(-e.headroom_bytes, u)}"),
    ]
    if e.host_bytes:
        lines.append(f"host RAM         {format_bytes(e.host_bytes, u):>12}  (offload)")
    return "\n".join(lines)


def run(args: argparse.Namespace) -> tuple[dict[str, Any], str]:
    model = resolve_model(args.model, args.config)
    e = estimate(model, setup_from_args(args), get_gpu(args.gpu))
    return to_json(e), to_text(e)
