"""LLaMA-Factory's training YAML (``llamafactory-cli train``), and its v1 layout (``model:``, ``peft_config:``).

Mapping table (LLaMA-Factory 0.9.6.dev0, commit ff6d4d12: ``src/llamafactory/hparams/finetuning_args.py``,
``model_args.py``, ``data_args.py``, ``parser.py``, ``model/adapter.py``; the ``TrainingArguments`` keys it
passes through are in ``engine.config_import.training_args``):

=====================================================  =======================================================
``model_name_or_path``                                 the model
``stage``: sft / pt / rm / ppo / dpo / kto             the alignment method (rm: reward modelling;
                                                       ``pref_loss: orpo`` or ``simpo`` turns dpo into those)
``finetuning_type`` (default **lora**)                 lora / full / freeze (``freeze_trainable_layers``, 2) /
                                                       oft (``oft_block_size``, 32)
``quantization_bit: 4`` / ``8`` (bnb)                  QLoRA / lora-8bit; other bit widths or methods refused
``use_dora``                                           DoRA
``use_galore`` / ``use_apollo`` / ``use_adam_mini`` /   the optimizer (``galore_rank`` / ``apollo_rank``, 16);
``use_muon`` / ``use_badam``                           BAdam the method; layer-wise and ratio modes refused
``quantization_type`` / ``double_quantization``        nf4 / true by default
``lora_rank`` / ``lora_alpha`` / ``lora_dropout``      8 / 2 x rank / 0 by default
``lora_target`` (default ``all``)                      the target set, comma-separated
``cutoff_len``                                         the sequence (default 2,048)
``disable_gradient_checkpointing`` (default false)     LLaMA-Factory **turns gradient checkpointing on** unless
                                                       this is true (``model/model_utils/checkpointing.py``)
``bf16`` / ``fp16`` / ``pure_bf16``                    the compute dtype; the model loads in it
``flash_attn``: auto / disabled / sdpa / fa2 / fa3     sdpa (transformers' choice) / eager / sdpa / flash
``ray_num_workers``                                    the GPU count of a Ray run (one GPU per worker)
``enable_liger_kernel``                                the loss: fused-linear-ce (``model_utils/liger_kernel.py``
                                                       fuses it unless the stage needs the logits)
=====================================================  =======================================================

Precision: the model is loaded in the compute dtype (bf16 with ``bf16: true``; with neither flag the
checkpoint's, taken as bf16). For full fine-tuning LLaMA-Factory then casts the trainable parameters to fp32
unless ``pure_bf16`` or DeepSpeed ZeRO-3 (``model/adapter.py``: "cast trainable parameters to float32"), so a
full run with ``bf16: true`` is amp-bf16; LoRA adapters are fp32 and the frozen base stays in the compute dtype.

v1 layout (``src/llamafactory/v1/config/*.py``): ``model``; ``peft_config`` {``name`` lora / freeze, ``r``,
``lora_alpha``, ``lora_dropout``, ``target_modules``}; ``quant_config.quantization_bit``; ``dist_config``
{``name`` fsdp2 / deepspeed, ``config_file``, ``reshard_after_forward``, ``offload_params``};
``micro_batch_size`` (default 1); ``cutoff_len`` (2,048); ``bf16`` (default **true**);
``enable_activation_checkpointing`` (default **true**); the model loads with ``dtype="auto"`` (the checkpoint's,
taken as bf16) and its own FSDP2 plugin keeps it so.
"""

from __future__ import annotations

from engine.config_import import common, training_args
from engine.config_import.draft import Draft, Field
from engine.config_import.messages import NOT_MODELLED, NOT_TRAINING_RUN, PACKING
from engine.config_import.names import ATTENTION, AlignmentMethod
from engine.config_import.report import ConfigRefusedError, Message
from engine.specs import (
    Attention,
    Checkpointing,
    LoraTargets,
    Loss,
    Method,
    Optimizer,
    Precision,
    QuantType,
    Sharding,
)
from engine.translatable import QT_TRANSLATE_NOOP

