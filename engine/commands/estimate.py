"""``python -m engine estimate``: per-GPU training memory (the scripting contract of issue 3).

Flag names and JSON keys are a stable contract: scripts rely on them.
"""

from __future__ import annotations

import argparse
from typing import Any

from engine.catalog import DEFAULT_GPU, DEFAULT_MODEL, CatalogError, get_gpu, get_model
from engine.commands.explicit import track_explicit
from engine.commands.host_report import add_host_arguments, host_from_args, host_json, host_text
from engine.specs import (
    Attention,
    Checkpointing,
    LoraSpec,
    LoraTargets,
    Loss,
    Method,
    ModelSpec,
    Optimizer,
    ParallelSpec,
    PipelineSchedule,
    Precision,
    QuantSpec,
    QuantType,
    Sharding,
    TrainingSetup,
)
from engine.training import Estimate, estimate
from engine.training.host import host_of
from engine.training.plan import weights_per_gpu
from engine.units import Unit, format_bytes, format_count


def _choices(enum: type[Any]) -> list[str]:
    return [e.value for e in enum]


def register(sub: Any) -> None:
    p = sub.add_parser("estimate", help="per-GPU peak memory of one fine-tuning step")
    track_explicit(p)  # flags typed by the user override --from-config files
    add_setup_arguments(p)
    p.add_argument("--from-config", action="append", metavar="FILE",
                   help="an Axolotl, LLaMA-Factory, torchtune, TRL, DeepSpeed or accelerate config (repeatable)")
    add_host_arguments(p)
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
    p.add_argument("--loss", choices=_choices(Loss), default=d.loss.value,
                   help="the loss over the vocabulary: standard (transformers ForCausalLMLoss), chunked (TRL "
                        "chunked_nll), chunked-output (torchtune CEWithChunkedOutputLoss), fused-linear-ce (Liger)")
    p.add_argument("--loss-chunks", type=int, default=d.loss_chunks,
                   help="chunks of a chunked loss (default: TRL's 256-token chunks for chunked, 8 for "
                        "chunked-output)")
    p.add_argument("--activation-offload", action="store_true",
                   help="move saved activations to host RAM (torchtune / TRL activation offloading)")
    p.add_argument("--gpu", default=DEFAULT_GPU, help=f"GPU type for the verdict (default {DEFAULT_GPU})")
    add_layout_arguments(p)


def _layers(text: str) -> tuple[int, ...]:
    try:
        counts = tuple(int(x) for x in text.split(","))
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected layers per stage separated by commas, e.g. 19,20,20,21; "
                                         f"got {text!r}") from None
    if any(n < 1 for n in counts):
        raise argparse.ArgumentTypeError(f"every stage needs at least one layer: {text!r}")
    return counts


def add_layout_arguments(p: argparse.ArgumentParser) -> None:
    """Tensor, pipeline, context and expert parallelism (``--gpus`` stays the world size: dp x tp x pp x cp)."""
    g = p.add_argument_group("parallel layout (--gpus = dp x tp x pp x cp)")
    d = ParallelSpec()
    g.add_argument("--tp", type=int, default=d.tp, help="tensor-parallel size")
    g.add_argument("--pp", type=int, default=d.pp, help="pipeline-parallel size (stages)")
    g.add_argument("--cp", type=int, default=d.cp, help="context-parallel size (sequence split, ring attention)")
    g.add_argument("--ep", type=int, default=d.ep, help="expert-parallel size (MoE; carved from dp x cp)")
    g.add_argument("--etp", type=int, default=None, help="expert tensor-parallel size (default: --tp)")
    g.add_argument("--sequence-parallel", action="store_true", help="split norms and dropout by sequence too")
    g.add_argument("--micro-batches", type=int, default=d.micro_batches, help="micro-batches per step (pipeline)")
    g.add_argument("--pp-schedule", choices=_choices(PipelineSchedule), default=d.schedule.value)
    g.add_argument("--virtual-stages", type=int, default=d.virtual_stages, help="model chunks per stage (interleaved)")
    g.add_argument("--pp-layers", type=_layers, default=None, help="layers per stage, e.g. 19,20,20,21")


def parallel_from_args(a: argparse.Namespace) -> ParallelSpec:
    return ParallelSpec(tp=a.tp, pp=a.pp, cp=a.cp, ep=a.ep, etp=a.etp, sequence_parallel=a.sequence_parallel,
                        micro_batches=a.micro_batches, schedule=PipelineSchedule(a.pp_schedule),
                        virtual_stages=a.virtual_stages, pp_layers=a.pp_layers)


