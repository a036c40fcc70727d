"""DeepSpeed's JSON config: ZeRO stage, offload devices, 16-bit mode, micro-batch and accumulation.

Mapping table (DeepSpeed's config reference, https://www.deepspeed.ai/docs/config-json/, and
``deepspeed/runtime/zero/config.py`` and ``deepspeed/runtime/config.py``):

=========================================================  ====================================================
``zero_optimization.stage`` 0 / 1 / 2 / 3                    sharding none / zero1 / zero2 / zero3 (absent: ZeRO is
                                                             off, DeepSpeed's default stage 0)
``zero_optimization.offload_optimizer.device`` cpu / nvme    offload the optimizer ("none": not; nvme: ZeRO-Infinity's
                                                             disk, engine.training.nvme)
``zero_optimization.offload_param.device`` cpu / nvme        offload the parameters (stage 3 only; nvme: to disk)
``zero_optimization.cpu_offload: true`` (before v0.3.16)     offload the optimizer
``bf16.enabled`` (or ``bfloat16.enabled``) / ``fp16.enabled`` 16-bit training with fp32 master weights and states
                                                             (bf16-mixed / fp16-mixed; Rajbhandari et al. 2020,
                                                             ZeRO, arXiv:1910.02054, s3.1); ``"auto"`` is filled in
                                                             by the Hugging Face Trainer from its own ``bf16`` /
                                                             ``fp16`` (transformers ``integrations/deepspeed.py``),
                                                             so it states nothing here
``train_micro_batch_size_per_gpu``                           micro-batch (``"auto"``: the trainer's)
``gradient_accumulation_steps``                              gradient accumulation (``"auto"``: the trainer's)
``train_batch_size`` = micro x accumulation x data-parallel   the accumulation when it is left open (``"auto"`` or
GPUs (``_batch_assertion``, ``_set_batch_related_parameters``  absent) and the micro-batch is stated, in this file
in ``deepspeed/runtime/config.py``)                          or the trainer's; else the GPU count when the
                                                             micro-batch and accumulation are stated and the
                                                             GPUs are not; a value that fits none of them is
                                                             ignored, with why (``engine.config_import.resolve``)
``optimizer.type`` (Adam, AdamW, FusedAdam, CPUAdam ...)     AdamW; another type is refused
``tensor_parallel.autotp_size``                              the tensor-parallel size (AutoTP)
=========================================================  ====================================================

Other keys do not change the memory of a step as VRAM Lab counts it (communication buckets, prefetch sizes,
``stage3_max_live_parameters``); ``activation_checkpointing`` applies only to Megatron-style models that call
DeepSpeed's checkpointing API, not to Hugging Face models (they use ``gradient_checkpointing``).
"""

from __future__ import annotations

from engine.config_import import common
from engine.config_import.draft import Draft, Field
from engine.config_import.messages import BAD_STAGE, UNKNOWN_OPTIMIZER
from engine.config_import.report import Message
from engine.specs import OffloadDevice, Optimizer, Sharding
from engine.translatable import QT_TRANSLATE_NOOP

STAGES = {0: Sharding.NONE, 1: Sharding.ZERO1, 2: Sharding.ZERO2, 3: Sharding.ZERO3}

#: DeepSpeed files the tools ship, by the path their examples name them with -> (ZeRO stage, optimizer offloaded,
#: parameters offloaded, 16-bit mode or None for "auto", AutoTP size); used when such a file is named but not found
#: beside the config. Axolotl ``deepspeed_configs/`` (commits b0ee9ec7, 3742deb1, ccc94da8, 631268a0; its
#: ``zero2.json`` offloads the optimizer), LLaMA-Factory ``examples/deepspeed/`` (commits a0d44c65, ff6d4d12) and
#: accelerate ``examples/deepspeed_config_templates/`` (commit 16cb6eb8, named from ``config_yaml_templates/``).
KNOWN: dict[str, tuple[int, bool, bool, str | None, int]] = {
    "deepspeed_configs/zero1.json": (1, False, False, None, 1),
    "deepspeed_configs/zero1_torch_compile.json": (1, False, False, None, 1),
    "deepspeed_configs/zero2.json": (2, True, False, None, 1),
    "deepspeed_configs/zero2_torch_compile.json": (2, True, False, None, 1),
    "deepspeed_configs/zero3.json": (3, False, False, None, 1),
    "deepspeed_configs/zero3_bf16.json": (3, False, False, "bf16", 1),
    "deepspeed_configs/zero3_bf16_cpuoffload_all.json": (3, True, True, "bf16", 1),
    "deepspeed_configs/zero3_bf16_cpuoffload_params.json": (3, False, True, "bf16", 1),
    "examples/deepspeed/ds_z0_config.json": (0, False, False, None, 1),
    "examples/deepspeed/ds_z2_config.json": (2, False, False, None, 1),
    "examples/deepspeed/ds_z2_offload_config.json": (2, True, False, None, 1),
    "examples/deepspeed/ds_z2_autotp_config.json": (2, False, False, None, 2),
    "examples/deepspeed/ds_z3_config.json": (3, False, False, None, 1),
    "examples/deepspeed/ds_z3_offload_config.json": (3, True, True, None, 1),
    "examples/deepspeed/ds_z3_fp8_config.json": (3, True, False, None, 1),
    "deepspeed_config_templates/zero_stage1_config.json": (1, False, False, "fp16", 1),
    "deepspeed_config_templates/zero_stage2_config.json": (2, False, False, "fp16", 1),
    "deepspeed_config_templates/zero_stage2_offload_config.json": (2, True, False, "fp16", 1),
    "deepspeed_config_templates/zero_stage3_config.json": (3, False, False, "fp16", 1),
    "deepspeed_config_templates/zero_stage3_offload_config.json": (3, True, True, "fp16", 1),
}
_ADAM_TYPES = {"adam", "adamw", "fusedadam", "cpuadam", "deepspeedcpuadam", "fusedadamw"}

