"""torchtune's recipe config (``tune run <recipe> --config <file>``).

Mapping table (torchtune 0.7.0, commit bd2a0fc7: ``torchtune/models/*/_model_builders.py``, ``recipes/*.py``,
``torchtune/training/_distributed.py``):

===============================================================  ============================================
``model._component_``: ``torchtune.models.<family>.<builder>``   the model (builders the catalog holds: below; a
                                                                 refused model's builder, llama3_2_vision_11b, is
                                                                 refused by name);
                                                                 ``lora_`` / ``qlora_`` builders are LoRA /
                                                                 QLoRA (torchao NF4 with its scales quantized
                                                                 again: double quantization); otherwise full
``model.lora_attn_modules`` + ``apply_lora_to_mlp`` (+            the target set (q_proj, v_proj, output_proj
``apply_lora_to_output``)                                        and the MLP, torchtune's usual: qvo-mlp)
``model.lora_rank`` / ``lora_alpha`` / ``lora_dropout``          8 / 16 / 0.0 by default (the builders')
``checkpointer.checkpoint_dir``                                  the model, when the builder is not in the
                                                                 catalog: a local folder with config.json, or
                                                                 its name (``Meta-Llama-3.1-8B-Instruct``)
``tokenizer.max_seq_len`` (``dataset.max_seq_len`` before v0.3,   the sequence; null (the configs' usual) means
a list of datasets each with its own)                            no truncation, so it is left open
``batch_size`` / ``gradient_accumulation_steps``                 micro-batch / accumulation (default 1)
``enable_activation_checkpointing``                              full / none (the recipes' default: false)
``ac_mode`` / ``ac_option`` (distributed recipes, since v0.2)     without ``enable_activation_checkpointing``:
                                                                 ``full`` checkpoints every layer; ``selective``
                                                                 with k every k-th layer (``training/
                                                                 activations.py``): full with checkpoint_every
                                                                 k; the per-operator ``op`` (which 0.6.1's
                                                                 ``int(ac_style)`` refuses) costed as none, an
                                                                 upper bound (reported); with it: ignored
the file itself                                                  the stack: torchtune (its recipes' rules:
                                                                 ``engine.training.stacks``)
``optimizer_in_bwd`` (full fine-tuning recipes)                  each parameter's optimizer step in backward
``dtype``: bf16 / fp32                                           bf16 (weights, gradients and states in bf16:
                                                                 torchtune has no fp32 master copy) / fp32
``optimizer._component_``                                        the optimizer (``torch.optim.SGD`` with
                                                                 ``momentum`` > 0: sgd-momentum)
``optimizer.fused``                                              ``torch.optim.AdamW``'s implementation: fused, or
                                                                 foreach (torch's own choice on CUDA) when false
                                                                 or absent
the launch command in the file's comments,                       a ``*_distributed`` recipe shards with FSDP2
``tune run --nnodes N --nproc_per_node P <recipe>``              over N x P GPUs (assumed: a comment, not a
                                                                 setting); ``dpo`` / ``ppo`` / ``grpo`` recipes
                                                                 name the alignment method
``loss._component_``                                             ``CEWithChunkedOutputLoss``: chunked-output
                                                                 (``num_output_chunks``, 8); ``LinearCrossEntropy
                                                                 Loss``: costed as fused-linear-ce (reported);
                                                                 ``torch.nn.CrossEntropyLoss``: standard
``enable_activation_offloading``                                 saved activations offloaded to host RAM
``fsdp_reshard_after_forward`` (default true)                    zero3 / zero2
``fsdp_cpu_offload: true`` (earlier ``fsdp.cpu_offload``,           parameters, gradients and the optimizer step on
``cpu_offload``)                                                 the CPU
``tensor_parallel_dim``                                          the tensor-parallel size
===============================================================  ============================================
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from engine.catalog import refused_model
from engine.config_import import common
from engine.config_import.draft import Draft, Field
from engine.config_import.loading import Loaded
from engine.config_import.messages import NEAR_FUSED_LOSS, NOT_MODELLED, NOT_TRAINING_CONFIG
from engine.config_import.names import AlignmentMethod
from engine.config_import.report import ConfigRefusedError, Message
from engine.specs import (
    Attention,
    Checkpointing,
    Loss,
    Method,
    Optimizer,
    OptimizerImpl,
    Precision,
    QuantType,
    Sharding,
    Stack,
)
from engine.translatable import QT_TRANSLATE_NOOP

#: torchtune builders -> catalog ids (the same architecture; ``_base`` / ``_instruct`` share one; the
#: ``code_llama2_*`` builders are those of torchtune before their removal in da507a05, 2025, which older configs name)
BUILDERS = {
    "llama2_7b": "llama-2-7b", "llama2_13b": "llama-2-13b", "llama2_70b": "llama-2-70b",
    "llama3_8b": "llama-3-8b", "llama3_70b": "llama-3-70b",
    "llama3_1_8b": "llama-3.1-8b", "llama3_1_70b": "llama-3.1-70b", "llama3_1_405b": "llama-3.1-405b",
    "llama3_2_1b": "llama-3.2-1b", "llama3_2_3b": "llama-3.2-3b",
    "mistral_7b": "mistral-7b", "phi3_mini": "phi-3-mini",
    "qwen2_5_0_5b": "qwen2.5-0.5b", "qwen2_5_7b": "qwen2.5-7b", "qwen2_5_14b": "qwen2.5-14b",
    "qwen2_5_32b": "qwen2.5-32b", "qwen2_5_72b": "qwen2.5-72b",
    "gemma2_2b": "gemma-2-2b", "gemma2_9b": "gemma-2-9b", "gemma2_27b": "gemma-2-27b",
    "qwen2_5_3b": "qwen2.5-3b", "llama3_3_70b": "llama-3.3-70b", "phi4_14b": "phi-4",
    "qwen3_0_6b": "qwen3-0.6b", "qwen3_1_7b": "qwen3-1.7b", "qwen3_4b": "qwen3-4b", "qwen3_8b": "qwen3-8b",
    "qwen3_14b": "qwen3-14b", "qwen3_32b": "qwen3-32b",
    "llama4_scout_17b_16e": "llama-4-scout", "llama4_maverick_17b_128e": "llama-4-maverick",
    "qwen2_0_5b": "qwen2-0.5b", "qwen2_1_5b": "qwen2-1.5b", "qwen2_7b": "qwen2-7b", "qwen2_5_1_5b": "qwen2.5-1.5b",
    "gemma_2b": "gemma-2b", "gemma_7b": "gemma-7b",
    "code_llama2_7b": "codellama-7b", "code_llama2_13b": "codellama-13b",
    "smollm2_135m": "smollm2-135m", "smollm2_360m": "smollm2-360m", "smollm2_1_7b": "smollm2-1.7b",
}
_LAUNCH = re.compile(r"#.*\btune run\b(?P<args>.*?)\s--config\b")
_DTYPES = {"bf16": Precision.BF16, "fp32": Precision.FP32}

FP16 = QT_TRANSLATE_NOOP("engine", "{value} training is not costed for torchtune (bf16 and fp32 are)")
TEACHER = QT_TRANSLATE_NOOP("engine", "knowledge distillation also holds the teacher model, which this estimate "
                                      "does not count")

SELECTIVE_OPS = QT_TRANSLATE_NOOP(
    "engine", "checkpoints each layer but keeps some operators' outputs (torchtune's op-level selective "
              "checkpointing), which VRAM Lab does not cost; costed as none, an upper bound")
AC_MODE_UNUSED = QT_TRANSLATE_NOOP("engine", "applies only with enable_activation_checkpointing false (torchtune's "
                                             "distributed recipes); full checkpointing is used")

REASONS = {"quantizer": NOT_MODELLED, "compile": NOT_MODELLED, "teacher_model": TEACHER,
           "custom_sharded_layers": NOT_MODELLED, "memory_efficient_fsdp_wrap": NOT_MODELLED}
_ALIGNMENT = (("grpo", AlignmentMethod.GRPO), ("ppo", AlignmentMethod.PPO), ("dpo", AlignmentMethod.DPO))


def _builder(component: str) -> tuple[str, str]:
    """(prefix "lora_" / "qlora_" / "", builder without it) of ``torchtune.models.llama3_1.lora_llama3_1_8b``."""
    name = component.rsplit(".", 1)[-1]
    for prefix in ("qlora_", "lora_"):
        if name.startswith(prefix):
            return prefix, name.removeprefix(prefix)
    return "", name


def _catalog_id(builder: str) -> str | None:
    for name in (builder, builder.removesuffix("_base"), builder.removesuffix("_instruct")):
        if name in BUILDERS:
            return BUILDERS[name]
    return None


def _model(d: Draft, section: str) -> None:
    key = f"{section}._component_"
    prefix, builder = _builder(str(d.get(key) or ""))
    known = _catalog_id(builder)
    if known is not None:
        d.set(Field.MODEL, known, key)
    elif refused_model(builder) is not None:  # a builder of a model the engine refuses (llama3_2_vision_11b)
        d.set(Field.MODEL, builder, key)
    else:
        common.model(d, "checkpointer.checkpoint_dir")
    quantized = common.flag(d, f"{section}.quantize_base")
    if prefix == "qlora_" or (prefix and quantized):
        d.set(Field.METHOD, Method.QLORA, key)
    elif prefix:
        d.set(Field.METHOD, Method.LORA, key)
    elif builder:
        d.set(Field.METHOD, Method.FULL, key)
    d.default(Field.QUANT_TYPE, QuantType.NF4)
    d.default(Field.DOUBLE_QUANT, True)
    common.dora(d, f"{section}.use_dora", common.flag(d, f"{section}.use_dora"))
    if prefix:
        _lora(d, section)


def _lora(d: Draft, section: str) -> None:
    common.lora_numbers(d, (f"{section}.lora_rank", f"{section}.lora_alpha", f"{section}.lora_dropout"), (8, 16.0, 0.0))
    names = common.split_words(d.raw(f"{section}.lora_attn_modules") or [])
    if common.flag(d, f"{section}.apply_lora_to_mlp"):
        names += ["gate_proj", "up_proj", "down_proj"]
    if common.flag(d, f"{section}.apply_lora_to_output"):
        names += ["output"]
    d.get(f"{section}.apply_lora_to_mlp")
    d.get(f"{section}.apply_lora_to_output")
    if names:  # the builders require lora_attn_modules; without it the engine's default set stays
        common.lora_targets(d, f"{section}.lora_attn_modules", names)


def _launch(d: Draft, text: str) -> str:
    """The recipe named by the file's launch comment ("" if none), and the GPU count it gives (assumed)."""
    match = _LAUNCH.search(text)
    if match is None:
        return ""
    words = match.group("args").split()
    recipe = words[-1] if words else ""
    nodes = re.search(r"--nnodes[ =](\d+)", match.group("args"))
    procs = re.search(r"--nproc_per_node[ =](\d+)", match.group("args"))
    if "distributed" in recipe:
        d.default(Field.GPUS, int(nodes.group(1) if nodes else 1) * int(procs.group(1) if procs else 1))
        d.default(Field.BACKEND, "fsdp")
    return recipe


