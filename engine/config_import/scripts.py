"""A training script's own arguments: a file that is no tool's format (``imported.format``: ``script-args``).

Research code and companies' recipes often train with a script of their own, whose arguments (a dataclass of its
own beside transformers' ``TrainingArguments``, parsed by ``HfArgumentParser``) come from a JSON or YAML file.
Such a file holds ``TrainingArguments`` keys (read through ``engine.config_import.training_args``, with
transformers' defaults, not TRL's) and the script's own, some of which ask for a method (``train_mode: qlora``,
``use_lora: true``). Read as TRL, those were "not used" and the file gave a full fine-tune. A file is one when it
holds such a method key and no TRL ``use_peft``, or the arguments of a script below; ``assumed["format"]`` says
that it is no tool's format, whose script it is read as, and which keys were taken to mean what.

The method keys, and what each allows (:func:`_allows`); the method is what all of them allow together, the
script's defaults standing for the keys the file leaves out:

=====================================  =========================================================================
``train_mode``: full / lora / qlora    that method
``use_lora`` / ``lora_enable``: true   LoRA, or QLoRA where another key asks for a 4-bit base; false: full
``use_qlora`` / ``q_lora``: true       QLoRA; false: full or LoRA
``finetuning_type``: lora / full       LoRA (QLoRA with ``quantization_bit: 4``) / full, as LLaMA-Factory, whose
                                       lineage uses it; freeze and others refused
``bits`` (LLaVA) / ``load_in_4bit``    4: QLoRA; 16 or 32: full or LoRA; 8 (``load_in_8bit``): LoRA on an
                                       LLM.int8 base (``--method lora-8bit``)
=====================================  =========================================================================

Keys that allow no method together (``use_qlora: true`` with ``use_lora: false``: a 4-bit base with no adapter)
are refused naming them; so is a file whose keys leave the method open for a script VRAM Lab does not know
(``lora_rank`` alone: its script's own default decides). LoRA left open between 16-bit and 4-bit bases is LoRA
(no key asks for 4 bits); full or LoRA is full when no LoRA setting is given.

Known scripts (each row: its defaults for what the file leaves out, and how it loads the model):

=============  =====================================================================================================
Firefly        github.com/yangjianxin1/Firefly ``component/argument.py`` (CustomizedArguments) and ``train.py``
               (``load_model``, ``find_all_linear_names``) @ e22b406e. Told by ``train_file`` with one of its own
               arguments. ``train_mode`` default **qlora**; ``lora_rank`` / ``lora_alpha`` / ``lora_dropout``
               64 / 16 / 0.05; LoRA on every linear layer but ``lm_head`` (all-linear); QLoRA NF4 with double
               quantization; the model loaded in fp16 with ``fp16: true``, else bf16 (one of them must be true);
               ``task_type`` sft (default) / pretrain / dpo (DPO: TRL's DPOTrainer); ``max_seq_length`` the
               sequence; ``use_unsloth`` not modelled.
open-instruct  github.com/allenai/open-instruct ``open_instruct/finetune.py`` (FlatArguments, ``main``) and
               ``dpo_tune_cache.py`` @ e6c3044a (the same keys since 2023: 082b4005). Told by ``with_tracking``
               with ``max_seq_length`` or one of its own keys. ``use_lora`` / ``use_qlora`` default false;
               ``lora_rank`` / ``lora_alpha`` / ``lora_dropout`` 64 / 16 / 0.1 on q, k, v, o, gate, up and down
               (all-linear); QLoRA NF4 with double quantization and bitsandbytes' paged AdamW (8-bit with
               ``use_8bit_optimizer``); the model loaded in bf16; ``gradient_checkpointing`` default false;
               ``use_flash_attn`` true: flash-attn 2, false: eager; ``sequence_parallel_size`` (Ulysses) refused
               above one; ``loss_type`` (``dpo_utils.DPOLossType``) simpo is SimPO (no reference model), the
               others DPO.
LLaVA          github.com/haotian-liu/LLaVA ``llava/train/train.py`` (ModelArguments, TrainingArguments,
               ``train``) @ c121f043. Told by ``vision_tower`` or its ``mm_*`` keys, or ``lora_enable`` with
               ``model_max_length`` or ``bits``.
               ``lora_enable`` false and ``bits`` 16 by default; ``lora_r`` / ``lora_alpha`` / ``lora_dropout``
               64 / 16 / 0.05 on every linear layer of the language model (all-linear); ``quant_type`` nf4 and
               ``double_quant`` true by default; the model loaded in bf16 with ``bf16: true``, else fp32;
               ``model_max_length`` 512 by default; the vision tower is not counted; ``tune_mm_mlp_adapter`` and
               ``freeze_backbone`` (only part of the model trained) refused.
Qwen           github.com/QwenLM/Qwen ``finetune.py`` @ 2df8e8ac and github.com/QwenLM/Qwen2.5
               ``examples/sft/finetune.py`` @ a401c614. Told by ``model_max_length`` with ``use_lora`` (the
               FastChat and stanford_alpaca scripts they grew from have ``model_max_length`` and ``data_path`` but
               no ``use_lora``: FastChat's train_lora.py always trains LoRA, read as any other script; ``q_lora``
               there is QLoRA). ``use_lora`` / ``q_lora`` default
               false (``q_lora`` quantizes only with ``use_lora``); ``lora_r`` / ``lora_alpha`` /
               ``lora_dropout`` 64 / 16 / 0.05; ``lora_target_modules`` default q, k, v, o, up, gate, down
               (Qwen2.5's; Qwen (1)'s c_attn / c_proj / w1 / w2 belong to a model VRAM Lab refuses); QLoRA:
               Qwen2.5's bitsandbytes NF4 with double quantization (Qwen (1)'s GPTQ needs an -Int4 repository,
               which is refused by its name); the model loaded without a dtype (fp32); ``model_max_length`` 8,192.
=============  =====================================================================================================

Any other script: ``lora_rank`` (or ``lora_r``) / ``lora_alpha`` / ``lora_dropout`` with PEFT ``LoraConfig``'s
defaults 8 / 8 / 0; ``lora_target_modules`` / ``lora_target`` / ``target_modules`` (else q and v, PEFT's default
for Llama-style models); ``bnb_4bit_quant_type`` / ``quant_type`` and ``bnb_4bit_use_double_quant`` /
``double_quant``; ``torch_dtype`` / ``dtype`` the weights (else fp32, ``from_pretrained``'s); the sequence from
``max_seq_length``, ``max_length``, ``model_max_length``, ``cutoff_len`` or ``seq_length`` (else left open);
``modules_to_save`` refused. Every default is reported as assumed.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from engine.config_import import common, training_args, trl
from engine.config_import.draft import Draft, Fact, Field, Kind
from engine.config_import.messages import NOT_MODELLED, PACKING
from engine.config_import.names import AlignmentMethod
from engine.config_import.report import Message, show
from engine.specs import Attention, LoraTargets, Method, Optimizer, QuantType
from engine.translatable import QT_TRANSLATE_NOOP

KNOWN = QT_TRANSLATE_NOOP(
    "engine", "not a tool's format: the arguments of {script} ({source}), read as that script reads them: {keys}")
OTHER = QT_TRANSLATE_NOOP(
    "engine", "not a tool's format: a training script's own arguments beside transformers' TrainingArguments, read "
              "as their names say: {keys}")
OPEN = QT_TRANSLATE_NOOP(
    "engine", "{value} leave the method to the script's own default, and VRAM Lab does not know this script")
EXCLUSIVE = QT_TRANSLATE_NOOP("engine", "{value} ask for methods that exclude each other")
NOT_A_METHOD = QT_TRANSLATE_NOOP("engine", "{value} is not a method the script takes")
LORA_OFF = QT_TRANSLATE_NOOP("engine", "LoRA is switched off ({value}), so this LoRA setting is not used")
HALF_REQUIRED = QT_TRANSLATE_NOOP(
    "engine", "the script requires exactly one of fp16 and bf16 to be true (fp16: {fp16}, bf16: {bf16})")
PART_TRAINED = QT_TRANSLATE_NOOP(
    "engine", "{value} trains only part of the model (the projector or the head), which VRAM Lab does not cost")
VISION = QT_TRANSLATE_NOOP("engine", "the vision tower and projector are not counted (the estimate counts the "
                                     "language model)")

_FULL, _LORA, _QLORA = frozenset({Method.FULL}), frozenset({Method.LORA}), frozenset({Method.QLORA})
_LORA_8BIT = frozenset({Method.LORA_8BIT})  # LoRA on an LLM.int8 base (bitsandbytes' load_in_8bit)
_ANY = frozenset(Method)
_ADAPTER = _LORA | _QLORA | _LORA_8BIT
_NOT_4BIT = _FULL | _LORA
#: the keys that ask for a method, in the order they are named
METHOD_KEYS = ("train_mode", "finetuning_type", "use_lora", "lora_enable", "use_qlora", "q_lora", "quantization_bit",
               "bits", "load_in_4bit", "load_in_8bit")
#: keys that mark a file as a script's own arguments, even alone (``bits`` and ``load_in_*`` are not enough)
SCRIPT_KEYS = ("train_mode", "finetuning_type", "use_lora", "use_qlora", "lora_enable", "q_lora", "lora_rank")
_LORA_SETTINGS = ("lora_rank", "lora_r", "lora_alpha", "lora_dropout", "lora_target_modules", "lora_target",
                  "target_modules")


def _switch(value: Any) -> bool | None:
    if isinstance(value, str) and value.strip().lower() in ("true", "false"):
        return value.strip().lower() == "true"
    return value if isinstance(value, bool) else None


def _allows(key: str, value: Any) -> frozenset[Method] | Message:
    """The methods ``key: value`` allows (module docstring), or why it is refused."""
    text = str(value).strip().lower()
    if key == "train_mode":
        return frozenset({Method(text)}) if text in ("full", "lora", "qlora") else Message.of(
            NOT_A_METHOD, value=f"{key}: {show(value)}")
    if key == "finetuning_type":
        if text in ("lora", "full"):
            return _ADAPTER if text == "lora" else _FULL
        from engine.config_import.llama_factory import FREEZE

        return Message.of(FREEZE, value=value)
    if key in ("bits", "quantization_bit"):
        number = value if isinstance(value, int) and not isinstance(value, bool) else None
        if number == 8:
            return _LORA_8BIT
        if number == 4 or (key == "bits" and number in (16, 32)):
            return _QLORA if number == 4 else _NOT_4BIT
        from engine.config_import.llama_factory import QUANT_BITS

        return Message.of(QUANT_BITS, value=value)
    on = _switch(value)
    if on is None:
        return Message.of(NOT_A_METHOD, value=f"{key}: {show(value)}")
    if key in ("use_lora", "lora_enable"):
        return _ADAPTER if on else _FULL
    if key == "load_in_8bit":
        return _LORA_8BIT if on else _ANY
    return _QLORA if on else _NOT_4BIT  # use_qlora, q_lora, load_in_4bit


@dataclass(frozen=True)
class Script:
    """A training script whose arguments VRAM Lab reads as it does (module docstring's table)."""

    name: str
    source: str
    told: Callable[[Mapping[str, Any]], bool]  # whether a file holds this script's arguments
    defaults: Mapping[str, Any]  # its method keys' defaults
    lora_keys: tuple[str, str, str]  # rank, alpha, dropout
    lora_defaults: tuple[int, float, float]
    targets: LoraTargets | None  # the set it always adapts, or None: ``target_keys`` name it
    target_keys: tuple[str, ...] = ()
    target_default: LoraTargets = LoraTargets.QV
    quant_keys: tuple[str, str] | None = None  # type, double; None: NF4 with double quantization, fixed
    double_default: bool = True
    sequence_keys: tuple[str, ...] = ()
    sequence_default: int | None = None
    read_more: Callable[[Draft], None] = field(default=lambda d: None)


def _has_any(data: Mapping[str, Any], keys: tuple[str, ...]) -> bool:
    return any(data.get(k) is not None for k in keys)


# -- each script's own readings ---------------------------------------------------------------------------------
def _firefly_more(d: Draft) -> None:
    """Weights: fp16 with ``fp16: true``, else bf16, one of them required (``load_model``); ``task_type``."""
    fp16, bf16 = common.flag(d, "fp16"), common.flag(d, "bf16")
    if bool(fp16) == bool(bf16):
        d.refuse(Field.WEIGHTS, "fp16" if d.has("fp16") else "bf16",
                 Message.of(HALF_REQUIRED, fp16=bool(fp16), bf16=bool(bf16)))
    else:
        d.set(Field.WEIGHTS, "fp16" if fp16 else "bf16", "fp16" if fp16 else "bf16")
    task = str(d.get("task_type") or "sft").strip().lower()
    if task == "dpo":
        d.set(Field.ALIGNMENT, AlignmentMethod.DPO, "task_type")
    elif d.has("task_type"):
        d.set(Field.ALIGNMENT, None, "task_type")


def _open_instruct_more(d: Draft) -> None:
    """bf16 weights; bitsandbytes' paged AdamW for QLoRA; ``use_flash_attn``; Ulysses refused."""
    d.default(Field.WEIGHTS, "bf16")
    method = d.facts.get(Field.METHOD)
    if method is not None and method.value is Method.QLORA and method.kind is not Kind.REFUSED:
        eight = common.flag(d, "use_8bit_optimizer")
        d.default(Field.OPTIMIZER, Optimizer.PAGED_ADAMW_8BIT if eight else Optimizer.PAGED_ADAMW)
    else:
        d.default(Field.OPTIMIZER, Optimizer.ADAMW)
        d.get("use_8bit_optimizer")
    flash = common.flag(d, "use_flash_attn")
    if flash is not None:
        d.set(Field.ATTENTION, Attention.FLASH if flash else Attention.EAGER, "use_flash_attn")
    common.ulysses(d, "sequence_parallel_size")
    if str(d.raw("loss_type") or "").strip().lower() == "simpo":  # DPOLossType.simpo: no reference model
        d.set(Field.ALIGNMENT, AlignmentMethod.SIMPO, "loss_type")
    else:
        trl._alignment(d)


def _llava_more(d: Draft) -> None:
    """Weights bf16 with ``bf16: true`` else fp32; the vision tower not counted; a partial training refused."""
    if common.flag(d, "bf16"):
        d.set(Field.WEIGHTS, "bf16", "bf16")
    else:
        d.default(Field.WEIGHTS, "fp32")
    d.ignore("vision_tower", Message(VISION))
    for key in ("tune_mm_mlp_adapter", "freeze_backbone"):
        if common.flag(d, key):
            d.refuse(Field.METHOD, key, Message.of(PART_TRAINED, value=f"{key}: true"))


def _qwen_more(d: Draft) -> None:
    """The model loaded without a dtype: fp32."""
    d.default(Field.WEIGHTS, "fp32")


def _other_more(d: Draft) -> None:
    """The weights' dtype key; ``modules_to_save`` refused beside LoRA."""
    trl._weights(d)
    method = d.facts.get(Field.METHOD)
    if method is not None and method.value in (Method.LORA, Method.QLORA):
        common.trained_in_full(d, "modules_to_save")
        common.trained_in_full(d, "lora_modules_to_save")
    if common.flag(d, "use_flash_attn"):
        d.set(Field.ATTENTION, Attention.FLASH, "use_flash_attn")


_OPEN_INSTRUCT_KEYS = ("max_seq_length", "use_lora", "use_qlora", "dataset_mixer", "dataset_mixer_list",
                       "dataset_mix_dir", "use_flash_attn", "reduce_loss", "add_bos", "keep_last_n_checkpoints",
                       "hf_metadata_dataset", "try_launch_beaker_eval_jobs", "dpo_beta", "dpo_loss_type")
_FIREFLY_KEYS = ("template_name", "train_mode", "task_type", "tokenize_num_workers", "use_unsloth", "lora_rank")
_LLAVA_KEYS = ("vision_tower", "mm_projector_type", "tune_mm_mlp_adapter", "mm_vision_select_layer",
               "mm_use_im_start_end", "pretrain_mm_mlp_adapter", "freeze_mm_mlp_adapter", "mm_projector_lr")

FIREFLY = Script(
    "Firefly train.py", "github.com/yangjianxin1/Firefly @ e22b406e",
    lambda data: data.get("train_file") is not None and _has_any(data, _FIREFLY_KEYS),
    {"train_mode": "qlora"}, ("lora_rank", "lora_alpha", "lora_dropout"), (64, 16.0, 0.05), LoraTargets.ALL_LINEAR,
    sequence_keys=("max_seq_length",), read_more=_firefly_more)
OPEN_INSTRUCT = Script(
    "open-instruct finetune.py / dpo_tune_cache.py", "github.com/allenai/open-instruct @ e6c3044a",
    lambda data: data.get("with_tracking") is not None and _has_any(data, _OPEN_INSTRUCT_KEYS),
    {"use_lora": False, "use_qlora": False}, ("lora_rank", "lora_alpha", "lora_dropout"), (64, 16.0, 0.1),
    LoraTargets.ALL_LINEAR, sequence_keys=("max_seq_length",), read_more=_open_instruct_more)
LLAVA = Script(
    "LLaVA llava/train/train.py", "github.com/haotian-liu/LLaVA @ c121f043",
    lambda data: _has_any(data, _LLAVA_KEYS) or (data.get("lora_enable") is not None
                                                 and _has_any(data, ("model_max_length", "bits"))),
    {"lora_enable": False, "bits": 16}, ("lora_r", "lora_alpha", "lora_dropout"), (64, 16.0, 0.05),
    LoraTargets.ALL_LINEAR, quant_keys=("quant_type", "double_quant"), sequence_keys=("model_max_length",),
    sequence_default=512, read_more=_llava_more)
QWEN = Script(
    "Qwen finetune.py", "github.com/QwenLM/Qwen @ 2df8e8ac, github.com/QwenLM/Qwen2.5 @ a401c614",
    lambda data: data.get("model_max_length") is not None and data.get("use_lora") is not None,
    {"use_lora": False, "q_lora": False}, ("lora_r", "lora_alpha", "lora_dropout"), (64, 16.0, 0.05), None,
    target_keys=("lora_target_modules",), target_default=LoraTargets.ALL_LINEAR,
    sequence_keys=("model_max_length",), sequence_default=8192, read_more=_qwen_more)
OTHER_SCRIPT = Script(
    "", "", lambda data: True, {}, ("lora_rank", "lora_alpha", "lora_dropout"), (8, 8.0, 0.0), None,
    target_keys=("lora_target_modules", "lora_target", "target_modules"),
    quant_keys=("bnb_4bit_quant_type", "bnb_4bit_use_double_quant"), double_default=False,
    sequence_keys=("max_seq_length", "max_length", "model_max_length", "cutoff_len", "seq_length"),
    read_more=_other_more)
#: in the order they are told apart (LLaVA's arguments hold Qwen's model_max_length and data_path)
SCRIPTS = (FIREFLY, OPEN_INSTRUCT, LLAVA, QWEN)


def script_of(data: Mapping[str, Any]) -> Script | None:
    """The known script whose arguments ``data`` holds, or None."""
    return next((s for s in SCRIPTS if s.told(data)), None)


def is_script(data: Mapping[str, Any]) -> bool:
    """Whether ``data`` is a script's own arguments (module docstring), not TRL's."""
    if data.get("use_peft") is not None:
        return False
    return _has_any(data, SCRIPT_KEYS) or script_of(data) is not None


# -- the method --------------------------------------------------------------------------------------------------
def _method(d: Draft, script: Script) -> None:
    """The method every method key allows (module docstring), the script's defaults for the keys left out."""
    stated = [k for k in METHOD_KEYS if d.has(k)]
    allowed, from_file = _ANY, _ANY
    for key in stated:
        allows = _allows(key, d.raw(key))
        if isinstance(allows, Message):
            d.refuse(Field.METHOD, key, allows)
            for k in stated:
                d.get(k)
            return
        allowed &= allows
        from_file &= allows
    defaults = [(k, v) for k, v in script.defaults.items() if not d.has(k)]
    for key, value in defaults:
        allows = _allows(key, value)
        if not isinstance(allows, Message):
            allowed &= allows
    said = [f"{k}: {show(d.raw(k))}" for k in stated] + [f"{k} = {show(v)}" for k, v in defaults]
    lora_set = any(d.has(k) for k in _LORA_SETTINGS)
    method = _chosen(allowed, lora_set)
    if not allowed:
        d.refuse(Field.METHOD, stated[0] if stated else "", Message.of(EXCLUSIVE, value=", ".join(said)))
    elif method is None:
        first = stated[0] if stated else next((k for k in _LORA_SETTINGS if d.has(k)), "")
        d.refuse(Field.METHOD, first, Message.of(OPEN, value=", ".join(said) or _lora_said(d)))
    elif _chosen(from_file, lora_set) is method and stated:
        d.set(Field.METHOD, method, *stated)
    else:
        d.default(Field.METHOD, method)
    for key in stated:
        d.get(key)
    if method is Method.FULL:
        off = ", ".join(said)
        for key in _LORA_SETTINGS:
            d.ignore(key, Message.of(LORA_OFF, value=off))


def _chosen(allowed: frozenset[Method], lora_set: bool) -> Method | None:
    """One method out of those allowed (module docstring), or None when they leave it open."""
    if len(allowed) == 1:
        return next(iter(allowed))
    if allowed == _ADAPTER:
        return Method.LORA
    if allowed == _NOT_4BIT and not lora_set:
        return Method.FULL
    return None


def _lora_said(d: Draft) -> str:
    return ", ".join(f"{k}: {show(d.raw(k))}" for k in _LORA_SETTINGS if d.has(k))


# -- LoRA, sequence, the rest -------------------------------------------------------------------------------------
def _lora(d: Draft, script: Script) -> None:
    """Rank, alpha, dropout, targets and the 4-bit base, with the script's defaults (read while the method is
    refused too, so that ``--method`` uses them)."""
    method = d.facts.get(Field.METHOD)
    if method is not None and method.kind is not Kind.REFUSED and method.value is Method.FULL:
        return
    rank, alpha, dropout = script.lora_keys
    if script is OTHER_SCRIPT and not d.has("lora_rank") and d.has("lora_r"):
        rank = "lora_r"
    common.lora_numbers(d, (rank, alpha, dropout), script.lora_defaults)
    if script.targets is not None:
        d.default(Field.LORA_TARGETS, script.targets)
    elif not any(common.lora_targets(d, k) for k in script.target_keys if d.has(k)):
        d.default(Field.LORA_TARGETS, script.target_default)
    if script.quant_keys is None:
        d.default(Field.QUANT_TYPE, QuantType.NF4)
        d.default(Field.DOUBLE_QUANT, True)
    else:
        type_key, double_key = script.quant_keys
        if script is OTHER_SCRIPT:
            type_key = next((k for k in (type_key, "quant_type") if d.has(k)), type_key)
            double_key = next((k for k in (double_key, "double_quant", "use_bnb_nested_quant") if d.has(k)),
                              double_key)
        common.quantization(d, type_key, double_key, double_default=script.double_default)


def _sequence(d: Draft, script: Script) -> None:
    for key in script.sequence_keys:
        if common.whole(d, Field.SEQ_LEN, key):
            return
    if script.sequence_default is not None:
        d.default(Field.SEQ_LEN, script.sequence_default)


def _note(d: Draft, script: Script, before: Mapping[Field, Fact]) -> None:
    """``assumed["format"]``: no tool's format, whose script, and which of its keys were taken to mean what (the
    facts its own readings made: ``before`` holds those of the TrainingArguments keys)."""
    taken = [f"{', '.join(fact.keys)} → {fld.value}" for fld, fact in d.facts.items()
             if fact.kind in (Kind.READ, Kind.APPROX) and fact.keys and before.get(fld) is not fact]
    method = d.facts.get(Field.METHOD)
    if method is not None and method.kind is Kind.DEFAULT:
        used = [f"{k} = {show(v)}" for k, v in script.defaults.items() if not d.has(k)]
        taken.insert(0, f"{', '.join(used) or '-'} → method")
    keys = "; ".join(taken) or "-"
    if script is OTHER_SCRIPT:
        d.notes["format"] = Message(OTHER, (("keys", keys),))
    else:
        d.notes["format"] = Message(KNOWN, (("script", script.name), ("source", script.source), ("keys", keys)))


def map_file(d: Draft) -> None:
    """A training script's own arguments (module docstring)."""
    script = script_of(d.data) or OTHER_SCRIPT
    common.model(d, "model_name_or_path")
    training_args.half(d, "none")
    training_args.batch(d)
    training_args.checkpointing(d, default=False)
    training_args.distributed(d)
    if d.has("optim"):
        training_args.optimizer(d)
    common.attention(d, "attn_implementation")
    trl._long_context(d)
    before = dict(d.facts)
    _method(d, script)
    _lora(d, script)
    _sequence(d, script)
    script.read_more(d)
    if Field.OPTIMIZER not in d.facts:
        d.default(Field.OPTIMIZER, Optimizer.ADAMW)
    _note(d, script, before)
    d.finish({"packing": PACKING, "use_unsloth": NOT_MODELLED})