MEGATRON_ONLY = QT_TRANSLATE_NOOP(
    "engine", "DeepSpeed's activation checkpointing serves Megatron-style models; Hugging Face models use "
              "gradient_checkpointing")

REASONS = {"activation_checkpointing": MEGATRON_ONLY}


def read_zero(d: Draft, base: str = "") -> None:
    """Read DeepSpeed's keys under ``base`` (``""`` for a file, ``"deepspeed."`` for a config inlined in another)."""
    d.set(Field.BACKEND, "deepspeed")
    _stage(d, base + "zero_optimization.stage")
    _offload(d, Field.OFFLOAD_OPTIMIZER, base + "zero_optimization.offload_optimizer.device")
    _offload(d, Field.OFFLOAD_PARAMS, base + "zero_optimization.offload_param.device")
    if common.flag(d, base + "zero_optimization.cpu_offload"):
        d.set(Field.OFFLOAD_OPTIMIZER, True, base + "zero_optimization.cpu_offload")
    _half(d, base)
    common.whole(d, Field.BATCH, base + "train_micro_batch_size_per_gpu")
    common.whole(d, Field.GRAD_ACCUM, base + "gradient_accumulation_steps")
    common.whole(d, Field.GLOBAL_BATCH, base + "train_batch_size")
    _optimizer(d, base + "optimizer.type")
    d.ignore(base + "activation_checkpointing", Message.of(MEGATRON_ONLY))
    common.parallel_sizes(d, {Field.TP: base + "tensor_parallel.autotp_size"})


def known(name: str) -> tuple[int, bool, bool, str | None, int] | None:
    """The content of a shipped DeepSpeed file that ``name`` (as a config names it) ends with, if any."""
    path = name.replace("\\", "/").lstrip("./")
    return next((v for k, v in KNOWN.items() if path == k or path.endswith("/" + k)), None)


def apply_known(d: Draft, content: tuple[int, bool, bool, str | None, int]) -> None:
    """The facts of a shipped DeepSpeed file (as the tool's defaults: assumed, since the file was not read)."""
    stage, offload_optimizer, offload_params, half, tp = content
    d.default(Field.SHARDING, STAGES[stage])
    d.default(Field.OFFLOAD_OPTIMIZER, offload_optimizer)
    d.default(Field.OFFLOAD_PARAMS, offload_params)
    if half is not None:
        d.default(Field.HALF, half)
    if tp > 1:
        d.default(Field.TP, tp)


def _stage(d: Draft, key: str) -> None:
    value = d.get(key)
    if value is None:
        if not d.has(key.rsplit(".", 1)[0]):
            d.default(Field.SHARDING, Sharding.NONE)
        return
    if isinstance(value, int) and not isinstance(value, bool) and value in STAGES:
        d.set(Field.SHARDING, STAGES[value], key)
    else:
        d.refuse(Field.SHARDING, key, Message.of(BAD_STAGE, value=value))


def _offload(d: Draft, field: Field, key: str) -> None:
    value = d.get(key)
    if value is None:
        return
    device = str(value).strip().lower()
    d.set(field, device in ("cpu", "nvme"), key)
    if device == "nvme":  # ZeRO-Infinity: the states on disk (engine.training.nvme)
        d.set(DEVICES[field], OffloadDevice.NVME, key)


#: the device field of each offload
DEVICES = {Field.OFFLOAD_OPTIMIZER: Field.OFFLOAD_OPTIMIZER_DEVICE, Field.OFFLOAD_PARAMS: Field.OFFLOAD_PARAMS_DEVICE}


def _half(d: Draft, base: str) -> None:
    """bf16 / fp16 ``enabled``: true states the mode; both false (or one false, the other absent: DeepSpeed's
    default is off) state fp32; "auto", or neither section, states nothing."""
    states: dict[str, tuple[bool | None, str]] = {}
    for mode, keys in (("bf16", ("bf16.enabled", "bfloat16.enabled")), ("fp16", ("fp16.enabled",))):
        for key in keys:
            if d.has(base + key):
                states[mode] = (common.flag(d, base + key), base + key)
    on = [(mode, key) for mode, (value, key) in states.items() if value]
    if on:
        d.set(Field.HALF, on[0][0], on[0][1])
    elif states and all(value is False for value, _ in states.values()):
        d.set(Field.HALF, "none", *(key for _, key in states.values()))


def _optimizer(d: Draft, key: str) -> None:
    value = d.get(key)
    if value is None:
        return
    if str(value).strip().lower().replace("_", "") in _ADAM_TYPES:
        d.set(Field.OPTIMIZER, Optimizer.ADAMW, key)
    else:
        d.refuse(Field.OPTIMIZER, key, Message.of(UNKNOWN_OPTIMIZER, value=value))


def map_file(d: Draft) -> None:
    """A DeepSpeed JSON file (or YAML holding the same keys)."""
    read_zero(d)
    d.finish(REASONS)