#: CPU offload of FSDP, by the names torchtune gave it over time (``cpu_offload`` in its first recipes)
_OFFLOAD_KEYS = ("fsdp_cpu_offload", "fsdp.cpu_offload", "cpu_offload")


def _distributed(d: Draft, recipe: str) -> None:
    offload = next((k for k in _OFFLOAD_KEYS if d.has(k)), _OFFLOAD_KEYS[0])
    sharded = "distributed" in recipe or d.has(offload) or d.has("fsdp_reshard_after_forward")
    reshard = common.flag(d, "fsdp_reshard_after_forward")
    if reshard is not None:
        d.set(Field.SHARDING, Sharding.ZERO3 if reshard else Sharding.ZERO2, "fsdp_reshard_after_forward")
    elif sharded:
        d.default(Field.SHARDING, Sharding.ZERO3)
    if reshard is not None or sharded:
        d.default(Field.FSDP_VERSION, 2)  # torchtune shards with FSDP2's fully_shard
    if common.flag(d, offload):
        d.set(Field.OFFLOAD_PARAMS, True, offload)
        d.set(Field.OFFLOAD_OPTIMIZER, True, offload)
    common.parallel_sizes(d, {Field.TP: "tensor_parallel_dim"})
    common.replicated(d, "data_parallel_replicate_dim")  # HSDP: replicas of FSDP groups, reported


