"""accelerate's launch config (``accelerate launch --config_file <file>``, as ``accelerate config`` writes it).

Mapping table (accelerate v1.15.0.dev0, commit 16cb6eb8: ``src/accelerate/commands/config/config_args.py``,
``src/accelerate/utils/dataclasses.py``, ``accelerator.py``; FSDP keys in ``engine.config_import.fsdp``):

=====================================================  ==========================================================
``distributed_type``: NO / MULTI_GPU                   no sharding (one GPU, or plain data parallel)
``distributed_type``: DEEPSPEED + ``deepspeed_config``  ``zero_stage`` -> zeroN, ``offload_optimizer_device`` /
                                                       ``offload_param_device`` cpu or nvme -> offload, or the
                                                       ``deepspeed_config_file`` it names (followed)
``distributed_type``: FSDP + ``fsdp_config``           FSDP's strategy, offload and activation checkpointing
``distributed_type``: MEGATRON_LM                      ``megatron_lm_config``: tp / pp degrees, micro-batches,
                                                       sequence parallelism, distributed optimizer (zero1)
``distributed_type``: XLA, MULTI_CPU ...               refused (not a GPU run)
``num_processes``                                      the GPU count (all machines together; 1 with ``NO``)
``parallelism_config`` ``tp_size`` / ``cp_size``         the tensor / context parallel sizes; ``sp_size`` > 1,
                                                       DeepSpeed-Ulysses: cp with the all-to-all (``a2a``),
                                                       refused beside ``cp_size`` > 1; ``dp_replicate_size`` > 1,
                                                       HSDP, is reported: costed as sharded over all the GPUs)
``mixed_precision``: no (the default) / bf16 / fp16    the 16-bit autocast; under FSDP accelerate upcasts the
                                                       trainable parameters to fp32 when it is on (the
                                                       "FSDP upcast of low precision parameters" of
                                                       ``accelerator.py`` and ``utils/fsdp_utils.py``)
=====================================================  ==========================================================

The model's own dtype is the training script's choice, which the file does not say.
"""

from __future__ import annotations

from engine.config_import import common, fsdp
from engine.config_import.deepspeed import DEVICES, STAGES
from engine.config_import.draft import Draft, Field
from engine.config_import.messages import BAD_STAGE, FP8
from engine.config_import.report import Message
from engine.specs import OffloadDevice, Sharding
from engine.translatable import QT_TRANSLATE_NOOP

NOT_GPU = QT_TRANSLATE_NOOP("engine", "{value} is not a run on NVIDIA or AMD GPUs that VRAM Lab costs")
ONE_PROCESS = QT_TRANSLATE_NOOP("engine", "distributed_type NO runs one process")

_DATA_PARALLEL = ("NO", "MULTI_GPU")
_NOT_GPU = ("XLA", "TPU", "MULTI_CPU", "MULTI_XPU", "MULTI_NPU", "MULTI_MLU", "MULTI_SDAA", "MULTI_MUSA",
            "MULTI_HPU", "MULTI_NEURON")


def _deepspeed(d: Draft) -> None:
    d.set(Field.BACKEND, "deepspeed", "distributed_type")
    path = d.get("deepspeed_config.deepspeed_config_file")
    if isinstance(path, str) and path.strip() and path.strip().lower() != "none":
        d.follow_file("deepspeed_config.deepspeed_config_file", path.strip())
        return
    stage = d.get("deepspeed_config.zero_stage")
    if isinstance(stage, int) and not isinstance(stage, bool) and stage in STAGES:
        d.set(Field.SHARDING, STAGES[stage], "deepspeed_config.zero_stage")
    elif stage is not None:
        d.refuse(Field.SHARDING, "deepspeed_config.zero_stage", Message.of(BAD_STAGE, value=stage))
    for field, name in ((Field.OFFLOAD_OPTIMIZER, "optimizer"), (Field.OFFLOAD_PARAMS, "param")):
        key = f"deepspeed_config.offload_{name}_device"
        value = d.get(key)
        if value is not None:
            d.set(field, str(value).strip().lower() in ("cpu", "nvme"), key)
            if str(value).strip().lower() == "nvme":  # ZeRO-Infinity: the states on disk
                d.set(DEVICES[field], OffloadDevice.NVME, key)
    common.whole(d, Field.GRAD_ACCUM, "deepspeed_config.gradient_accumulation_steps")