FREEZE = QT_TRANSLATE_NOOP("engine", "{value} fine-tuning in this form is not costed (freeze: whole layers with "
                                     "every module; oft: by block size)")
QUANT_BITS = QT_TRANSLATE_NOOP("engine", "a base quantized to {value} bits is not costed (4-bit QLoRA and 8-bit LoRA "
                                         "are)")
QUANT_METHOD = QT_TRANSLATE_NOOP("engine", "{value} quantization is not costed (bitsandbytes 4-bit is)")
OPTIMIZER_SWITCH = QT_TRANSLATE_NOOP("engine", "{value} in its layer-wise mode (or BAdam's ratio mode) is not costed")
SWITCH_METHOD = QT_TRANSLATE_NOOP("engine", "{value} is costed on full fine-tuning only (LLaMA-Factory refuses "
                                            "GaLore, APOLLO and BAdam with LoRA)")

REASONS = {"use_kt": NOT_MODELLED, "use_unsloth": NOT_MODELLED,
           "use_unsloth_gc": NOT_MODELLED, "packing": PACKING, "neat_packing": PACKING}
#: LLaMA-Factory's optimizer switches and what each is (BAdam: a method, engine.training.partial)
_SWITCHES = {"use_galore": Optimizer.GALORE_ADAMW, "use_apollo": Optimizer.APOLLO_ADAMW, "use_badam": Optimizer.ADAMW,
             "use_adam_mini": Optimizer.ADAM_MINI, "use_muon": Optimizer.MUON}
_LOSS = {"orpo": AlignmentMethod.ORPO, "simpo": AlignmentMethod.SIMPO, "ipo": AlignmentMethod.IPO}
_ATTENTION = {**ATTENTION, "disabled": Attention.EAGER, "auto": Attention.SDPA}


def _stage(d: Draft) -> None:
    stage = d.get("stage")
    loss = str(d.get("pref_loss") or "").lower()
    if stage == "dpo" and loss in _LOSS:
        d.set(Field.ALIGNMENT, _LOSS[loss], "stage", "pref_loss")
    else:
        common.alignment(d, "stage", stage)


def _method(d: Draft) -> None:
    kind = d.get("finetuning_type")
    bits = d.get("quantization_bit")
    qmethod = str(d.get("quantization_method") or "bnb").lower()
    if kind == "freeze":
        _freeze(d)
    elif kind == "oft":
        _oft(d)
    elif bits is not None and bits not in (4, 8):
        d.refuse(Field.METHOD, "quantization_bit", Message.of(QUANT_BITS, value=bits))
    elif bits is not None and qmethod not in ("bnb", "bitsandbytes"):
        d.refuse(Field.METHOD, "quantization_method", Message.of(QUANT_METHOD, value=qmethod))
    elif bits is not None and kind not in (None, "lora"):
        d.refuse(Field.METHOD, "quantization_bit", Message.of(QUANT_BITS, value=bits))
    elif bits is not None:
        keys = ["quantization_bit"] + (["finetuning_type"] if kind else [])
        d.set(Field.METHOD, Method.QLORA if bits == 4 else Method.LORA_8BIT, *keys)
    elif kind in ("lora", "full"):
        d.set(Field.METHOD, Method.LORA if kind == "lora" else Method.FULL, "finetuning_type")
    elif kind is None:
        d.default(Field.METHOD, Method.LORA)
    else:
        d.refuse(Field.METHOD, "finetuning_type", Message.of(FREEZE, value=kind))
    common.dora(d, "use_dora", common.flag(d, "use_dora"))