def _optimizer(d: Draft, at: str) -> None:
    """The optimizer; for ``torch.optim.AdamW``, its implementation: ``fused: True`` (torchtune's recipes) fused,
    else what torch picks on CUDA, foreach (``names.OPTIMIZER_IMPLS``)."""
    key = at + "optimizer._component_"
    name = str(d.raw(key) or "").lower()
    momentum = d.get(at + "optimizer.momentum")
    if name == "torch.optim.sgd" and isinstance(momentum, int | float) and momentum > 0:
        d.set(Field.OPTIMIZER, Optimizer.SGD_MOMENTUM, key, at + "optimizer.momentum")
    elif not common.optimizer(d, key):
        d.default(Field.OPTIMIZER, Optimizer.ADAMW)
    fused = common.flag(d, at + "optimizer.fused")  # absent: the class name's (common.optimizer), foreach
    if fused is not None and name in ("torch.optim.adamw", "torch.optim.adam"):
        d.set(Field.OPTIMIZER_IMPL, OptimizerImpl.FUSED if fused else OptimizerImpl.FOREACH, key,
              at + "optimizer.fused")


def _alignment(d: Draft, recipe: str, at: str) -> None:
    loss = str(d.get(at + "loss._component_") or "").lower()
    for word, method in _ALIGNMENT:
        if word in loss.rsplit(".", 1)[-1]:
            d.set(Field.ALIGNMENT, method, at + "loss._component_")
            return
        if word in recipe:
            d.default(Field.ALIGNMENT, method)
            return


