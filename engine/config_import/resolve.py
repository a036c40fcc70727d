"""From the facts of several files to one setup: combining them, the precision, explicit settings, what is assumed.

Combining: a fact a file states beats a tool's default; between two stated facts the first file wins and the
later one's key is reported as ignored. Explicit settings (the command line's typed flags, the GUI's fields)
beat every file; the keys they override are moved from ``read`` to ``ignored``. A refused fact fails the import
unless its field is set explicitly.

Precision (``precision_of``) is what each regime of ``engine.specs.Precision`` holds, from three facts: the
16-bit compute asked for (``half``), the dtype trainable weights are kept in (``weights``) and the backend:

* DeepSpeed and Megatron-LM with bf16 / fp16 keep fp32 master weights and states: bf16-mixed / fp16-mixed (ZeRO,
  arXiv:1910.02054, s3.1; DeepSpeed's ``bf16`` and ``fp16`` config sections; Megatron-LM's
  ``Float16OptimizerWithFloat16Params`` / distributed optimizer keep fp32 main parameters);
* FSDP through accelerate with mixed precision upcasts trainable parameters to fp32 (accelerate
  ``accelerator.py``, "FSDP upcast of low precision parameters"; ``utils/fsdp_utils.py`` for FSDP2): full
  fine-tuning is amp-bf16 / amp-fp16; a tool's own FSDP2 that does not (``"fsdp-native"``: LLaMA-Factory v1's
  plugin, ``v1/plugins/trainer_plugins/distributed/fsdp2.py``) leaves it to the weights, as below;
* otherwise the weights decide: fp32 weights with autocast are amp-bf16 / amp-fp16 (fp32 without it); bf16
  weights are bf16, with or without autocast (the Hugging Face Trainer on a bf16 model holds 8 bytes per
  parameter with AdamW: ENVIRONMENT.md, "PyTorch as a ground truth"); fp16 weights are fp16-mixed for LoRA and
  QLoRA (16-bit frozen base, fp32 adapters: the same bytes) and refused for full fine-tuning, which the Trainer
  cannot run ("Attempting to unscale FP16 gradients").
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

from pydantic import ValidationError

from engine.config_import.common import FLAGS
from engine.config_import.draft import Draft, Fact, Field, Kind
from engine.config_import.report import ALREADY_SET, CHOOSE, OVERRIDDEN, ConfigRefusedError, Ignored, Message
from engine.errors import first_error
from engine.specs import SHARD_OPTIMIZERS, Method, Precision, Sharding, TrainingSetup
from engine.translatable import QT_TRANSLATE_NOOP

FP16_FULL = QT_TRANSLATE_NOOP("engine", "full fine-tuning of fp16 weights with fp16 autocast cannot run (the "
                                        "Trainer cannot unscale fp16 gradients)")
INVALID = QT_TRANSLATE_NOOP("engine", "the imported setup is not valid: {problem}")
DEEPSPEED_TORCHAO = QT_TRANSLATE_NOOP(
    "engine", "{value} under DeepSpeed ZeRO steps DeepSpeed's flat fp32 partitions, not each tensor: not costed (as "
              "FSDP2 runs it, it is)")
BATCH_MISMATCH = QT_TRANSLATE_NOOP(
    "engine", "{value} is not micro-batch x accumulation x data-parallel GPUs ({product}), as DeepSpeed requires; the "
              "estimate uses those")
BATCH_OPEN = QT_TRANSLATE_NOOP(
    "engine", "DeepSpeed's train_batch_size is micro-batch x accumulation x data-parallel GPUs; with the micro-batch "
              "left to the trainer, it fixes none of them")

#: setup fields, in the order ``TrainingSetup`` lists them
#: issue 27's options (a field each, listed as assumed only where a file names it)
ISSUE_27 = (Field.DORA, Field.MODULES_TO_SAVE, Field.FREEZE_LAYERS, Field.OFT_BLOCK, Field.OPTIMIZER_RANK,
            Field.OFFLOAD_OPTIMIZER_DEVICE, Field.OFFLOAD_PARAMS_DEVICE)
SETUP_FIELDS = (Field.METHOD, Field.PRECISION, Field.OPTIMIZER, Field.BATCH, Field.SEQ_LEN, Field.GRAD_ACCUM,
                Field.ATTENTION, Field.CHECKPOINTING, Field.GPUS, Field.SHARDING, Field.OFFLOAD_OPTIMIZER,
                Field.OFFLOAD_PARAMS, Field.LORA_RANK, Field.LORA_ALPHA, Field.LORA_DROPOUT, Field.LORA_TARGETS,
                Field.QUANT_TYPE, Field.DOUBLE_QUANT, Field.TP, Field.PP, Field.CP, Field.EP, Field.SEQUENCE_PARALLEL,
                Field.MICRO_BATCHES, Field.LOSS, Field.LOSS_CHUNKS, Field.ACTIVATION_OFFLOAD, Field.CHECKPOINT_EVERY,
                Field.OPTIMIZER_IN_BACKWARD, Field.COMPILE, Field.STACK, Field.OPTIMIZER_IMPL, Field.FSDP_VERSION,
                Field.ALLOC_CONF, Field.CP_COMM, *ISSUE_27)
#: fields added to the setup after its first release: listed as assumed only when a file or a setting names them
_OPTIONAL = {"parallel": (Field.TP, Field.PP, Field.CP, Field.EP, Field.SEQUENCE_PARALLEL, Field.MICRO_BATCHES,
                          Field.CP_COMM),
             "long": (Field.LOSS, Field.LOSS_CHUNKS, Field.ACTIVATION_OFFLOAD), "allocator": (Field.ALLOC_CONF,),
             "stack": (Field.STACK, Field.OPTIMIZER_IMPL, Field.FSDP_VERSION, Field.CHECKPOINT_EVERY,
                       Field.OPTIMIZER_IN_BACKWARD, Field.COMPILE),
             **{f.value: (f,) for f in ISSUE_27}}  # each listed as assumed only where a file names it
_PRECISION_INPUTS = (Field.HALF, Field.WEIGHTS, Field.BACKEND)


def precision_of(half: str, weights: str, backend: str, method: Method) -> Precision | None:
    """The regime the module docstring derives; None for fp16 weights trained in full with fp16 autocast."""
    mixed = {"bf16": Precision.BF16_MIXED, "fp16": Precision.FP16_MIXED}
    amp = {"bf16": Precision.AMP_BF16, "fp16": Precision.AMP_FP16}
    if backend in ("deepspeed", "megatron"):
        return mixed.get(half, Precision.FP32 if weights == "fp32" else Precision.BF16)
    if backend == "fsdp" and half in amp and method is Method.FULL:
        return amp[half]
    if weights == "fp32":
        return amp.get(half, Precision.FP32)
    if weights == "bf16":
        return Precision.BF16
    return Precision.FP16_MIXED if method is not Method.FULL else None


class Combined:
    """The facts of several drafts, combined (module docstring), with the report's ``read`` and ``ignored``."""

    def __init__(self, drafts: Sequence[Draft]) -> None:
        self.facts: dict[Field, Fact] = {}
        self.read: dict[str, Any] = {}
        self.ignored: list[Ignored] = []
        for d in drafts:
            self.read.update(d.read)
            self.ignored.extend(d.ignored)
            for field, fact in d.facts.items():
                self._add(field, fact)

    def _add(self, field: Field, fact: Fact) -> None:
        old = self.facts.get(field)
        if old is None or fact.strength > old.strength:
            self.facts[field] = fact
        elif fact.strength == old.strength and fact.kind is not Kind.DEFAULT and fact.value != old.value:
            for key in fact.keys:
                self.read.pop(key, None)
                self.ignored.append(Ignored(key, Message.of(ALREADY_SET, file=old.file, field=field.value,
                                                            value=_shown(old.value))))

    def override(self, fields: Sequence[Field]) -> None:
        """Explicit settings replace these fields: their keys move from read to ignored."""
        for field in fields:
            fact = self.facts.pop(field, None)
            if fact is None:
                continue
            for key in fact.keys:
                if self.read.pop(key, _GONE) is not _GONE or fact.kind is Kind.REFUSED:
                    self.ignored.append(Ignored(key, Message.of(OVERRIDDEN)))

    def refusal(self, explicit: Mapping[str, Any]) -> ConfigRefusedError | None:
        """The first refused fact whose field is not set explicitly."""
        for field, fact in self.facts.items():
            if fact.kind is Kind.REFUSED and field.value not in explicit and fact.message is not None:
                hint = Message.of(CHOOSE, field=field.value, flag=FLAGS.get(field, ""))
                return ConfigRefusedError(fact.file, fact.message, key=fact.keys[0].split(":", 1)[-1], hint=hint)
        return None


