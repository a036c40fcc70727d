"""TRL and transformers training arguments: the YAML recipes of TRL and alignment-handbook, and the JSON that
``TrainingArguments.to_json_string()`` writes.

Mapping table (TRL ``trl/trainer/base_config.py``, ``sft_config.py``, ``dpo_config.py``, ``grpo_config.py``,
``kto_config.py``, ``reward_config.py``, ``model_config.py`` at v1.10.0.dev0, commit f2cd5771; the shared
``TrainingArguments`` keys are in ``engine.config_import.training_args``):

====================================================  ========================================================
``model_name_or_path``                                the model
``use_peft`` (default false)                          LoRA; with ``load_in_4bit`` QLoRA, with ``load_in_8bit``
                                                      lora-8bit (an 8-bit base alone is refused); ``use_dora``
                                                      DoRA on a 16-bit base
``lora_r`` / ``lora_alpha`` / ``lora_dropout``        16 / 32 / 0.05 by default (``ModelConfig``)
``lora_target_modules``                               absent: PEFT's default for the model type, ``q_proj`` and
                                                      ``v_proj`` for Llama, Mistral, Qwen2 and Gemma (PEFT
                                                      ``TRANSFORMERS_MODELS_TO_LORA_TARGET_MODULES_MAPPING``)
``bnb_4bit_quant_type`` / ``use_bnb_nested_quant``    nf4 / false (no double quantization) by default
``dtype`` (``torch_dtype`` before TRL 0.20), also     the dtype the model is loaded in; absent: float32
under ``model_init_kwargs``                           (``ModelConfig.dtype`` default, and SFTTrainer's when
                                                      ``model_init_kwargs`` has none); ``auto`` keeps the
                                                      checkpoint's, taken as bf16 (reported)
``bf16``                                              TRL's default: true unless ``fp16`` is set
``gradient_checkpointing``                            TRL's default: true
``max_length``                                        the sequence (SFT, DPO, KTO, reward: 1,024 by default);
                                                      ``max_seq_length`` before TRL 0.20; a JSON dump of plain
                                                      ``TrainingArguments`` has none, so it is left open
``max_prompt_length`` + ``max_completion_length``     the sequence of GRPO and RLOO (completion: 512 by
                                                      default); without a prompt bound it is left open
``attn_implementation``                               the attention kernel (alignment-handbook's older
                                                      ``use_flash_attention_2: true``: flash-attn 2)
``lora_modules_to_save``                              modules trained in full beside LoRA: refused (their
                                                      gradients and optimizer states are not counted)
``use_liger_kernel`` / ``loss_type: chunked_nll``       the loss: fused-linear-ce / chunked (TRL's own
                                                      chunked_nll, ``engine.training.loss``); absent, standard
                                                      is used, the upper bound (SFT's default is chunked_nll
                                                      in TRL 1.7 to 1.14, nll before, a fused LM head from
                                                      1.15: the file does not say which TRL runs it)
``activation_offloading``                             saved activations offloaded to host RAM
====================================================  ========================================================

A file with keys that ask for a method in a way no TRL or transformers config does (a training script's own
arguments: Firefly's ``train_mode``, open-instruct's ``use_lora`` / ``use_qlora``) is no TRL file:
``engine.config_import.scripts`` reads it.

The alignment method is the trainer's: keys only GRPO (``num_generations``, ``use_vllm``), PPO
(``num_ppo_epochs``, ``vf_coef``), KTO (``desirable_weight``), RLOO (``rloo_k``) or reward modelling
(``center_rewards_coefficient``) take name it; otherwise the file's folder or name (``recipes/.../dpo/``,
``orpo``), reported as assumed; otherwise DPO's keys (``beta``, ``max_prompt_length``, a ``loss_type`` that is not
SFT's ``nll`` / ``dft`` / ``chunked_nll``; ``ipo`` alone is IPO).
"""

from __future__ import annotations

import re
from pathlib import Path

from engine.config_import import common, training_args
from engine.config_import.draft import Draft, Field
from engine.config_import.messages import EIGHT_BIT, KNOWN_CONTENT, PACKING
from engine.config_import.names import AlignmentMethod, dtype_of
from engine.config_import.report import Message
from engine.specs import Attention, LoraTargets, Loss, Method, Sharding
from engine.translatable import QT_TRANSLATE_NOOP

AUTO_DTYPE = QT_TRANSLATE_NOOP("engine", "{value} keeps the checkpoint's dtype, taken as bf16")
OPEN_PROMPT = QT_TRANSLATE_NOOP(
    "engine", "the sequence is the prompt plus the completion, and the file does not bound the prompt "
              "(max_prompt_length)")