def _loss(d: Draft, at: str) -> None:
    """``loss._component_``: ``CEWithChunkedOutputLoss`` is chunked-output (``num_output_chunks``, 8 by default);
    ``LinearCrossEntropyLoss`` projects and takes the loss chunk by chunk (costed as fused-linear-ce, reported);
    ``torch.nn.CrossEntropyLoss`` is standard."""
    key = at + "loss._component_"
    name = str(d.raw(key) or "").rsplit(".", 1)[-1].lower()
    if name == "cewithchunkedoutputloss":
        d.set(Field.LOSS, Loss.CHUNKED_OUTPUT, key)
        if not common.whole(d, Field.LOSS_CHUNKS, at + "loss.num_output_chunks"):
            d.default(Field.LOSS_CHUNKS, 8)
    elif name == "linearcrossentropyloss":
        d.approx(Field.LOSS, Loss.FUSED_LINEAR_CE, key, Message.of(NEAR_FUSED_LOSS, value=d.raw(key)))
    elif name == "crossentropyloss":
        d.set(Field.LOSS, Loss.STANDARD, key)


def _sequence(d: Draft) -> None:
    """The sequence: ``tokenizer.max_seq_len`` (v0.3 on), or the dataset's (``dataset.max_seq_len``, v0.1 and v0.2;
    a list of datasets: the longest of them); both: the shorter truncates. Null: left open (no truncation)."""
    stated: list[tuple[int, str]] = []
    tokenizer = d.get("tokenizer.max_seq_len")
    if _length(tokenizer):
        stated.append((tokenizer, "tokenizer.max_seq_len"))
    dataset = d.raw("dataset")
    if isinstance(dataset, dict) and _length(d.get("dataset.max_seq_len")):
        stated.append((dataset["max_seq_len"], "dataset.max_seq_len"))
    elif isinstance(dataset, list):
        lengths: list[Any] = [s.get("max_seq_len") for s in dataset if isinstance(s, dict)]
        whole = [int(n) for n in lengths if _length(n)]
        if whole and len(whole) == len(lengths):
            stated.append((max(whole), "dataset"))
    if stated:
        value, key = min(stated)
        d.set(Field.SEQ_LEN, value, key)
    elif tokenizer is not None:
        common.whole(d, Field.SEQ_LEN, "tokenizer.max_seq_len")  # refused: not a whole number


