"""torchtitan's TOML job config (``torchrun ... -m torchtitan.train --job.config_file <file>.toml``).

Mapping table (torchtitan's ``JobConfig``, torchtitan/config/job_config.py at 000204a4 (the TOML configs' last
series, 0.1 to 0.2); its presets, torchtitan/models/llama3/train_configs/llama3_8b.toml; 0.3.0 replaced the TOML
files by Python config functions, which are not files to import):

=================================================================  ==========================================
``[model] name`` / ``flavor``                                      the model: llama3 8B / 70B / 405B (Llama
                                                                   3.1's, its ``hf_assets_path``), llama2 7B /
                                                                   13B / 70B; any other is refused by name
the file itself                                                    the stack: torchtitan (--stack torchtitan:
                                                                   its rules, ``engine.training.stacks``), full
                                                                   fine-tuning
``[training] local_batch_size`` (``batch_size`` before)            the micro-batch (default 8)
``[training] seq_len``                                             the sequence (default 2048)
``[training] global_batch_size``                                   accumulation = global / (micro x dp), when
                                                                   it divides
``[training] mixed_precision_param``                               bfloat16: bf16-mixed (fp32 parameters, bf16
                                                                   compute); float32: fp32 (default bfloat16)
``[activation_checkpoint] mode`` / ``selective_ac_option``         none / full; selective with "op":
                                                                   op-selective; selective with k: full,
                                                                   checkpoint_every k (defaults: selective, "2")
``[parallelism] data_parallel_shard_degree`` (-1: the rest),       the GPUs (their product; with -1, run_train.sh's
``..._replicate_degree``, ``tensor_parallel_degree``,              ``NGPU=8`` is assumed) and the layout;
``pipeline_parallel_degree``, ``context_parallel_degree``          sharding zero3 (FSDP2) when sharded, none
                                                                   (DDP) when the shard degree is 1; HSDP's
                                                                   replicas reported
``[parallelism] fsdp_reshard_after_forward``                       never: zero2; always / default: zero3
``[parallelism] pipeline_parallel_microbatch_size``                micro-batches = micro-batch / it (the
                                                                   schedule read when 1F1B, the engine's)
``[optimizer] name`` / ``implementation``                          AdamW and its implementation (fused,
                                                                   foreach, for-loop)
``[training] compile`` / ``[compile] enable``                      compiled blocks (and loss)
``[model] converters = ["float8"]``, ``[float8]``                  refused: float8 is not costed
``[optimizer] early_step_in_backward``,                            not modelled (reported)
``[training] enable_cpu_offload``
=================================================================  ==========================================

The loss of these versions is its cross-entropy over whole logits (``--loss standard``); 0.3.0's
ChunkedLossWrapper is not in them.
"""

from __future__ import annotations

from typing import Any

from engine.config_import import common
from engine.config_import.draft import Draft, Field
from engine.config_import.loading import Loaded
from engine.config_import.messages import NOT_MODELLED, NOT_TRAINING_CONFIG
from engine.config_import.report import ConfigRefusedError, Message
from engine.specs import (
    Attention,
    Checkpointing,
    Loss,
    Method,
    Optimizer,
    OptimizerImpl,
    Precision,
    Sharding,
    Stack,
)
from engine.translatable import QT_TRANSLATE_NOOP

#: (model.name, model.flavor) -> catalog id (torchtitan/models/llama3/__init__.py llama3_configs: "8B" is Llama 3.1
#: 8B's shape and assets, as are 70B and 405B; llama2's 7B / 13B / 70B before llama3 replaced it)
FLAVORS = {("llama3", "8B"): "llama-3.1-8b", ("llama3", "70B"): "llama-3.1-70b",
           ("llama3", "405B"): "llama-3.1-405b", ("llama2", "7B"): "llama-2-7b", ("llama2", "13B"): "llama-2-13b",
           ("llama2", "70B"): "llama-2-70b"}
#: torchtitan's scripts/run_train.sh: ``NGPU=${NGPU:-"8"}``, the GPUs a shard degree of -1 spreads over
DEFAULT_GPUS = 8
_IMPLEMENTATIONS = {"fused": OptimizerImpl.FUSED, "foreach": OptimizerImpl.FOREACH, "for-loop": OptimizerImpl.FORLOOP}