def _freeze(d: Draft) -> None:
    """Freeze tuning (``_setup_freeze_tuning``): the last n or first -n layers, every module of them; a subset of
    modules, extra modules, LLaMA Pro's interleaved layers or pure bf16 (no fp32 upcast) are refused."""
    for key in ("freeze_extra_modules", "use_llama_pro", "pure_bf16"):
        if common.flag(d, key) or (key == "freeze_extra_modules" and d.has(key)):
            d.refuse(Field.METHOD, key, Message.of(FREEZE, value="freeze"))
            return
    modules = d.get("freeze_trainable_modules")
    if modules not in (None, "all"):
        d.refuse(Field.METHOD, "freeze_trainable_modules", Message.of(FREEZE, value="freeze"))
        return
    d.set(Field.METHOD, Method.FREEZE, "finetuning_type")
    layers = d.get("freeze_trainable_layers")
    if isinstance(layers, int) and not isinstance(layers, bool) and layers:
        d.set(Field.FREEZE_LAYERS, layers, "freeze_trainable_layers")
    else:
        d.default(Field.FREEZE_LAYERS, 2)


def _oft(d: Draft) -> None:
    """OFT (``_setup_oft_tuning``, PEFT's OFTConfig): ``oft_block_size`` (32); a rank instead (``oft_rank`` > 0)
    is refused, as are other targets than the LoRA ones (``oft_target``, read like ``lora_target``)."""
    rank = d.get("oft_rank")
    if isinstance(rank, int) and rank > 0:
        d.refuse(Field.METHOD, "oft_rank", Message.of(FREEZE, value="oft"))
        return
    d.set(Field.METHOD, Method.OFT, "finetuning_type")
    block = d.get("oft_block_size")
    if isinstance(block, int) and not isinstance(block, bool):
        d.set(Field.OFT_BLOCK, block, "oft_block_size")
    if not common.lora_targets(d, "oft_target"):
        d.default(Field.LORA_TARGETS, LoraTargets.ALL_LINEAR)


def _lora(d: Draft, keys: tuple[str, str, str, str], rank: int) -> None:
    """LoRA's rank, alpha, dropout and targets from ``keys`` (in that order), with LLaMA-Factory's defaults."""
    common.lora_numbers(d, keys[:3], (rank, None, 0.0))
    if not common.lora_targets(d, keys[3]):
        d.default(Field.LORA_TARGETS, LoraTargets.ALL_LINEAR)
    common.trained_in_full(d, "additional_target")


def _precision(d: Draft) -> None:
    training_args.half(d, "none")
    pure = common.flag(d, "pure_bf16")
    half = "bf16" if common.flag(d, "bf16") else "fp16" if common.flag(d, "fp16") else None
    full = d.raw("finetuning_type") == "full"
    if pure:
        d.set(Field.HALF, "none", "pure_bf16")
        d.set(Field.WEIGHTS, "bf16", "pure_bf16")
    elif full:
        d.default(Field.WEIGHTS, "fp32")  # trainable parameters upcast (model/adapter.py)
    elif half is not None:
        d.set(Field.WEIGHTS, half, half)
    else:
        d.default(Field.WEIGHTS, "bf16")


def _attention(d: Draft, key: str) -> None:
    value = d.get(key)
    if value is None:
        d.default(Field.ATTENTION, Attention.SDPA)
    elif str(value).lower() in _ATTENTION:
        d.set(Field.ATTENTION, _ATTENTION[str(value).lower()], key)
    else:
        common.attention(d, key)


def _training(d: Draft) -> None:
    """Refuse inference, evaluation and export configs (no ``do_train``, and no ``stage`` or a predict flag)."""
    if common.flag(d, "do_train"):
        return
    if not d.has("stage") or common.flag(d, "do_predict") or common.flag(d, "do_eval") or d.has("export_dir"):
        raise ConfigRefusedError(d.path.name, Message.of(NOT_TRAINING_RUN))


