"""The training-setup flags shared by every command that takes a setup (``estimate``, ``plan``, ``levers``,
``alignment``, ``lessons``, ``snapshot``, ``timeline``): the model, the setup, the GPU and the parallel layout, and
reading them back into a ``ModelSpec`` and a ``TrainingSetup``.

Flag names are a stable contract: scripts rely on them.
"""

from __future__ import annotations

import argparse
from typing import Any

from engine.allocator.conf import AllocConfError, parse
from engine.catalog import DEFAULT_GPU, DEFAULT_MODEL, CatalogError, get_model
from engine.specs import (
    AllocConf,
    Attention,
    Checkpointing,
    CpCommType,
    LoraSpec,
    LoraTargets,
    Loss,
    Method,
    ModelSpec,
    OffloadDevice,
    Optimizer,
    OptimizerImpl,
    ParallelSpec,
    PipelineSchedule,
    Precision,
    QuantSpec,
    QuantType,
    SavedModule,
    Sharding,
    Stack,
    TrainingSetup,
)


def _choices(enum: type[Any]) -> list[str]:
    return [e.value for e in enum]


def add_setup_arguments(p: argparse.ArgumentParser) -> None:
    """The model, setup and GPU flags, shared by every command that takes a training setup."""
    d = TrainingSetup()
    src = p.add_mutually_exclusive_group()
    src.add_argument("--model", default=None, help=f"catalog id or HF repo name (default {DEFAULT_MODEL})")
    src.add_argument("--config", default=None, help="a Hugging Face config.json, or a folder holding one")
    p.add_argument("--method", choices=_choices(Method), default=d.method.value)
    p.add_argument("--precision", choices=_choices(Precision), default=d.precision.value)
    p.add_argument("--optimizer", choices=_choices(Optimizer), default=d.optimizer.value,
                   help="adamw-4bit / adamw-8bit-torchao: torchao's (transformers adamw_torch_4bit / _8bit); "
                        "adamw-8bit: bitsandbytes'; muon: torch.optim.Muon on the blocks' matrices, AdamW on the rest")
    p.add_argument("--optimizer-rank", type=int, default=d.optimizer_rank,
                   help=f"GaLore's and APOLLO's projection rank (default {d.optimizer_rank}, transformers')")
    p.add_argument("--batch", type=int, default=d.batch, help="micro-batch per GPU")
    p.add_argument("--seq-len", type=int, default=d.seq_len)
    p.add_argument("--grad-accum", type=int, default=d.grad_accum)
    p.add_argument("--attention", choices=_choices(Attention), default=d.attention.value)
    p.add_argument("--checkpointing", choices=_choices(Checkpointing), default=d.checkpointing.value,
                   help="full, selective (Korthikanti et al.'s attention-core recompute, Megatron's) or op-selective "
                        "(PyTorch's per-operator policy as torchtitan configures it)")
    p.add_argument("--checkpoint-every", type=int, default=d.checkpoint_every, metavar="K",
                   help="with --checkpointing full: checkpoint only every K-th layer (torchtune's and torchtitan's "
                        "layer-level selective checkpointing)")
    p.add_argument("--gpus", type=int, default=d.gpus)
    p.add_argument("--sharding", choices=_choices(Sharding), default=d.sharding.value)
    p.add_argument("--offload-optimizer", action="store_true")
    p.add_argument("--offload-params", action="store_true")
    p.add_argument("--offload-optimizer-device", choices=_choices(OffloadDevice), default=d.offload_optimizer_device,
                   help="where --offload-optimizer puts the states: cpu, or nvme (ZeRO-Infinity, ZeRO-3: on disk "
                        "through pinned host buffers; implies --offload-optimizer)")
    p.add_argument("--offload-params-device", choices=_choices(OffloadDevice), default=d.offload_params_device,
                   help="where --offload-params puts the weights: cpu, or nvme (implies --offload-params)")
    p.add_argument("--lora-rank", type=int, default=d.lora.rank)
    p.add_argument("--lora-alpha", type=float, default=d.lora.alpha)
    p.add_argument("--lora-dropout", type=float, default=d.lora.dropout)
    p.add_argument("--lora-targets", choices=_choices(LoraTargets), default=d.lora.targets.value)
    p.add_argument("--quant", choices=_choices(QuantType), default=d.quant.quant_type.value, help="QLoRA 4-bit type")
    p.add_argument("--no-double-quant", action="store_true", help="QLoRA without double quantization")
    p.add_argument("--dora", action="store_true", help="DoRA (PEFT use_dora): LoRA with a trained magnitude per "
                                                       "output row")
    p.add_argument("--modules-to-save", type=_saved_modules, default=(), metavar="embed_tokens,lm_head",
                   help="modules trained in full beside LoRA (PEFT modules_to_save), comma-separated")
    p.add_argument("--freeze-layers", type=int, default=d.freeze_layers,
                   help="--method freeze: trained layers, n > 0 the last n, n < 0 the first -n (LLaMA-Factory "
                        "freeze_trainable_layers)")
    p.add_argument("--oft-block-size", type=int, default=d.oft_block_size,
                   help="--method oft: the rotation's block size (PEFT OFTConfig.oft_block_size)")
    p.add_argument("--trainable-tokens", type=int, default=0,
                   help="token rows of the embedding trained beside LoRA (PEFT trainable_token_indices: how many)")
    p.add_argument("--loss", choices=_choices(Loss), default=d.loss.value,
                   help="the loss over the vocabulary: standard (transformers ForCausalLMLoss), chunked (TRL "
                        "chunked_nll), chunked-output (torchtune CEWithChunkedOutputLoss), fused-linear-ce (Liger), "
                        "chunked-backward (torchtitan ChunkedLossWrapper)")
    p.add_argument("--loss-chunks", type=int, default=d.loss_chunks,
                   help="chunks of a chunked loss (default: TRL's 256-token chunks for chunked, 8 for "
                        "chunked-output and chunked-backward)")
    p.add_argument("--activation-offload", action="store_true",
                   help="move saved activations to host RAM (torchtune / TRL activation offloading)")
    p.add_argument("--stack", choices=_choices(Stack), default=d.stack.value,
                   help="whose code runs the step (default hf-trainer: transformers' Trainer, TRL, Axolotl, ...)")
    p.add_argument("--optimizer-impl", choices=_choices(OptimizerImpl), default=None,
                   help="torch AdamW's implementation (default: the stack's; foreach allocates a whole-model "
                        "temporary in the step)")
    p.add_argument("--optimizer-in-backward", action="store_true",
                   help="each parameter's optimizer step in its gradient's hook during backward (torchtune "
                        "optimizer_in_bwd)")
    p.add_argument("--compile", action="store_true", help="torch.compile each decoder layer")
    p.add_argument("--float8", action="store_true", help="float8 linears (torchao Float8Linear, torchtitan's "
                                                          "float8 converter)")
    p.add_argument("--fsdp-version", type=int, choices=(1, 2), default=None,
                   help="--sharding zero2 / zero3 run by PyTorch FSDP of this version (accelerate's fsdp_version) "
                        "instead of DeepSpeed's ZeRO")
    p.add_argument("--gpu", default=DEFAULT_GPU, help=f"GPU type for the verdict (default {DEFAULT_GPU})")
    p.add_argument("--alloc-conf", type=_alloc_conf, default=AllocConf(), metavar="STR",
                   help="PYTORCH_CUDA_ALLOC_CONF, e.g. expandable_segments:True or max_split_size_mb:512")
    add_layout_arguments(p)


