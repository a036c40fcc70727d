"""Axolotl's training YAML (``axolotl train config.yml``).

Mapping table (Axolotl 0.18.0, commit 067b021c: ``src/axolotl/utils/schemas/config.py``, ``training.py``,
``peft.py``; ``src/axolotl/utils/config/__init__.py`` ``resolve_dtype``; ``src/axolotl/loaders/model.py`` and
``adapter.py``):

==========================================================  =================================================
``base_model``                                              the model
``adapter``: lora / qlora (none: full fine-tuning)          LoRA / QLoRA; Axolotl quantizes to 4 bits only with
                                                            ``adapter: qlora`` and ``load_in_4bit: true`` (NF4,
                                                            double quantization, ``loaders/model.py``);
                                                            ``load_in_8bit`` with ``adapter: lora``: lora-8bit;
                                                            gptq refused; ``peft_use_dora``: DoRA
``lora_r`` / ``lora_alpha`` / ``lora_dropout``              rank / alpha (PEFT's 8 / 8 when absent) / 0.0
``lora_target_linear: true``, ``lora_target_modules``       all-linear (every linear layer but the output
                                                            head), or the modules named (a regex's alternation)
``sequence_len``                                            the sequence (default 512)
``micro_batch_size`` / ``gradient_accumulation_steps``      micro-batch / accumulation (default 1 / 1)
``gradient_checkpointing``: true / false / offload /        full / none (default false); ``offload`` (``unsloth``
offload_disk (``unsloth`` before 0.8)                       before Axolotl 0.8, its deprecated name, commit
                                                            5e21b1a9) checkpoints each layer keeping only its
                                                            input, moved to the CPU (Unsloth's offloaded
                                                            checkpointer, ``utils/gradient_checkpointing/
                                                            offload_cpu.py``), ``offload_disk`` to disk: costed
                                                            as full checkpointing with activation offloading
``bf16``: true / false / auto (default auto)                bf16 autocast with the model loaded in bf16; auto
                                                            means bf16 on a GPU that has it (assumed)
``fp16`` / ``bfloat16`` / ``float16``                       fp16 autocast (model in fp16; refused for full
                                                            fine-tuning without DeepSpeed) / pure bf16 / pure
                                                            fp16 (costed as pure bf16: the same bytes); none of
                                                            them: fp32
``optimizer``                                               the optimizer (default ``adamw_torch_fused``)
``attn_implementation`` (or the older ``flash_attention``,   the attention kernel (default: transformers', sdpa)
``sdp_attention``, ``xformers_attention``, ``eager_attention``)
``liger_fused_linear_cross_entropy`` / ``cut_cross_entropy``  the loss: fused-linear-ce (Cut Cross-Entropy costed
                                                            as it, reported)
``activation_offloading``: true / legacy / disk /           saved activations offloaded (disk and checkpoint
hidden_states                                               inputs costed as host RAM, reported)
``deepspeed``                                               a DeepSpeed JSON path (followed) or the config
``fsdp`` / ``fsdp_config`` / ``fsdp_version``               FSDP (``engine.config_import.fsdp``)
``use_ray`` + ``ray_num_workers`` (default 1)                the GPU count (one GPU per Ray worker by default,
                                                            ``utils/schemas/integrations.py``)
``rl``: dpo / ipo / orpo / kto / simpo / grpo               the alignment method
``tensor_parallel_size`` / ``context_parallel_size`` /      the parallel layout's tp / cp / ep (with no GPU count
``expert_parallel_size``                                    stated, tp x cp GPUs are assumed)
==========================================================  =================================================
"""

from __future__ import annotations

from engine.config_import import common, fsdp, training_args
from engine.config_import.draft import Draft, Field
from engine.config_import.messages import (
    EIGHT_BIT,
    NEAR_ATTENTION,
    NEAR_FUSED_LOSS,
    NOT_MODELLED,
    PACKING,
    PARTIAL,
)
from engine.config_import.names import attention_of
from engine.config_import.report import NOT_USED, Message
from engine.specs import Attention, Checkpointing, LoraTargets, Loss, Method, Optimizer, Precision, QuantType
from engine.translatable import QT_TRANSLATE_NOOP