def _megatron(d: Draft) -> None:
    """LLaMA-Factory's Megatron runs (``train/megatron_bridge``, ``train/mca``): tensor / pipeline / context / expert
    parallel sizes and sequence parallelism; the distributed optimizer shards the optimizer states (ZeRO-1's
    memory); ``mixed_precision: bf16_mixed`` keeps fp32 master weights. With pipeline parallelism the accumulation
    steps are taken as the micro-batches per step (global batch = micro-batch x accumulation x world size,
    ``megatron_bridge/config_builder.py``), reported as assumed."""
    keys = {Field.TP: "tensor_model_parallel_size", Field.PP: "pipeline_model_parallel_size",
            Field.CP: "context_parallel_size", Field.EP: "expert_model_parallel_size"}
    if not any(d.has(k) for k in (*keys.values(), "use_distributed_optimizer")):
        return
    d.set(Field.BACKEND, "megatron")
    common.parallel_sizes(d, keys)
    if common.flag(d, "sequence_parallel"):
        d.set(Field.SEQUENCE_PARALLEL, True, "sequence_parallel")
    pp, accum = d.raw("pipeline_model_parallel_size"), d.raw("gradient_accumulation_steps")
    if isinstance(pp, int) and pp > 1 and isinstance(accum, int) and accum > 0:
        d.default(Field.MICRO_BATCHES, accum)
    if common.flag(d, "use_distributed_optimizer"):
        d.set(Field.SHARDING, Sharding.ZERO1, "use_distributed_optimizer")
    granularity = str(d.get("recompute_granularity") or "").lower()
    if granularity in ("full", "selective"):
        d.set(Field.CHECKPOINTING, Checkpointing(granularity), "recompute_granularity")
    if str(d.get("mixed_precision") or "").lower() == "bf16_mixed":
        d.set(Field.PRECISION, Precision.BF16_MIXED, "mixed_precision")


def _v0(d: Draft) -> None:
    _training(d)
    common.model(d, "model_name_or_path")
    _stage(d)
    _method(d)
    _lora(d, ("lora_rank", "lora_alpha", "lora_dropout", "lora_target"), 8)
    common.quantization(d, "quantization_type", "double_quantization", double_default=True)
    if not common.whole(d, Field.SEQ_LEN, "cutoff_len"):
        d.default(Field.SEQ_LEN, 2048)
    training_args.batch(d)
    off = common.flag(d, "disable_gradient_checkpointing")
    if off is None:
        d.default(Field.CHECKPOINTING, Checkpointing.FULL)
    else:
        d.set(Field.CHECKPOINTING, Checkpointing.NONE if off else Checkpointing.FULL, "disable_gradient_checkpointing")
    _precision(d)
    common.fp8(d, "fp8")
    if not _switch(d):
        training_args.optimizer(d)
    common.hf_trainer(d)
    training_args.distributed(d)
    _attention(d, "flash_attn")
    if common.flag(d, "enable_liger_kernel"):  # fused_linear_cross_entropy unless the stage needs logits
        d.set(Field.LOSS, Loss.FUSED_LINEAR_CE, "enable_liger_kernel")
    common.whole(d, Field.GPUS, "ray_num_workers")
    _megatron(d)
    d.finish(REASONS)


def _switch(d: Draft) -> bool:
    """LLaMA-Factory's optimizer switches (``train/trainer_utils.py`` ``create_custom_optimizer``): GaLore and
    APOLLO with their ``*_rank`` (16 by default), Adam-mini, Muon, BAdam (its layer mode: the method); their
    layer-wise variants, BAdam's ratio mode, and any but Muon without full fine-tuning (LLaMA-Factory's
    ``FinetuningArguments.__post_init__`` refuses LoRA with GaLore, APOLLO and BAdam) are refused. True when a
    switch is on."""
    switch = next((k for k in _SWITCHES if common.flag(d, k)), None)
    if switch is None:
        return False
    prefix = switch.removeprefix("use_")
    if common.flag(d, f"{prefix}_layerwise") or (switch == "use_badam" and d.get("badam_mode") == "ratio"):
        d.refuse(Field.OPTIMIZER, switch, Message.of(OPTIMIZER_SWITCH, value=switch))
        return True
    method = d.facts.get(Field.METHOD)
    if switch != "use_muon" and (method is None or method.value is not Method.FULL):
        d.refuse(Field.OPTIMIZER, switch, Message.of(SWITCH_METHOD, value=switch))
        return True
    if switch == "use_badam":
        d.set(Field.METHOD, Method.BADAM, switch)
        d.set(Field.OPTIMIZER, Optimizer.ADAMW, switch)  # the Trainer's AdamW inside BlockOptimizer
        return True
    d.set(Field.OPTIMIZER, _SWITCHES[switch], switch)
    if switch in ("use_galore", "use_apollo"):
        rank = d.get(f"{prefix}_rank")
        if isinstance(rank, int) and not isinstance(rank, bool):
            d.set(Field.OPTIMIZER_RANK, rank, f"{prefix}_rank")
        else:
            d.default(Field.OPTIMIZER_RANK, 16)
    return True