def _length(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= 1


def _checkpointing(d: Draft, at: str) -> None:
    """``enable_activation_checkpointing``, and the distributed recipes' ``ac_mode`` / ``ac_option`` (module
    docstring)."""
    key = at + "enable_activation_checkpointing"
    on = common.flag(d, key)
    mode = str(d.raw("ac_mode") or "").strip().lower()
    if on is None and not mode:
        d.default(Field.CHECKPOINTING, Checkpointing.NONE)
    elif on or not mode or mode == "none":
        d.set(Field.CHECKPOINTING, Checkpointing.FULL if on else Checkpointing.NONE, key)
        if mode:
            d.ignore("ac_mode", Message.of(AC_MODE_UNUSED))
            d.ignore("ac_option", Message.of(AC_MODE_UNUSED))
    elif mode == "full":
        d.set(Field.CHECKPOINTING, Checkpointing.FULL, "ac_mode")
    else:
        option = d.raw("ac_option")
        every = int(option) if isinstance(option, int | str) and str(option).strip().isdigit() else None
        if every is not None and every >= 1:  # the k-th, 2k-th, ... layer checkpointed (k = 1: every layer)
            d.set(Field.CHECKPOINTING, Checkpointing.FULL, "ac_mode", "ac_option")
            d.set(Field.CHECKPOINT_EVERY, every, "ac_option")
        else:  # "op": selective per operator inside every checkpointed layer
            d.approx(Field.CHECKPOINTING, Checkpointing.NONE, "ac_mode", Message.of(SELECTIVE_OPS))
            d.get("ac_option")
    if on is not None:
        d.get(key)


def _precision(d: Draft) -> None:
    value = d.get("dtype")
    if value is None:
        return
    if str(value) in _DTYPES:
        d.set(Field.PRECISION, _DTYPES[str(value)], "dtype")
    else:
        d.refuse(Field.PRECISION, "dtype", Message.of(FP16, value=value))


_REFERENCE = re.compile(r"\$\{([A-Za-z_][\w.]*)\}")
_MAX_HOPS = 8  # a reference to a reference... (a cycle stops here, left as written)


def _lookup(data: Mapping[str, Any], dotted: str) -> Any:
    node: Any = data
    for part in dotted.split("."):
        if not isinstance(node, Mapping) or part not in node:
            return None
        node = node[part]
    return node


def _resolve(value: Any, root: Mapping[str, Any], hops: int = 0) -> Any:
    """``value`` with OmegaConf's plain references (``${base_model_path}``, ``${a.b}``) to scalars of the same file
    replaced; a resolver (``${eval:...}``), a reference to a section or to nothing stays as written."""
    if isinstance(value, Mapping):
        return {k: _resolve(v, root, hops) for k, v in value.items()}
    if isinstance(value, list):
        return [_resolve(v, root, hops) for v in value]
    if not isinstance(value, str) or "${" not in value or hops >= _MAX_HOPS:
        return value
    whole = _REFERENCE.fullmatch(value.strip())
    if whole is not None:
        target = _lookup(root, whole.group(1))
        return value if target is None or isinstance(target, Mapping | list) else _resolve(target, root, hops + 1)

    def one(match: re.Match[str]) -> str:
        target = _resolve(_lookup(root, match.group(1)), root, hops + 1)
        return match.group(0) if target is None or isinstance(target, Mapping | list) else str(target)

    return _REFERENCE.sub(one, value)


def _training_section(d: Draft) -> str:
    """Where the training keys are: the top level, or a ``training:`` section (recipes/configs/dev's async GRPO)."""
    if not isinstance(d.raw("optimizer"), dict) and isinstance(d.raw("training.optimizer"), dict):
        return "training."
    return ""


def map_loaded(d: Draft, loaded: Loaded) -> None:
    """A torchtune recipe config (its text is searched for the launch comment)."""
    d.data = _resolve(d.data, d.data)
    at = _training_section(d)
    if not isinstance(d.raw(at + "optimizer"), dict):
        raise ConfigRefusedError(d.path.name, Message.of(NOT_TRAINING_CONFIG))
    section = "model" if isinstance(d.raw("model"), dict) else "policy_model"
    _model(d, section)
    _sequence(d)
    if not common.whole(d, Field.BATCH, at + "batch_size"):
        d.default(Field.BATCH, 1)
    if not common.whole(d, Field.GRAD_ACCUM, at + "gradient_accumulation_steps"):
        d.default(Field.GRAD_ACCUM, 1)
    _checkpointing(d, at)
    _precision(d)
    _optimizer(d, at)
    _loss(d, at)
    common.activation_offload(d, at + "enable_activation_offloading")
    d.default(Field.ATTENTION, Attention.SDPA)
    d.set(Field.STACK, Stack.TORCHTUNE, f"{section}._component_")
    if common.flag(d, at + "optimizer_in_bwd"):
        d.set(Field.OPTIMIZER_IN_BACKWARD, True, at + "optimizer_in_bwd")
    recipe = _launch(d, loaded.text)
    _distributed(d, recipe)
    _alignment(d, recipe, at)
    d.finish(REASONS)