_GONE = object()


def _shown(value: Any) -> Any:
    return getattr(value, "value", value)


def _weights_matter(half: str, backend: str, method: Method) -> bool:
    """Whether the dtype weights are loaded in changes the regime (not under DeepSpeed or accelerate's FSDP with
    16-bit compute, which keep or make fp32 copies whatever it is)."""
    return not ((backend in ("deepspeed", "megatron") and half != "none") or (backend == "fsdp" and half != "none"
                                                                and method is Method.FULL))


def _precision(c: Combined, method: Method) -> tuple[Precision, bool] | None:
    """The precision the facts give, and whether an input it depends on was assumed; None when they give none."""
    stated = c.facts.get(Field.PRECISION)
    if stated is not None and stated.kind is not Kind.REFUSED:
        return stated.value, stated.kind is not Kind.READ
    half_f, weights_f, backend_f = (c.facts.get(f) for f in _PRECISION_INPUTS)
    if half_f is None and weights_f is None:
        return None
    half = half_f.value if half_f else "none"
    weights = weights_f.value if weights_f else "fp32"
    backend = backend_f.value if backend_f else "none"
    value = precision_of(half, weights, backend, method)
    if value is None:
        raise ConfigRefusedError(half_f.file if half_f else "", Message.of(FP16_FULL),
                                 hint=Message.of(CHOOSE, field="precision", flag="--precision"))
    used = [half_f] + ([weights_f] if _weights_matter(half, backend, method) else [])
    return value, any(f is None or f.kind is not Kind.READ for f in used)