def _v1_method(d: Draft) -> None:
    name = d.get("peft_config.name")
    bits = d.get("quant_config.quantization_bit")
    if name == "freeze":
        d.refuse(Field.METHOD, "peft_config.name", Message.of(FREEZE, value=name))
    elif bits is not None and bits != 4:
        d.refuse(Field.METHOD, "quant_config.quantization_bit", Message.of(QUANT_BITS, value=bits))
    elif bits == 4:
        d.set(Field.METHOD, Method.QLORA, "quant_config.quantization_bit")
    elif name == "lora":
        d.set(Field.METHOD, Method.LORA, "peft_config.name")
    else:
        d.default(Field.METHOD, Method.FULL)
    d.default(Field.QUANT_TYPE, QuantType.NF4)
    d.default(Field.DOUBLE_QUANT, True)


def _v1_dist(d: Draft) -> None:
    name = str(d.get("dist_config.name") or "").lower()
    if name == "deepspeed" and d.has("dist_config.config_file"):
        d.set(Field.BACKEND, "deepspeed", "dist_config.name")
        d.follow_file("dist_config.config_file", str(d.get("dist_config.config_file")))
    elif name.startswith("fsdp"):  # fsdp2, or fsdpturbo with its expert parallel size
        d.set(Field.BACKEND, "fsdp-native", "dist_config.name")  # its own plugin: no fp32 upcast
        common.whole(d, Field.EP, "dist_config.ep_size")
        reshard = common.flag(d, "dist_config.reshard_after_forward")
        if reshard is None:
            d.default(Field.SHARDING, Sharding.ZERO3)
        else:
            d.set(Field.SHARDING, Sharding.ZERO3 if reshard else Sharding.ZERO2, "dist_config.reshard_after_forward")
        if common.flag(d, "dist_config.offload_params"):
            d.set(Field.OFFLOAD_PARAMS, True, "dist_config.offload_params")
            d.set(Field.OFFLOAD_OPTIMIZER, True, "dist_config.offload_params")


def _v1(d: Draft) -> None:
    common.model(d, "model")
    _v1_method(d)
    _lora(d, ("peft_config.r", "peft_config.lora_alpha", "peft_config.lora_dropout", "peft_config.target_modules"), 8)
    if not common.whole(d, Field.SEQ_LEN, "cutoff_len"):
        d.default(Field.SEQ_LEN, 2048)
    if not common.whole(d, Field.BATCH, "micro_batch_size"):
        d.default(Field.BATCH, 1)
    d.default(Field.GRAD_ACCUM, 1)
    on = common.flag(d, "enable_activation_checkpointing")
    if on is None:
        d.default(Field.CHECKPOINTING, Checkpointing.FULL)
    else:
        d.set(Field.CHECKPOINTING, Checkpointing.FULL if on else Checkpointing.NONE, "enable_activation_checkpointing")
    bf16 = common.flag(d, "bf16")
    if bf16 is None:
        d.default(Field.HALF, "bf16")
    else:
        d.set(Field.HALF, "bf16" if bf16 else "none", "bf16")
    d.default(Field.WEIGHTS, "bf16")
    if d.has("optim_config.name"):
        common.optimizer(d, "optim_config.name")
    else:
        d.default(Field.OPTIMIZER, Optimizer.ADAMW)
    _v1_dist(d)
    common.ulysses(d, "cp_size")  # cp_mode: ulysses, the only one
    _attention(d, "flash_attn")
    d.finish(REASONS)


def map_file(d: Draft) -> None:
    """A LLaMA-Factory training file, in its usual layout or the v1 one."""
    if d.has("model_name_or_path"):
        _v0(d)
    else:
        _v1(d)