UNKNOWN_FLAVOR = QT_TRANSLATE_NOOP("engine", "torchtitan's {value} is not a model VRAM Lab holds (its llama3 8B, 70B, "
                                             "405B and llama2 7B, 13B, 70B are)")
FLOAT8 = QT_TRANSLATE_NOOP("engine", "float8 linears (torchtitan's float8 converter) are not costed")
BAD_AC = QT_TRANSLATE_NOOP("engine", "{value} is not one of torchtitan's activation checkpointing settings (none, "
                                     "full, selective with op or a layer count)")
BAD_PRECISION = QT_TRANSLATE_NOOP("engine", "{value} is not one of torchtitan's parameter dtypes (bfloat16, float32)")
BLOCKS_ONLY = QT_TRANSLATE_NOOP("engine", "compiles the blocks but not the loss; costed with the loss compiled too")

REASONS = {"optimizer.early_step_in_backward": NOT_MODELLED, "training.enable_cpu_offload": NOT_MODELLED}


def _model(d: Draft) -> None:
    name, flavor = str(d.get("model.name") or "llama3"), str(d.get("model.flavor") or "debugmodel")
    known = FLAVORS.get((name, flavor))
    if known is not None:
        d.set(Field.MODEL, known, "model.name", "model.flavor")
    else:
        d.refuse(Field.MODEL, "model.flavor", Message.of(UNKNOWN_FLAVOR, value=f"{name} {flavor}"))
    d.set(Field.STACK, Stack.TORCHTITAN, "model.name")
    d.default(Field.METHOD, Method.FULL)
    converters = common.split_words(d.raw("model.converters") or [])
    if "float8" in converters:
        d.refuse(Field.PRECISION, "model.converters", Message.of(FLOAT8))


def _training(d: Draft) -> None:
    batch_key = "training.local_batch_size" if d.has("training.local_batch_size") else "training.batch_size"
    if not common.whole(d, Field.BATCH, batch_key):
        d.default(Field.BATCH, 8)
    if not common.whole(d, Field.SEQ_LEN, "training.seq_len"):
        d.default(Field.SEQ_LEN, 2048)
    value = d.get("training.mixed_precision_param")
    precisions = {"bfloat16": Precision.BF16_MIXED, "float32": Precision.FP32}
    if value is None:
        d.default(Field.PRECISION, Precision.BF16_MIXED)
    elif str(value) in precisions:
        d.set(Field.PRECISION, precisions[str(value)], "training.mixed_precision_param")
    else:
        d.refuse(Field.PRECISION, "training.mixed_precision_param", Message.of(BAD_PRECISION, value=value))
    d.get("training.mixed_precision_reduce")  # float32 is its only value
    d.default(Field.LOSS, Loss.STANDARD)
    d.default(Field.ATTENTION, Attention.SDPA)


def _checkpointing(d: Draft) -> None:
    """``[activation_checkpoint]`` (module docstring); torchtitan's defaults: selective, every 2nd layer."""
    mode = str(d.get("activation_checkpoint.mode") or "selective").strip().lower()
    option = str(d.get("activation_checkpoint.selective_ac_option") or "2").strip().lower()
    keys = [k for k in ("activation_checkpoint.mode", "activation_checkpoint.selective_ac_option") if d.has(k)]
    facts: list[tuple[Field, Any]] = []
    if mode in ("none", "full"):
        facts.append((Field.CHECKPOINTING, Checkpointing.NONE if mode == "none" else Checkpointing.FULL))
    elif mode == "selective" and option == "op":
        facts.append((Field.CHECKPOINTING, Checkpointing.OP_SELECTIVE))
    elif mode == "selective" and option.isdigit() and int(option) >= 1:
        facts += [(Field.CHECKPOINTING, Checkpointing.FULL), (Field.CHECKPOINT_EVERY, int(option))]
    else:
        d.refuse(Field.CHECKPOINTING, keys[0] if keys else "activation_checkpoint.mode",
                 Message.of(BAD_AC, value=f"{mode} {option}"))
    for field, value in facts:
        _state(d, field, value, *keys)


def _state(d: Draft, field: Field, value: Any, *keys: str) -> None:
    """A fact read from ``keys``, or the tool's default when the file states none of them."""
    if keys:
        d.set(field, value, *keys)
    else:
        d.default(field, value)