def _saved_modules(text: str) -> tuple[SavedModule, ...]:
    names = [t.strip() for t in text.split(",") if t.strip()]
    try:
        return tuple(SavedModule(n) for n in names)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected modules among {', '.join(_choices(SavedModule))}, "
                                         f"comma-separated; got {text!r}") from None


def _alloc_conf(text: str) -> AllocConf:
    try:
        return parse(text)
    except AllocConfError as err:
        raise argparse.ArgumentTypeError(str(err)) from None


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
    g.add_argument("--cp-comm-type", choices=_choices(CpCommType), default=d.cp_comm_type.value,
                   help="context parallelism's exchange: p2p (ring attention) or a2a (DeepSpeed-Ulysses all-to-all)")
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
                        virtual_stages=a.virtual_stages, pp_layers=a.pp_layers,
                        cp_comm_type=CpCommType(a.cp_comm_type))


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
        checkpoint_every=a.checkpoint_every,
        gpus=a.gpus,
        sharding=Sharding(a.sharding),
        offload_optimizer=a.offload_optimizer or a.offload_optimizer_device == OffloadDevice.NVME,
        offload_params=a.offload_params or a.offload_params_device == OffloadDevice.NVME,
        offload_optimizer_device=OffloadDevice(a.offload_optimizer_device),
        offload_params_device=OffloadDevice(a.offload_params_device),
        lora=LoraSpec(
            rank=a.lora_rank, alpha=a.lora_alpha, dropout=a.lora_dropout, targets=LoraTargets(a.lora_targets)
        ),
        quant=QuantSpec(quant_type=QuantType(a.quant), double_quant=not a.no_double_quant),
        parallel=parallel_from_args(a),
        loss=Loss(a.loss),
        loss_chunks=a.loss_chunks,
        activation_offload=a.activation_offload,
        stack=Stack(a.stack),
        optimizer_impl=None if a.optimizer_impl is None else OptimizerImpl(a.optimizer_impl),
        optimizer_in_backward=a.optimizer_in_backward,
        compile=a.compile,
        float8=a.float8,
        optimizer_rank=a.optimizer_rank,
        dora=a.dora,
        modules_to_save=a.modules_to_save,
        trainable_tokens=a.trainable_tokens,
        freeze_layers=a.freeze_layers,
        oft_block_size=a.oft_block_size,
        fsdp_version=getattr(a, "fsdp_version", None),
        alloc_conf=getattr(a, "alloc_conf", AllocConf()),
    )