def resolve_model(model: str | None, config: str | None) -> ModelSpec:
    """A catalog model, or one imported from a Hugging Face config (``--config``); a ``--model org/name`` the
    catalog does not know is looked for in the local Hugging Face cache (engine.catalog.local)."""
    if config is not None:
        from engine.hf_import import load_config

        return load_config(config)
    try:
        return get_model(DEFAULT_MODEL if model is None else model)  # an empty --model is unknown, not the default
    except CatalogError:
        if model is None or "/" not in model:
            raise
        from engine.catalog.local import find_local

        cached = find_local(model)
        if cached is None:
            raise
        if cached.spec is None:
            raise CatalogError(f"{model} (Hugging Face cache): {cached.error}") from None
        return cached.spec


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
        parallel=parallel_from_args(a),
        loss=Loss(a.loss),
        loss_chunks=a.loss_chunks,
        activation_offload=a.activation_offload,
    )


def to_json(e: Estimate) -> dict[str, Any]:
    """The contract: the keys of issue 3 plus details (terms_detail, phases, verdict)."""
    data: dict[str, Any] = {
        "model": e.model.id,
        "gpu": e.gpu.id,
        "setup": e.setup.as_json(),
        "total_params": e.total_params,
        "trainable_params": e.trainable_params,
        "trainable_share": e.trainable_params / e.total_params,
        "peak_allocated_bytes": e.peak_allocated_bytes,
        "reserved_bytes": e.reserved_bytes,
        "device_bytes": e.device_bytes,
        "host_bytes": e.host_bytes,  # = host.per_node_bytes
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
        **(layout_json(e) if e.layout is not None else {}),
        "host": host_json(host_of(e)),
    }
    if e.setup.activation_offload:  # only then, so that every other output stays as it was
        data["offloaded_bytes"] = e.offloaded_bytes
    if e.model.notes:  # an imported config's assumptions (an unknown model_type's defaults, ...)
        data["model_notes"] = list(e.model.notes)
    if e.model.vision_params:  # a multimodal checkpoint's vision tower and projector, not costed
        data["vision_params"] = e.model.vision_params
    return data


def layout_json(e: Estimate) -> dict[str, Any]:
    """The layout and every pipeline stage (present only when a parallel flag was given)."""
    lay = e.layout
    assert lay is not None
    return {
        "layout": {"dp": lay.dp, "tp": lay.tp, "pp": lay.pp, "cp": lay.cp, "ep": lay.ep, "etp": lay.etp,
                   "sequence_parallel": lay.sequence_parallel, "micro_batches": lay.micro_batches,
                   "schedule": lay.schedule.value, "virtual_stages": lay.virtual_stages,
                   "pipeline_bubble": lay.bubble},
        "ranks": [{"stage": r.stage, "layers": list(r.layers), "peak_allocated_bytes": r.peak_allocated_bytes,
                   "reserved_bytes": r.reserved_bytes, "device_bytes": r.device_bytes,
                   "terms": {t.name: t.bytes for t in r.terms}} for r in e.ranks],
        "most_loaded_stage": e.most_loaded_stage,
    }


def to_text(e: Estimate) -> str:
    u = Unit.GB
    lines = [
        f"{e.model.label}: {e.setup.method.value}, {e.setup.precision.value}, {e.setup.optimizer.value}, "
        f"batch {e.setup.batch} x {e.setup.seq_len:,} tokens, {e.setup.gpus} GPU(s) {e.setup.sharding.value}",
        f"parameters {format_count(e.total_params)}, trainable {format_count(e.trainable_params)} "
        f"({100 * e.trainable_params / e.total_params:.2f}%)",
    ]
    lines += [f"  note: {n}" for n in e.model.notes]
    lines += [f"  {t.name:<17} {format_bytes(t.bytes, u):>12}" for t in e.terms if t.bytes]
    step = "first step" if e.peak_step == 1 else "later steps"
    lines += [
        f"allocated peak   {format_bytes(e.peak_allocated_bytes, u):>12}  ({e.peak_phase}, {step})",
        f"reserved         {format_bytes(e.reserved_bytes, u):>12}",
        f"device total     {format_bytes(e.device_bytes, u):>12}  of {e.gpu.name}: "
        + ("fits" if e.fits else f"short by {format_bytes(-e.headroom_bytes, u)}"),
    ]
    if e.layout is not None:
        lay = e.layout
        lines.append(f"layout dp {lay.dp} x tp {lay.tp} x pp {lay.pp} x cp {lay.cp}, ep {lay.ep}"
                     + (" + sequence parallel" if lay.sequence_parallel else "")
                     + (f", {lay.micro_batches} micro-batches {lay.schedule.value}" if lay.pp > 1 else ""))
        for r in e.ranks:
            mark = "  <- most loaded" if r.stage == e.most_loaded_stage else ""
            lines.append(f"  stage {r.stage} (layers {r.layers[0]}-{r.layers[1]}) "
                         f"{format_bytes(r.device_bytes, u):>12}{mark}")
    lines += host_text(host_of(e))
    return "\n".join(lines)


def run(args: argparse.Namespace) -> tuple[dict[str, Any], str]:
    if getattr(args, "from_config", None):
        from engine.commands.imported import run_imported

        return run_imported(args)
    model = resolve_model(args.model, args.config)
    setup = setup_from_args(args).with_(host=host_from_args(args))
    e = estimate(model, setup, get_gpu(args.gpu))
    return to_json(e), to_text(e)