GPTQ = QT_TRANSLATE_NOOP("engine", "a GPTQ-quantized base is not a method VRAM Lab costs")
ADAPTER = QT_TRANSLATE_NOOP("engine", "the {value} adapter is not a method VRAM Lab costs (LoRA and QLoRA are)")
BAD_CHECKPOINTING = QT_TRANSLATE_NOOP("engine", "{value} is not a gradient checkpointing mode of Axolotl (true, "
                                                "false, offload, offload_disk)")
FOUR_BIT_LORA = QT_TRANSLATE_NOOP("engine", "Axolotl quantizes to 4 bits only with adapter: qlora; costed as LoRA "
                                            "on a 16-bit base")
OFFLOADED = QT_TRANSLATE_NOOP(
    "engine", "{value} checkpoints each layer and moves the one tensor it keeps, the layer's input, to host RAM "
              "(Unsloth's offloaded checkpointing); costed as full checkpointing with activation offloading")
OFFLOADED_DISK = QT_TRANSLATE_NOOP(
    "engine", "{value} checkpoints each layer and moves the one tensor it keeps, the layer's input, to disk; costed as "
              "full checkpointing with activation offloading to host RAM")
PURE_FP16 = QT_TRANSLATE_NOOP("engine", "pure fp16 training holds weights, gradients and optimizer states in 16 bits, "
                                         "as pure bf16 does; costed as bf16")
FP16_FULL = QT_TRANSLATE_NOOP("engine", "full fine-tuning of fp16 weights is not costed (fp16 training keeps fp32 "
                                        "master weights only under DeepSpeed)")

GLOBAL_BATCH = QT_TRANSLATE_NOOP("engine", "the global batch; memory depends on the micro-batch (micro_batch_size)")
_NOT_MODELLED_KEYS = (
    "liger_rms_norm", "liger_glu_activation", "liger_layer_norm", "liger_rope", "liger_cross_entropy",
    "liger_rms_norm_gated", "lora_mlp_kernel", "lora_qkv_kernel", "lora_o_kernel", "unsloth_cross_entropy_loss",
    "chunked_cross_entropy", "torch_compile", "plugins", "tiled_mlp", "use_scattermoe", "use_sonicmoe",
    "flash_attn_cross_entropy", "flash_attn_rms_norm", "flash_attn_fuse_qkv", "flash_attn_fuse_mlp")
REASONS = {"batch_size": GLOBAL_BATCH, "sample_packing": PACKING, "pad_to_sequence_len": PACKING,
           **dict.fromkeys(_NOT_MODELLED_KEYS, NOT_MODELLED),
           **dict.fromkeys(("unfrozen_parameters", "lisa_n_layers"), PARTIAL)}
_ALL_LINEAR = ("q_proj", "k_proj", "v_proj", "o_proj", "gate_proj", "up_proj", "down_proj")
_LEGACY_ATTENTION = (("flash_attention", "flash_attention_2"), ("sdp_attention", "sdpa"),
                     ("xformers_attention", "xformers"), ("flex_attention", "flex_attention"),
                     ("eager_attention", "eager"))


def _method(d: Draft) -> None:
    adapter = d.get("adapter")
    four, eight = common.flag(d, "load_in_4bit"), common.flag(d, "load_in_8bit")
    dora = common.flag(d, "peft_use_dora")
    if eight and adapter == "lora":  # LoRA on an LLM.int8 base
        d.set(Field.METHOD, Method.LORA_8BIT, "adapter", "load_in_8bit")
    elif eight:
        d.refuse(Field.METHOD, "load_in_8bit", Message.of(EIGHT_BIT))
    elif common.flag(d, "gptq"):
        d.refuse(Field.METHOD, "gptq", Message.of(GPTQ))
    elif adapter is None:
        d.default(Field.METHOD, Method.FULL)
    elif adapter not in ("lora", "qlora"):
        d.refuse(Field.METHOD, "adapter", Message.of(ADAPTER, value=adapter))
    elif adapter == "qlora" and four:
        d.set(Field.METHOD, Method.QLORA, "adapter", "load_in_4bit")
    else:
        d.set(Field.METHOD, Method.LORA, "adapter")
        if four:
            d.ignore("load_in_4bit", Message.of(FOUR_BIT_LORA))
    common.dora(d, "peft_use_dora", dora)
    d.default(Field.QUANT_TYPE, QuantType.NF4)
    d.default(Field.DOUBLE_QUANT, True)


