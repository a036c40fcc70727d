"""Readers every tool's mapping shares: numbers, optimizers, attention, LoRA targets, alignment names.

Each reads one key through a :class:`~engine.config_import.draft.Draft` and records a fact, an approximation or
a refusal (the sources of every name are in ``engine.config_import.names``).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from engine.config_import.draft import Draft, Field
from engine.config_import.messages import DORA, FP8, NEAR_ATTENTION, NEAR_OFFLOAD, UNKNOWN_OPTIMIZER
from engine.config_import.names import (
    NEAR_OPTIMIZERS,
    OPTIMIZER_IMPLS,
    OPTIMIZERS,
    AlignmentMethod,
    attention_of,
    is_all_linear,
    optimizer_key,
    split_names,
    target_parts,
    targets_of,
    trainer_default_impl,
)
from engine.config_import.report import Message
from engine.specs import CpCommType, LoraTargets, Method, QuantType, SavedModule, Stack
from engine.translatable import QT_TRANSLATE_NOOP

#: the command-line flag of each field, named in refusals
FLAGS = {
    Field.METHOD: "--method", Field.PRECISION: "--precision", Field.OPTIMIZER: "--optimizer",
    Field.BATCH: "--batch", Field.SEQ_LEN: "--seq-len", Field.GRAD_ACCUM: "--grad-accum",
    Field.ATTENTION: "--attention", Field.CHECKPOINTING: "--checkpointing", Field.GPUS: "--gpus",
    Field.SHARDING: "--sharding", Field.OFFLOAD_OPTIMIZER: "--offload-optimizer",
    Field.OFFLOAD_PARAMS: "--offload-params", Field.LORA_RANK: "--lora-rank", Field.LORA_ALPHA: "--lora-alpha",
    Field.LORA_DROPOUT: "--lora-dropout", Field.LORA_TARGETS: "--lora-targets", Field.QUANT_TYPE: "--quant",
    Field.DOUBLE_QUANT: "--no-double-quant", Field.MODEL: "--model or --config", Field.HALF: "--precision",
    Field.WEIGHTS: "--precision", Field.BACKEND: "--sharding", Field.TP: "--tp", Field.PP: "--pp", Field.CP: "--cp",
    Field.EP: "--ep", Field.SEQUENCE_PARALLEL: "--sequence-parallel", Field.MICRO_BATCHES: "--micro-batches",
    Field.LOSS: "--loss", Field.LOSS_CHUNKS: "--loss-chunks", Field.ACTIVATION_OFFLOAD: "--activation-offload",
    Field.DORA: "--dora", Field.MODULES_TO_SAVE: "--modules-to-save", Field.FREEZE_LAYERS: "--freeze-layers",
    Field.OFT_BLOCK: "--oft-block-size", Field.OPTIMIZER_RANK: "--optimizer-rank",
    Field.OFFLOAD_OPTIMIZER_DEVICE: "--offload-optimizer-device",
    Field.OFFLOAD_PARAMS_DEVICE: "--offload-params-device",
    Field.CP_COMM: "--cp-comm-type", Field.ALLOC_CONF: "--alloc-conf", Field.CHECKPOINT_EVERY: "--checkpoint-every",
    Field.OPTIMIZER_IN_BACKWARD: "--optimizer-in-backward", Field.COMPILE: "--compile", Field.STACK: "--stack",
    Field.OPTIMIZER_IMPL: "--optimizer-impl", Field.FSDP_VERSION: "--fsdp-version",
}

NOT_A_NUMBER = QT_TRANSLATE_NOOP("engine", "{value} is not a whole number of at least {least}")
NOT_A_FRACTION = QT_TRANSLATE_NOOP("engine", "{value} is not a number between 0 and 1")
NEAR_OPTIMIZER = QT_TRANSLATE_NOOP(
    "engine", "{value} keeps two 8-bit states with an fp32 scale per block, like bitsandbytes' 8-bit AdamW; "
              "costed as adamw-8bit")
UNKNOWN_ATTENTION = QT_TRANSLATE_NOOP("engine", "{value} is not an attention implementation VRAM Lab knows; "
                                                "costed as sdpa, which keeps no score matrix")
ROUNDED_TARGETS = QT_TRANSLATE_NOOP(
    "engine", "LoRA on {value} is not one of the target sets VRAM Lab costs (qv, attention, qvo-mlp, all-linear); "
              "costed as {used}, the smallest that holds it, so the estimate is an upper bound")
EXTRA_TARGETS = QT_TRANSLATE_NOOP(
    "engine", "LoRA on {value} is not costed (only the attention and MLP projections are); costed as {used}")
NO_TARGETS = QT_TRANSLATE_NOOP("engine", "{value} names no attention or MLP projection VRAM Lab can cost")
PARALLEL = QT_TRANSLATE_NOOP("engine", "{value}-way {kind} parallelism is not costed")
TRAINED_IN_FULL = QT_TRANSLATE_NOOP(
    "engine", "{value} are trained in full beside the adapters, with gradients and optimizer states VRAM Lab does "
              "not count")
REPLICATED = QT_TRANSLATE_NOOP(
    "engine", "{value} copies of the model, each sharded over its own GPUs; costed as sharded over all the GPUs given, "
              "which understates it (give the GPUs of one copy with --gpus)")


def split_words(value: Any) -> list[str]:
    """A list given as a YAML list or as a string of words separated by spaces or commas."""
    if isinstance(value, list | tuple):
        return [str(v) for v in value]
    return [w for w in re.split(r"[\s,]+", str(value)) if w]


def _value(d: Draft, key: str) -> Any:
    value = d.raw(key)
    return value if value is not None else "null"


def model(d: Draft, key: str) -> None:
    """Record the model ``key`` names (a catalog id, a Hugging Face id or a local folder)."""
    value = d.get(key)
    if isinstance(value, str) and value.strip():
        d.set(Field.MODEL, value.strip(), key)


def whole(d: Draft, field: Field, key: str, least: int = 1) -> bool:
    """Record ``key`` as a whole number >= ``least`` for ``field``; True when the file states one.

    ``auto`` (DeepSpeed's "fill in from the trainer") and null state nothing; anything else is refused.
    """
    value = d.get(key)
    if value is None or (isinstance(value, str) and value.strip().lower() == "auto"):
        return False
    if isinstance(value, bool) or not isinstance(value, int) or value < least:
        d.refuse(field, key, Message.of(NOT_A_NUMBER, value=_value(d, key), least=least))
        return True
    d.set(field, value, key)
    return True


def fraction(d: Draft, field: Field, key: str) -> bool:
    """Record ``key`` as a number in [0, 1) for ``field`` (LoRA dropout); True when the file states one."""
    value = d.get(key)
    if value is None:
        return False
    if isinstance(value, bool) or not isinstance(value, int | float) or not 0 <= value < 1:
        d.refuse(field, key, Message.of(NOT_A_FRACTION, value=_value(d, key)))
        return True
    d.set(field, float(value), key)
    return True


def flag(d: Draft, key: str) -> bool | None:
    """A yes/no key as a bool (YAML's true/false, or the strings "true"/"false"); None when absent."""
    value = d.get(key)
    if isinstance(value, str) and value.strip().lower() in ("true", "false"):
        return value.strip().lower() == "true"
    return value if isinstance(value, bool) else None


def optimizer(d: Draft, key: str) -> bool:
    """Record the optimizer ``key`` names (a transformers name or a class path); True when it names one."""
    value = d.get(key)
    if value is None:
        return False
    name = optimizer_key(str(value))
    if name in OPTIMIZERS:
        d.set(Field.OPTIMIZER, OPTIMIZERS[name], key)
        if name in OPTIMIZER_IMPLS:
            d.set(Field.OPTIMIZER_IMPL, OPTIMIZER_IMPLS[name], key)
    elif name in NEAR_OPTIMIZERS:
        d.approx(Field.OPTIMIZER, NEAR_OPTIMIZERS[name], key, Message.of(NEAR_OPTIMIZER, value=value))
    else:
        d.refuse(Field.OPTIMIZER, key, Message.of(UNKNOWN_OPTIMIZER, value=value))
    return True


def optim_args(value: object) -> dict[str, str]:
    """transformers' ``optim_args`` string (``"rank=64, update_proj_gap=200"``) as a dict (``_parse_optim_args``)."""
    if not isinstance(value, str):
        return {}
    pairs = (part.split("=", 1) for part in value.replace(" ", "").split(",") if "=" in part)
    return {k: v for k, v in pairs}  # noqa: C416 - the pairs are lists


def attention(d: Draft, key: str) -> bool:
    """Record the attention implementation ``key`` names; True when it names one."""
    value = d.get(key)
    if value is None or str(value).strip().lower() in ("auto", ""):
        return False
    found = attention_of(str(value))
    if found is None:
        d.approx(Field.ATTENTION, attention_of("sdpa")[0], key,  # type: ignore[index]
                 Message.of(UNKNOWN_ATTENTION, value=value))
    elif found[1]:
        d.set(Field.ATTENTION, found[0], key)
    else:
        d.approx(Field.ATTENTION, found[0], key, Message.of(NEAR_ATTENTION, value=value, used=found[0].value))
    return True


def lora_targets(d: Draft, key: str, names: list[str] | None = None, also: tuple[str, ...] = ()) -> bool:
    """Record the LoRA target set ``key`` names (or ``names``, already gathered from ``key`` and the keys ``also``).

    An exact qv / attention / all-linear set is read; another set is costed as the smallest of them that holds
    it (reported); a set naming no projection at all is refused.
    """
    value = d.get(key)
    if names is None:
        if value is None:
            return False
        if is_all_linear(value):
            d.set(Field.LORA_TARGETS, LoraTargets.ALL_LINEAR, key)
            return True
        names = split_names(value)
    parts, unknown = target_parts(names)
    found = targets_of(parts)
    why: Message | None = None
    if found is None:
        d.refuse(Field.LORA_TARGETS, key, Message.of(NO_TARGETS, value=names))
        for k in also:
            d.get(k)
    elif found[1] and not unknown:
        d.set(Field.LORA_TARGETS, found[0], key, *also)
    elif unknown and found[1]:
        why = Message.of(EXTRA_TARGETS, value=unknown, used=found[0].value)
    else:
        why = Message.of(ROUNDED_TARGETS, value=names, used=found[0].value)
    if found is not None and why is not None:
        d.approx(Field.LORA_TARGETS, found[0], key, why)
        for k in also:
            d.ignore(k, why)
    return True


#: the alignment names the tools use -> VRAM Lab's (anything else is reported, not guessed)
ALIGNMENT_NAMES = {
    "dpo": AlignmentMethod.DPO, "ipo": AlignmentMethod.IPO, "orpo": AlignmentMethod.ORPO,
    "simpo": AlignmentMethod.SIMPO, "cpo": AlignmentMethod.CPO, "kto": AlignmentMethod.KTO,
    "kto_pair": AlignmentMethod.KTO, "ppo": AlignmentMethod.PPO, "grpo": AlignmentMethod.GRPO,
    "rloo": AlignmentMethod.RLOO, "rm": AlignmentMethod.REWARD, "reward": AlignmentMethod.REWARD,
    "gdpo": AlignmentMethod.GRPO,
}
UNKNOWN_ALIGNMENT = QT_TRANSLATE_NOOP("engine", "{value} is not an alignment method VRAM Lab knows (DPO, IPO, ORPO, "
                                                "SimPO, CPO, KTO, PPO, GRPO, RLOO, reward modelling)")


def fp8(d: Draft, key: str) -> None:
    """``fp8: true`` (torchao float8 training in Axolotl and LLaMA-Factory) is refused, as accelerate's
    ``mixed_precision: fp8`` is: VRAM Lab costs bf16 and fp16 compute only."""
    if flag(d, key):
        d.refuse(Field.PRECISION, key, Message.of(FP8, value="fp8"))


def ulysses(d: Draft, key: str) -> None:
    """Ulysses sequence parallelism (DeepSpeed-Ulysses; accelerate's ``sp_size``, LLaMA-Factory v1's ``cp_size``):
    context parallelism over that many GPUs with the all-to-all exchange (``--cp N --cp-comm-type a2a``); beside
    ring context parallelism (accelerate's ``cp_size`` > 1 too) it is refused."""
    size = d.get(key)
    if isinstance(size, int) and not isinstance(size, bool) and size > 1:
        ring = d.facts.get(Field.CP)
        if ring is not None and ring.value != 1:
            d.refuse(Field.CP, key, Message.of(PARALLEL, value=size, kind="sequence (Ulysses) beside context"))
            return
        d.set(Field.CP, size, key)
        d.set(Field.CP_COMM, CpCommType.A2A, key)


#: the module names PEFT's ``modules_to_save`` is given for the token table and the output layer
SAVED_MODULES = {"embed_tokens": SavedModule.EMBED_TOKENS, "lm_head": SavedModule.LM_HEAD,
                 "wte": SavedModule.EMBED_TOKENS, "tok_embeddings": SavedModule.EMBED_TOKENS,
                 "output": SavedModule.LM_HEAD}


def dora(d: Draft, key: str, asked: bool | None) -> None:
    """PEFT's ``use_dora`` (Axolotl's ``peft_use_dora``): DoRA on LoRA over a 16-bit base (``--dora``); on a
    quantized base it is refused."""
    if not asked:
        return
    method = d.facts.get(Field.METHOD)
    if method is not None and method.value is Method.LORA:
        d.set(Field.DORA, True, key)
    else:
        d.refuse(Field.DORA, key, Message.of(DORA))


def trained_in_full(d: Draft, key: str) -> None:
    """Modules trained in full beside LoRA (PEFT's ``modules_to_save``: Axolotl's ``lora_modules_to_save``, TRL's
    ``lora_modules_to_save``, LLaMA-Factory's ``additional_target``): the token table and the output layer are
    costed (``--modules-to-save``); any other module (a norm, a classification head) is refused by name."""
    value = d.get(key)
    names = split_words(value) if value not in (None, "", []) else []
    if not names:
        return
    leaves = [n.rsplit(".", 1)[-1] for n in names]
    if any(leaf not in SAVED_MODULES for leaf in leaves):
        d.refuse(Field.METHOD, key, Message.of(TRAINED_IN_FULL, value=names))
        return
    d.set(Field.MODULES_TO_SAVE, tuple(dict.fromkeys(SAVED_MODULES[leaf] for leaf in leaves)), key)


def replicated(d: Draft, key: str) -> None:
    """A replicate count above one (HSDP: FSDP within groups, replicas across them) is reported: VRAM Lab shards
    over every data-parallel GPU, which understates each copy's share."""
    value = d.raw(key)
    if isinstance(value, int) and not isinstance(value, bool) and value > 1:
        d.ignore(key, Message.of(REPLICATED, value=value))
    else:
        d.get(key)


def activation_offload(d: Draft, key: str) -> None:
    """Offloading of saved activations: true / false read; another mode (to disk, checkpoint inputs only) is
    costed as offloading to host RAM and reported."""
    value = d.get(key)
    if isinstance(value, bool):
        d.set(Field.ACTIVATION_OFFLOAD, value, key)
    elif isinstance(value, str) and value.strip().lower() in ("true", "false", "legacy"):
        d.set(Field.ACTIVATION_OFFLOAD, value.strip().lower() != "false", key)
    elif value is not None:
        d.approx(Field.ACTIVATION_OFFLOAD, True, key, Message.of(NEAR_OFFLOAD, value=value))


def parallel_sizes(d: Draft, keys: Mapping[Field, str]) -> None:
    """Tensor / pipeline / context / expert parallel sizes at the tool's keys (whole numbers; 1 states nothing
    beyond the default, and is read all the same)."""
    for field, key in keys.items():
        whole(d, field, key)


def lora_numbers(d: Draft, keys: tuple[str, str, str], defaults: tuple[int, float | None, float]) -> None:
    """LoRA's rank, alpha and dropout at ``keys``, each with the tool's default (``defaults``; an alpha of None
    means twice the rank, LLaMA-Factory's rule)."""
    rank_key, alpha_key, dropout_key = keys
    rank, alpha, dropout = defaults
    if not whole(d, Field.LORA_RANK, rank_key):
        d.default(Field.LORA_RANK, rank)
    stated = d.get(alpha_key)
    if isinstance(stated, int | float) and not isinstance(stated, bool) and stated > 0:
        d.set(Field.LORA_ALPHA, float(stated), alpha_key)
    else:
        r = d.raw(rank_key)
        d.default(Field.LORA_ALPHA, alpha if alpha is not None else 2.0 * (r if isinstance(r, int) and r > 0 else rank))
    if not fraction(d, Field.LORA_DROPOUT, dropout_key):
        d.default(Field.LORA_DROPOUT, dropout)


def quantization(d: Draft, type_key: str, double_key: str, double_default: bool) -> None:
    """QLoRA's 4-bit data type (nf4 / fp4; NF4 where absent) and double quantization (``double_default`` where
    absent) at the tool's keys."""
    kind = d.get(type_key)
    if kind in ("nf4", "fp4"):
        d.set(Field.QUANT_TYPE, QuantType(kind), type_key)
    else:
        d.default(Field.QUANT_TYPE, QuantType.NF4)
    double = flag(d, double_key)
    if double is None:
        d.default(Field.DOUBLE_QUANT, double_default)
    else:
        d.set(Field.DOUBLE_QUANT, double, double_key)


def alignment(d: Draft, key: str, value: Any | None = None) -> None:
    """Record the alignment method ``key`` names (``value`` when already read); an unknown one is reported."""
    value = d.get(key) if value is None else value
    if value is None:
        return
    name = str(value).strip().lower()
    if name in ALIGNMENT_NAMES:
        d.set(Field.ALIGNMENT, ALIGNMENT_NAMES[name], key)
    elif name in ("sft", "pt"):  # supervised fine-tuning or pre-training: no alignment method, stated
        d.set(Field.ALIGNMENT, None, key)
    elif name:
        d.ignore(key, Message.of(UNKNOWN_ALIGNMENT, value=value))


def hf_trainer(d: Draft) -> None:
    """A file of a tool that runs transformers' Trainer (TRL, Axolotl, LLaMA-Factory, a ``TrainingArguments``
    dump): the hf-trainer stack, and, where the file names no AdamW implementation (``optim``), the Trainer's
    default of the transformers version the file states (``transformers_version``), else today's (reported as
    assumed: ``names.trainer_default_impl``)."""
    d.set(Field.STACK, Stack.HF_TRAINER)
    version = d.get("transformers_version")
    if Field.OPTIMIZER_IMPL in d.facts:
        return
    if version is None:
        d.default(Field.OPTIMIZER_IMPL, trainer_default_impl(None))
    else:
        d.set(Field.OPTIMIZER_IMPL, trainer_default_impl(str(version)), "transformers_version")