def _kind(d: Draft) -> None:
    kind = str(d.get("distributed_type") or "NO").strip().upper()
    if kind in _DATA_PARALLEL:
        d.set(Field.BACKEND, "none", "distributed_type")
        d.set(Field.SHARDING, Sharding.NONE, "distributed_type")
        if kind == "NO":
            d.set(Field.GPUS, 1, "distributed_type")
            d.ignore("num_processes", Message.of(ONE_PROCESS))
    elif kind == "DEEPSPEED":
        _deepspeed(d)
    elif kind == "FSDP":
        if isinstance(d.raw("fsdp_config"), dict):
            fsdp.read_config(d, "fsdp_config")
        else:
            d.set(Field.BACKEND, "fsdp", "distributed_type")
            d.default(Field.SHARDING, Sharding.ZERO3)
            d.default(Field.FSDP_VERSION, 1)
    elif kind == "MEGATRON_LM":
        _megatron(d)
    else:
        d.refuse(Field.SHARDING, "distributed_type", Message.of(NOT_GPU, value=kind))


def _parallelism(d: Draft) -> None:
    """``parallelism_config``: tensor and context parallel sizes; DeepSpeed-Ulysses sequence parallelism
    (``sp_size``): context parallelism exchanging q / k / v all-to-all (``common.ulysses``)."""
    prefix = "parallelism_config.parallelism_config_"
    common.parallel_sizes(d, {Field.TP: prefix + "tp_size", Field.CP: prefix + "cp_size"})
    common.replicated(d, prefix + "dp_replicate_size")  # HSDP: FSDP within groups, replicas across them
    common.ulysses(d, prefix + "sp_size")


def _megatron(d: Draft) -> None:
    """accelerate's MEGATRON_LM: ``megatron_lm_config`` tp / pp degrees, micro-batches and sequence parallelism
    (``utils/dataclasses.py`` ``MegatronLMPlugin``; its distributed optimizer shards the optimizer states)."""
    prefix = "megatron_lm_config.megatron_lm_"
    d.set(Field.BACKEND, "megatron", "distributed_type")
    common.parallel_sizes(d, {Field.TP: prefix + "tp_degree", Field.PP: prefix + "pp_degree",
                              Field.MICRO_BATCHES: prefix + "num_micro_batches"})
    if common.flag(d, prefix + "sequence_parallelism"):
        d.set(Field.SEQUENCE_PARALLEL, True, prefix + "sequence_parallelism")
    if common.flag(d, prefix + "use_distributed_optimizer"):
        d.set(Field.SHARDING, Sharding.ZERO1, prefix + "use_distributed_optimizer")


def _mixed_precision(d: Draft) -> None:
    value = d.get("mixed_precision")
    mode = "no" if value is False else str(value).strip().lower() if value is not None else None
    if mode is None:
        d.default(Field.HALF, "none")
    elif mode in ("bf16", "fp16"):
        d.set(Field.HALF, mode, "mixed_precision")
    elif mode == "no":
        d.set(Field.HALF, "none", "mixed_precision")
    else:
        d.refuse(Field.PRECISION, "mixed_precision", Message.of(FP8, value=value))


def map_file(d: Draft) -> None:
    """An accelerate config file."""
    if common.flag(d, "use_cpu"):
        d.refuse(Field.SHARDING, "use_cpu", Message.of(NOT_GPU, value="use_cpu: true"))
    _kind(d)
    if Field.GPUS not in d.facts:  # distributed_type NO has set it to 1
        common.whole(d, Field.GPUS, "num_processes")
    _parallelism(d)
    _mixed_precision(d)
    d.finish()