def _degree(d: Draft, key: str, default: int) -> int:
    value = d.get(key)
    return value if isinstance(value, int) and not isinstance(value, bool) else default


def _parallelism(d: Draft) -> None:
    """GPUs, sharding and the layout from ``[parallelism]`` (module docstring)."""
    p = "parallelism."
    common.parallel_sizes(d, {Field.TP: p + "tensor_parallel_degree", Field.PP: p + "pipeline_parallel_degree",
                              Field.CP: p + "context_parallel_degree"})
    others = 1
    for key in ("tensor_parallel_degree", "pipeline_parallel_degree", "context_parallel_degree"):
        others *= max(_degree(d, p + key, 1), 1)
    replicate = max(_degree(d, p + "data_parallel_replicate_degree", 1), 1)
    common.replicated(d, p + "data_parallel_replicate_degree")
    shard = _degree(d, p + "data_parallel_shard_degree", -1)
    if shard > 0:
        d.set(Field.GPUS, shard * replicate * others, p + "data_parallel_shard_degree")
    else:
        d.default(Field.GPUS, DEFAULT_GPUS)
    reshard = str(d.get(p + "fsdp_reshard_after_forward") or "default").strip().lower()
    if shard == 1:
        d.set(Field.SHARDING, Sharding.NONE, p + "data_parallel_shard_degree")
    elif d.has(p + "fsdp_reshard_after_forward"):
        sharding = Sharding.ZERO2 if reshard == "never" else Sharding.ZERO3
        d.set(Field.SHARDING, sharding, p + "fsdp_reshard_after_forward")
    else:
        d.default(Field.SHARDING, Sharding.ZERO3)
    if str(d.raw(p + "pipeline_parallel_schedule") or "").strip().lower() == "1f1b":  # the engine's default
        d.get(p + "pipeline_parallel_schedule")
    micro = d.get(p + "pipeline_parallel_microbatch_size")
    batch = d.raw("training.local_batch_size") or d.raw("training.batch_size")
    if _degree(d, p + "pipeline_parallel_degree", 1) > 1 and isinstance(micro, int) and isinstance(batch, int) \
            and micro >= 1 and batch % micro == 0:
        d.set(Field.MICRO_BATCHES, batch // micro, p + "pipeline_parallel_microbatch_size")
    total = d.raw("training.global_batch_size")
    if shard > 0 and isinstance(total, int) and isinstance(batch, int) and total > 0 and batch > 0 \
            and total % (batch * shard * replicate) == 0:
        d.set(Field.GRAD_ACCUM, total // (batch * shard * replicate), "training.global_batch_size")


def _optimizer(d: Draft) -> None:
    name = str(d.get("optimizer.name") or "AdamW").strip().lower()
    if name == "adamw":
        _state(d, Field.OPTIMIZER, Optimizer.ADAMW, *(["optimizer.name"] if d.has("optimizer.name") else []))
        impl = str(d.get("optimizer.implementation") or "").strip().lower()
        if impl in _IMPLEMENTATIONS:
            d.set(Field.OPTIMIZER_IMPL, _IMPLEMENTATIONS[impl], "optimizer.implementation")
    elif not common.optimizer(d, "optimizer.name"):
        d.default(Field.OPTIMIZER, Optimizer.ADAMW)


def _compile(d: Draft) -> None:
    """``[compile] enable`` compiles what ``components`` names (default model and loss); the older
    ``[training] compile`` compiles the blocks only."""
    if common.flag(d, "compile.enable"):
        d.set(Field.COMPILE, True, "compile.enable")
        d.get("compile.components")
    elif common.flag(d, "training.compile"):
        d.approx(Field.COMPILE, True, "training.compile", Message.of(BLOCKS_ONLY))


def map_loaded(d: Draft, loaded: Loaded) -> None:
    """A torchtitan TOML job config."""
    del loaded
    if not any(isinstance(d.raw(s), dict) for s in ("training", "parallelism", "activation_checkpoint", "model")):
        raise ConfigRefusedError(d.path.name, Message.of(NOT_TRAINING_CONFIG))
    _model(d)
    _training(d)
    _checkpointing(d)
    _parallelism(d)
    _optimizer(d)
    _compile(d)
    d.finish(REASONS)