def _relevant(field: Field, method: Method, named: set[str]) -> bool:
    """Whether an assumed field is worth listing: LoRA's only for LoRA, QLoRA's for QLoRA, the layout's and the
    long-context fields' (:data:`_OPTIONAL`) when the files or the explicit settings name one of their group."""
    name = field.value
    if name.startswith("lora."):
        return method is not Method.FULL
    if name.startswith("quant."):
        return method is Method.QLORA
    group = next((g for g, fields in _OPTIONAL.items() if field in fields), None)
    return group is None or group in named


def _world(values: dict[str, Any], assumed: dict[str, Any], explicit: Mapping[str, Any]) -> None:
    """With a parallel layout and no GPU count stated, the smallest world that holds it, reported as assumed: a
    whole multiple of tp x pp x cp whose ranks per pipeline stage (tp x cp x dp) the expert group etp x ep
    divides (``engine.training.layout``: expert parallelism is carved from the data- and context-parallel ranks)."""
    size = {k: int(_shown(values.get(f"parallel.{k}") or 1)) for k in ("tp", "pp", "cp", "ep")}
    etp = int(_shown(values.get("parallel.etp") or size["tp"]))
    step = math.lcm(size["tp"] * size["pp"] * size["cp"], size["pp"] * etp * size["ep"]) if size["ep"] > 1 \
        else size["tp"] * size["pp"] * size["cp"]
    gpus = int(values["gpus"])
    if step > 1 and gpus % step and "gpus" in assumed and "gpus" not in explicit:
        values["gpus"] = step * -(-gpus // step)
        assumed["gpus"] = values["gpus"]


def build(c: Combined, explicit: Mapping[str, Any], base: TrainingSetup, file: str) -> tuple[TrainingSetup,
                                                                                            dict[str, Any]]:
    """The setup (explicit > facts > ``base``) and the ``assumed`` map of the fields not stated exactly."""
    refused = c.refusal(explicit)
    if refused is not None:
        raise refused
    values: dict[str, Any] = {}
    assumed: dict[str, Any] = {}
    method_fact = c.facts.get(Field.METHOD)
    method = Method(explicit.get("method", method_fact.value if method_fact else base.method))
    named = {g for g, fields in _OPTIONAL.items()
             if any(f in c.facts or f.value in explicit for f in fields) or (g == "parallel" and any(
                 k.startswith("parallel.") for k in explicit))}
    values.update({k: v for k, v in explicit.items() if k not in {f.value for f in SETUP_FIELDS}})
    for field in SETUP_FIELDS:
        name = field.value
        if name in explicit:
            values[name] = explicit[name]
            continue
        if field is Field.PRECISION:
            found = _precision(c, method)
            value, guessed = found if found is not None else (base.precision, True)
        elif field in c.facts and c.facts[field].kind is not Kind.REFUSED:
            value, guessed = c.facts[field].value, c.facts[field].kind is not Kind.READ
        else:
            value, guessed = _base_value(base, name), True
        values[name] = value
        if guessed and _relevant(field, method, named):
            assumed[name] = _shown(value)
    _global_batch(c, values, assumed)
    _world(values, assumed, explicit)
    _deepspeed_torchao(c, values, explicit)
    _consistent(values, assumed, explicit)
    if _shown(values["loss"]) not in ("chunked-output", "chunked-backward"):  # a chunk count to assume is only
        assumed.pop("loss_chunks", None)  # torchtune's and torchtitan's (TRL's chunks are its own constant)
    return _validated(values, file), assumed


def _deepspeed_torchao(c: Combined, values: Mapping[str, Any], explicit: Mapping[str, Any]) -> None:
    """torchao's low-bit AdamW is costed under ZeRO-3 as FSDP2 runs it (``engine.specs.SHARD_OPTIMIZERS``); under
    DeepSpeed ZeRO (``DeepSpeedZeroOptimizer_Stage3`` hands the optimizer flat fp32 partitions of up to
    ``sub_group_size`` values) it is refused, naming the optimizer's key, unless the optimizer or the sharding is
    set explicitly."""
    backend, fact = c.facts.get(Field.BACKEND), c.facts.get(Field.OPTIMIZER)
    if (backend is None or backend.value != "deepspeed" or fact is None or not fact.keys
            or _shown(values["optimizer"]) not in {o.value for o in SHARD_OPTIMIZERS}
            or _shown(values["sharding"]) == Sharding.NONE.value
            or {"optimizer", "sharding"} & explicit.keys()):
        return
    key = fact.keys[0].split(":", 1)[-1]
    hint = Message.of(CHOOSE, field=Field.OPTIMIZER.value, flag=FLAGS[Field.OPTIMIZER])
    raise ConfigRefusedError(fact.file, Message.of(DEEPSPEED_TORCHAO, value=c.read.get(fact.keys[0], key)), key=key,
                             hint=hint)


def _consistent(values: dict[str, Any], assumed: dict[str, Any], explicit: Mapping[str, Any]) -> None:
    """Fields that only mean something with others: torch AdamW's implementation with AdamW, FSDP's version with
    a sharded setup (zero2 / zero3); a tool's default of either is dropped where it does not apply."""
    if _shown(values["optimizer"]) != "adamw" and "optimizer_impl" not in explicit:
        values["optimizer_impl"] = None
        assumed.pop("optimizer_impl", None)
    if _shown(values["sharding"]) not in ("zero2", "zero3") and "fsdp_version" not in explicit:
        values["fsdp_version"] = None
    if values.get("fsdp_version") is None:  # no FSDP: nothing to assume
        assumed.pop("fsdp_version", None)


def _global_batch(c: Combined, values: dict[str, Any], assumed: dict[str, Any]) -> None:
    """DeepSpeed's ``train_batch_size`` = micro-batch x accumulation x data-parallel GPUs (deepspeed/runtime/
    config.py ``_batch_assertion``; ``_set_batch_related_parameters`` derives the accumulation from it and the
    micro-batch): with the accumulation open and the micro-batch stated, the accumulation (assumed unless the GPU
    count is stated too); with the GPU count open and both others stated, the GPU count; else, if it does not hold,
    the key is ignored with why. A field is stated when it is not in ``assumed``."""
    fact = c.facts.get(Field.GLOBAL_BATCH)
    if fact is None or fact.kind is not Kind.READ:
        return
    total = int(fact.value)
    model_parallel = math.prod(int(_shown(values.get(f"parallel.{k}") or 1)) for k in ("tp", "pp", "cp"))
    micro, accum, gpus = (int(_shown(values[k])) for k in ("batch", "grad_accum", "gpus"))
    data_parallel = gpus // model_parallel
    if "batch" in assumed:
        why = Message.of(BATCH_OPEN)
    elif "grad_accum" in assumed and total % (micro * data_parallel) == 0:
        values["grad_accum"] = total // (micro * data_parallel)
        assumed.pop("grad_accum")
        if "gpus" in assumed:
            assumed["grad_accum"] = values["grad_accum"]
        return
    elif "gpus" in assumed and "grad_accum" not in assumed and total % (micro * accum * model_parallel) == 0:
        values["gpus"] = total // (micro * accum)
        assumed.pop("gpus")
        return
    elif total == micro * accum * data_parallel:
        return
    else:
        product = f"{micro} x {accum} x {data_parallel} = {micro * accum * data_parallel}"
        why = Message.of(BATCH_MISMATCH, value=f"train_batch_size {total}", product=product)
    for key in fact.keys:
        c.read.pop(key, None)
        c.ignored.append(Ignored(key, why))


def _base_value(base: TrainingSetup, name: str) -> Any:
    obj: Any = base
    for part in name.split("."):
        obj = getattr(obj, part)
    return obj


def _validated(values: Mapping[str, Any], file: str) -> TrainingSetup:
    nested: dict[str, Any] = {"lora": {}, "quant": {}, "parallel": {}}
    for name, value in values.items():
        head, _, tail = name.partition(".")
        if tail:
            nested[head][tail] = _shown(value)
        else:
            nested[name] = _shown(value)
    try:
        return TrainingSetup.model_validate(nested)
    except ValidationError as err:
        where, message = first_error(err, fallback="")
        problem = f"{where}: {message}" if where else message
        raise ConfigRefusedError(file, Message.of(INVALID, problem=problem)) from None