def _lora(d: Draft) -> None:
    common.lora_numbers(d, ("lora_r", "lora_alpha", "lora_dropout"), (8, 8.0, 0.0))
    linear = common.flag(d, "lora_target_linear")
    modules = common.split_words(d.get("lora_target_modules") or [])
    params = common.split_words(d.get("lora_target_parameters") or [])  # MoE experts' fused weights
    if linear and not modules and not params:
        d.set(Field.LORA_TARGETS, LoraTargets.ALL_LINEAR, "lora_target_linear")
    elif modules or params:
        key = "lora_target_modules" if modules else "lora_target_parameters"
        also = ("lora_target_parameters",) if modules and params else ()
        common.lora_targets(d, key, [*modules, *(_ALL_LINEAR if linear else ()), *params], also=also)
    common.trained_in_full(d, "lora_modules_to_save")


def _precision(d: Draft) -> None:
    bf16, fp16 = d.get("bf16"), common.flag(d, "fp16")
    pure_bf16, pure_fp16 = common.flag(d, "bfloat16"), common.flag(d, "float16")
    if bf16 is True:
        d.set(Field.HALF, "bf16", "bf16")
        d.set(Field.WEIGHTS, "bf16", "bf16")
    elif fp16:
        d.set(Field.HALF, "fp16", "fp16")
        d.set(Field.WEIGHTS, "fp16", "fp16")
    elif pure_bf16:
        d.set(Field.HALF, "none", "bfloat16")
        d.set(Field.WEIGHTS, "bf16", "bfloat16")
    elif pure_fp16:  # weights, gradients and states all fp16: the bytes of pure bf16
        d.approx(Field.PRECISION, Precision.BF16, "float16", Message.of(PURE_FP16))
    elif bf16 is False:
        d.set(Field.HALF, "none", "bf16")
        d.set(Field.WEIGHTS, "fp16" if common.flag(d, "load_in_8bit") else "fp32", "bf16")
    else:  # "auto" or absent: bf16 where the GPU has it
        d.default(Field.HALF, "bf16")
        d.default(Field.WEIGHTS, "bf16")
    if fp16 and d.raw("adapter") is None and not d.has("deepspeed"):
        d.refuse(Field.PRECISION, "fp16", Message.of(FP16_FULL))
    common.fp8(d, "fp8")


#: the offloaded checkpointing modes (``unsloth``: the name of ``offload`` until Axolotl 0.8)
_OFFLOADED = {"offload": OFFLOADED, "unsloth": OFFLOADED, "offload_disk": OFFLOADED_DISK}


def _checkpointing(d: Draft) -> None:
    key = "gradient_checkpointing"
    value = d.get(key)
    mode = str(value).strip().lower() if isinstance(value, str) else None
    if value is None:
        d.default(Field.CHECKPOINTING, Checkpointing.NONE)
    elif mode in _OFFLOADED:
        why = Message.of(_OFFLOADED[mode], value=value)
        d.approx(Field.CHECKPOINTING, Checkpointing.FULL, key, why)
        d.approx(Field.ACTIVATION_OFFLOAD, True, key, why, report=False)
    elif mode in ("true", "false"):
        d.set(Field.CHECKPOINTING, Checkpointing.FULL if mode == "true" else Checkpointing.NONE, key)
    elif isinstance(value, bool):
        d.set(Field.CHECKPOINTING, Checkpointing.FULL if value else Checkpointing.NONE, key)
    else:
        d.refuse(Field.CHECKPOINTING, key, Message.of(BAD_CHECKPOINTING, value=value))
    d.ignore("gradient_checkpointing_kwargs", Message(NOT_USED))  # reentrant or not: the same tensors are kept