FOUR_BIT_ALONE = QT_TRANSLATE_NOOP("engine", "a 4-bit base trains only through adapters (use_peft is not set)")

REASONS = {"padding_free": PACKING, "packing": PACKING}

_SIGNATURES = (
    (AlignmentMethod.GRPO, ("num_generations", "use_vllm", "reward_weights", "reward_funcs")),
    (AlignmentMethod.PPO, ("num_ppo_epochs", "vf_coef", "cliprange_value", "whiten_rewards")),
    (AlignmentMethod.RLOO, ("rloo_k",)),
    (AlignmentMethod.KTO, ("desirable_weight", "undesirable_weight")),
    (AlignmentMethod.REWARD, ("center_rewards_coefficient",)),
)
_DPO_KEYS = ("beta", "max_prompt_length", "loss_type", "rpo_alpha", "precompute_ref_log_probs", "reference_free",
             "ref_model_init_kwargs")
# SFTConfig's own loss types (trl/trainer/sft_config.py): not DPO's
_SFT_LOSSES = frozenset({"nll", "dft", "chunked_nll"})
_PATH_WORDS = {m.value: m for m in AlignmentMethod} | {"rm": AlignmentMethod.REWARD, "sft": None}


def _path_hint(path: Path) -> tuple[bool, AlignmentMethod | None]:
    """The method a recipe's folder or name gives (``recipes/zephyr-7b-beta/dpo/config_full.yaml``)."""
    words = [w for part in path.parts[-3:] for w in re.split(r"[^a-z0-9]+", part.lower())]
    for word in reversed(words):
        if word in _PATH_WORDS:
            return True, _PATH_WORDS[word]
    return False, None


def _alignment(d: Draft) -> None:
    hinted, hint = _path_hint(d.path)
    for method, keys in _SIGNATURES:
        found = [k for k in keys if d.has(k)]
        if found and method is AlignmentMethod.GRPO and hint is AlignmentMethod.RLOO:
            d.default(Field.ALIGNMENT, hint)  # TRL 1.x's RLOOConfig has GRPO's generation keys: the name decides
            return
        if found:
            d.set(Field.ALIGNMENT, method, found[0])
            return
    if hinted:
        if hint is not None:
            d.default(Field.ALIGNMENT, hint)
        return
    losses = {w.lower() for w in common.split_words(d.raw("loss_type") or [])}
    found = [k for k in _DPO_KEYS if d.has(k) and not (k == "loss_type" and losses <= _SFT_LOSSES)]
    if found:
        d.set(Field.ALIGNMENT, AlignmentMethod.IPO if losses == {"ipo"} else AlignmentMethod.DPO, found[0])


def _method(d: Draft) -> None:
    peft = common.flag(d, "use_peft")
    four, eight = common.flag(d, "load_in_4bit"), common.flag(d, "load_in_8bit")
    if eight and peft and not four:  # LoRA on an LLM.int8 base
        d.set(Field.METHOD, Method.LORA_8BIT, "use_peft", "load_in_8bit")
    elif eight:
        d.refuse(Field.METHOD, "load_in_8bit", Message.of(EIGHT_BIT))
    elif four and not peft:
        d.refuse(Field.METHOD, "load_in_4bit", Message.of(FOUR_BIT_ALONE))
    elif peft:
        d.set(Field.METHOD, Method.QLORA if four else Method.LORA, *("use_peft", "load_in_4bit")[: 2 if four else 1])
    elif peft is False or d.has("use_peft"):
        d.set(Field.METHOD, Method.FULL, "use_peft")
    else:
        d.default(Field.METHOD, Method.FULL)
    common.dora(d, "use_dora", common.flag(d, "use_dora"))


def _lora(d: Draft) -> None:
    common.lora_numbers(d, ("lora_r", "lora_alpha", "lora_dropout"), (16, 32.0, 0.05))
    if not common.lora_targets(d, "lora_target_modules"):
        d.default(Field.LORA_TARGETS, LoraTargets.QV)
    common.quantization(d, "bnb_4bit_quant_type", "use_bnb_nested_quant", double_default=False)
    if common.flag(d, "use_peft"):
        common.trained_in_full(d, "lora_modules_to_save")


def _weights(d: Draft) -> None:
    keys = ("dtype", "torch_dtype", "model_init_kwargs.dtype", "model_init_kwargs.torch_dtype")
    key = next((k for k in keys if d.has(k)), None)
    for k in keys:
        d.get(k)
    if key is None:
        d.default(Field.WEIGHTS, "fp32")
    elif dtype_of(d.raw(key)) is not None:
        d.set(Field.WEIGHTS, dtype_of(d.raw(key)), key)
    else:
        d.approx(Field.WEIGHTS, "bf16", key, Message.of(AUTO_DTYPE, value=d.raw(key)))


def _sequence(d: Draft) -> None:
    if d.has("max_completion_length") or d.has("num_generations"):
        completion = d.raw("max_completion_length")
        if d.has("max_prompt_length") and isinstance(completion, int | None):
            prompt = d.get("max_prompt_length")
            if isinstance(prompt, int) and not isinstance(prompt, bool):
                total = prompt + (completion if isinstance(completion, int) else 512)
                keys = ("max_prompt_length", "max_completion_length") if completion else ("max_prompt_length",)
                d.set(Field.SEQ_LEN, total, *keys)
                return
        d.ignore("max_completion_length", Message.of(OPEN_PROMPT))
        return
    for key in ("max_length", "max_seq_length"):
        if common.whole(d, Field.SEQ_LEN, key):
            return
    if d.path.suffix.lower() != ".json" or d.has("model_init_kwargs"):  # a full dump of plain TrainingArguments
        d.default(Field.SEQ_LEN, 1024)                                  # has no sequence length at all


def _long_context(d: Draft) -> None:
    """``use_liger_kernel``: Liger's fused linear cross-entropy; ``loss_type: chunked_nll``: TRL's chunked loss
    (``Loss.CHUNKED``, its 256-token chunks); ``activation_offloading``."""
    if common.flag(d, "use_liger_kernel"):
        d.set(Field.LOSS, Loss.FUSED_LINEAR_CE, "use_liger_kernel")
    elif str(d.raw("loss_type") or "").lower() == "chunked_nll":
        d.set(Field.LOSS, Loss.CHUNKED, "loss_type")
    common.activation_offload(d, "activation_offloading")



#: the accelerate configs TRL ships (``trl/accelerate_configs/<name>.yaml``, commit f2cd5771), which a TRL command
#: line config names by ``accelerate_config: <name>``: backend, sharding; each runs 8 processes in bf16 (``single_gpu``
#: is ``distributed_type: "NO"``: one)
PROFILES: dict[str, tuple[str, Sharding]] = {
    "zero1": ("deepspeed", Sharding.ZERO1), "zero2": ("deepspeed", Sharding.ZERO2),
    "zero3": ("deepspeed", Sharding.ZERO3), "fsdp1": ("fsdp", Sharding.ZERO3), "fsdp2": ("fsdp", Sharding.ZERO3),
    "multi_gpu": ("none", Sharding.NONE), "single_gpu": ("none", Sharding.NONE),
}


def _launch(d: Draft) -> None:
    """The ``accelerate launch`` arguments a TRL command line config may hold (``trl/cli/commands/training.py``):
    ``num_processes`` (the GPUs) and ``accelerate_config`` (a file, followed, or a profile TRL ships)."""
    common.whole(d, Field.GPUS, "num_processes")
    value = d.get("accelerate_config")
    if not isinstance(value, str) or not value.strip():
        return
    name = value.strip()
    if name in PROFILES:
        backend, sharding = PROFILES[name]
        d.default(Field.BACKEND, backend)
        d.default(Field.SHARDING, sharding)
        d.default(Field.GPUS, 1 if name == "single_gpu" else 8)
        d.default(Field.HALF, "bf16")
        d.ignore("accelerate_config", Message.of(KNOWN_CONTENT, value=name))
    else:
        d.follow_file("accelerate_config", name)


def map_file(d: Draft) -> None:
    """A TRL / transformers training-arguments file."""
    common.model(d, "model_name_or_path")
    _method(d)
    _lora(d)
    _weights(d)
    training_args.half(d, "bf16")
    training_args.batch(d)
    training_args.checkpointing(d, default=True)
    training_args.optimizer(d)
    common.hf_trainer(d)
    training_args.distributed(d)
    _launch(d)
    _sequence(d)
    _long_context(d)
    if not common.attention(d, "attn_implementation") \
            and not common.attention(d, "model_init_kwargs.attn_implementation") \
            and common.flag(d, "use_flash_attention_2"):  # alignment-handbook's ModelArguments before TRL's
        d.set(Field.ATTENTION, Attention.FLASH, "use_flash_attention_2")
    _alignment(d)
    d.finish(REASONS)