def _attention(d: Draft) -> None:
    if common.attention(d, "attn_implementation"):
        return
    for key, name in _LEGACY_ATTENTION:
        if common.flag(d, key):
            found = attention_of(name)
            if found is not None and found[1]:
                d.set(Field.ATTENTION, found[0], key)
            else:
                d.approx(Field.ATTENTION, Attention.SDPA, key, Message.of(NEAR_ATTENTION, value=name,
                                                                              used="sdpa"))
            return
    d.default(Field.ATTENTION, Attention.SDPA)


def _long_context(d: Draft) -> None:
    """Liger's fused linear cross-entropy, Cut Cross-Entropy (costed as it, reported), activation offloading."""
    plugins = [str(p) for p in common.split_words(d.raw("plugins") or [])]
    cce_plugin = any("cut_cross_entropy" in p.lower() for p in plugins)
    cce = common.flag(d, "cut_cross_entropy")
    if common.flag(d, "liger_fused_linear_cross_entropy"):
        d.set(Field.LOSS, Loss.FUSED_LINEAR_CE, "liger_fused_linear_cross_entropy")
    elif cce or (cce_plugin and cce is None):  # the plugin's cut_cross_entropy defaults to true
        d.approx(Field.LOSS, Loss.FUSED_LINEAR_CE, "cut_cross_entropy" if cce else "plugins",
                 Message.of(NEAR_FUSED_LOSS, value="Cut Cross-Entropy"))
    if common.flag(d, "activation_offloading") is not False or Field.ACTIVATION_OFFLOAD not in d.facts:
        common.activation_offload(d, "activation_offloading")  # false does not undo offloaded checkpointing


def _distributed(d: Draft) -> None:
    training_args.deepspeed_key(d)
    option = fsdp.read_option(d, "fsdp")
    config = d.raw("fsdp_config")
    if isinstance(config, dict) and config:
        fsdp.read_config(d, "fsdp_config", "fsdp_version")
    elif not option:
        d.get("fsdp_version")
    cp = "context_parallel_size" if d.has("context_parallel_size") else "sequence_parallel_degree"  # the older name
    common.parallel_sizes(d, {Field.TP: "tensor_parallel_size", Field.CP: cp, Field.EP: "expert_parallel_size"})
    d.get("context_parallel_size")
    _data_parallel(d)


def _data_parallel(d: Draft) -> None:
    """``dp_shard_size`` (FSDP's shard group) x ``dp_replicate_size`` (its replicas) x tp x cp GPUs; replicas above
    one are reported (the estimate shards over every data-parallel GPU)."""
    shard = d.raw("dp_shard_size")
    if isinstance(shard, int) and not isinstance(shard, bool) and shard >= 1:
        sizes = [d.raw(k) for k in ("dp_replicate_size", "tensor_parallel_size", "context_parallel_size",
                                    "sequence_parallel_degree")]
        world = shard
        for size in sizes:
            world *= size if isinstance(size, int) and not isinstance(size, bool) and size >= 1 else 1
        d.set(Field.GPUS, world, "dp_shard_size")
    else:
        d.get("dp_shard_size")
    common.replicated(d, "dp_replicate_size")


def map_file(d: Draft) -> None:
    """An Axolotl training file."""
    common.model(d, "base_model")
    _method(d)
    _lora(d)
    if not common.whole(d, Field.SEQ_LEN, "sequence_len"):
        d.default(Field.SEQ_LEN, 512)
    if not common.whole(d, Field.BATCH, "micro_batch_size"):
        d.default(Field.BATCH, 1)
    if not common.whole(d, Field.GRAD_ACCUM, "gradient_accumulation_steps"):
        d.default(Field.GRAD_ACCUM, 1)
    _checkpointing(d)
    _precision(d)
    if not common.optimizer(d, "optimizer"):
        d.default(Field.OPTIMIZER, Optimizer.ADAMW)
    common.hf_trainer(d)
    _attention(d)
    _long_context(d)
    _distributed(d)
    if common.flag(d, "use_ray") and not common.whole(d, Field.GPUS, "ray_num_workers"):
        d.default(Field.GPUS, 1)
    common.alignment(d, "rl")
    d.finish(REASONS)
