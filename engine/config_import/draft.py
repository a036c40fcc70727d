"""What one file says, as facts about the setup, and which of its keys were used.

A tool's mapping reads its file through a :class:`Draft`: ``get`` marks a key as used, ``set`` records a fact
read from keys, ``default`` a value the tool assumes where the file is silent, ``approx`` the nearest value VRAM
Lab can cost (the key is then reported as ignored, with why), ``refuse`` a value it cannot cost at all (the
import fails unless that field is set explicitly). ``finish`` lists every key left unused as ignored, at any depth,
and every key the mapping consulted whose value it took into account without making a fact of it (``bf16: auto``,
``load_in_8bit: false``, a trainer's ``"auto"`` in a DeepSpeed file) as read: no key of a file is left out of the
report (tests/engine/config_import/test_every_key.py).
"""

from __future__ import annotations

import datetime
from collections.abc import Mapping
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path
from typing import Any

from engine.config_import.report import NOT_USED, Format, Ignored, Message


class Field(StrEnum):
    """What a file can tell: a setup field (dotted as in ``TrainingSetup``) or an input of one."""

    METHOD = "method"
    PRECISION = "precision"
    OPTIMIZER = "optimizer"
    BATCH = "batch"
    SEQ_LEN = "seq_len"
    GRAD_ACCUM = "grad_accum"
    ATTENTION = "attention"
    CHECKPOINTING = "checkpointing"
    GPUS = "gpus"
    SHARDING = "sharding"
    OFFLOAD_OPTIMIZER = "offload_optimizer"
    OFFLOAD_PARAMS = "offload_params"
    LORA_RANK = "lora.rank"
    LORA_ALPHA = "lora.alpha"
    LORA_DROPOUT = "lora.dropout"
    LORA_TARGETS = "lora.targets"
    QUANT_TYPE = "quant.quant_type"
    DOUBLE_QUANT = "quant.double_quant"
    TP = "parallel.tp"
    PP = "parallel.pp"
    CP = "parallel.cp"
    EP = "parallel.ep"
    SEQUENCE_PARALLEL = "parallel.sequence_parallel"
    MICRO_BATCHES = "parallel.micro_batches"
    LOSS = "loss"
    LOSS_CHUNKS = "loss_chunks"
    ACTIVATION_OFFLOAD = "activation_offload"
    CHECKPOINT_EVERY = "checkpoint_every"
    OPTIMIZER_IN_BACKWARD = "optimizer_in_backward"
    COMPILE = "compile"
    ALLOC_CONF = "alloc_conf"  # PYTORCH_CUDA_ALLOC_CONF (engine.config_import.alloc_conf)
    # issue 27's options
    DORA = "dora"
    MODULES_TO_SAVE = "modules_to_save"
    FREEZE_LAYERS = "freeze_layers"
    OFT_BLOCK = "oft_block_size"
    OPTIMIZER_RANK = "optimizer_rank"
    OFFLOAD_OPTIMIZER_DEVICE = "offload_optimizer_device"
    OFFLOAD_PARAMS_DEVICE = "offload_params_device"
    CP_COMM = "parallel.cp_comm_type"
    STACK = "stack"  # whose code runs the step: the tool the file belongs to (issue 25)
    OPTIMIZER_IMPL = "optimizer_impl"  # torch AdamW's implementation: the name's, or the tool's version's default
    FSDP_VERSION = "fsdp_version"  # FSDP 1 or 2 (accelerate's fsdp_version)
    # inputs of the precision (engine.config_import.resolve.precision_of)
    HALF = "half"  # the 16-bit compute a trainer's flag asks for: "bf16", "fp16" or "none"
    WEIGHTS = "weights"  # the dtype trainable weights are kept in: "fp32", "bf16" or "fp16"
    BACKEND = "backend"  # "deepspeed", "fsdp" (accelerate's, which upcasts), "fsdp-native" (keeps the dtype loaded),
    #                      "megatron" or "none"
    # not part of the setup
    MODEL = "model"
    ALIGNMENT = "alignment"
    GLOBAL_BATCH = "global_batch"  # DeepSpeed's train_batch_size: micro-batch x accumulation x data-parallel GPUs


class Kind(StrEnum):
    READ = "read"  # stated by the file
    APPROX = "approx"  # the nearest value VRAM Lab can cost
    DEFAULT = "default"  # the tool's default where the file is silent (or says "auto")
    REFUSED = "refused"  # stated, but not something VRAM Lab can cost


@dataclass(frozen=True, slots=True)
class Fact:
    """One field's value as a file gives it, with the keys it came from."""

    value: Any
    kind: Kind
    keys: tuple[str, ...]
    file: str
    message: Message | None = None

    @property
    def strength(self) -> int:
        """Stated values (read, approximated or refused) beat defaults when files are combined."""
        return 1 if self.kind is Kind.DEFAULT else 2


_MISSING = object()


def jsonable(value: Any) -> Any:
    """A YAML or JSON value as plain JSON (dates and other scalars become strings)."""
    if isinstance(value, dict):
        return {str(k): jsonable(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [jsonable(v) for v in value]
    if value is None or isinstance(value, bool | int | float | str):
        return value
    if isinstance(value, datetime.date | bytes):
        return str(value)
    return str(value)


class Draft:
    """The facts one file gives, and the bookkeeping of its keys (see the module docstring)."""

    def __init__(self, path: Path, data: Mapping[str, Any], fmt: Format, prefix: str = "") -> None:
        self.path = path
        self.data = data
        self.format = fmt
        self.prefix = prefix
        self.used: set[str] = set()
        self.facts: dict[Field, Fact] = {}
        self.read: dict[str, Any] = {}
        self.ignored: list[Ignored] = []
        self.follow: list[tuple[str, str]] = []  # (key, path named by the file)
        self.notes: dict[str, Message] = {}  # what the file is taken to be, for the report's ``assumed``

    # -- reading keys --------------------------------------------------------------------------------------------
    def _lookup(self, key: str) -> Any:
        node: Any = self.data
        for part in key.split("."):
            if not isinstance(node, Mapping) or part not in node:
                return _MISSING
            node = node[part]
        return node

    def raw(self, key: str) -> Any:
        """The value at a dotted key, None when absent (does not mark it used)."""
        value = self._lookup(key)
        return None if value is _MISSING else value

    def get(self, key: str) -> Any:
        """The value at a dotted key (None when absent or null), marked as used."""
        self.used.add(key)
        return self.raw(key)

    def has(self, key: str) -> bool:
        """Whether the file states a non-null value at ``key`` (does not mark it used)."""
        return self.raw(key) is not None

    def shown(self, key: str) -> str:
        """The key as reports show it (prefixed with the file's name after the first file)."""
        return self.prefix + key

    # -- recording facts -----------------------------------------------------------------------------------------
    def _put(self, field: Field, fact: Fact) -> None:
        if field not in self.facts or fact.strength >= self.facts[field].strength:
            self.facts[field] = fact

    def set(self, field: Field, value: Any, *keys: str) -> None:
        """``field`` is ``value``, as stated by ``keys`` (which are reported as read)."""
        for key in keys:
            self.used.add(key)
            self.read[self.shown(key)] = jsonable(self.raw(key))
        self._put(field, Fact(value, Kind.READ, tuple(self.shown(k) for k in keys), self.path.name))

    def set_from_text(self, field: Field, value: Any, name: str, text: str) -> None:
        """``field`` is ``value``, stated as ``name=text`` in the file's text rather than by a key (a launch command
        in a comment), reported as read under ``name``."""
        self.read[self.shown(name)] = text
        self._put(field, Fact(value, Kind.READ, (self.shown(name),), self.path.name))

    def default(self, field: Field, value: Any) -> None:
        """``field`` is the tool's default ``value`` where the file is silent (reported as assumed)."""
        self._put(field, Fact(value, Kind.DEFAULT, (), self.path.name))

    def approx(self, field: Field, value: Any, key: str, why: Message, report: bool = True) -> None:
        """``field`` is costed as ``value``, the nearest to what ``key`` says; the key is ignored with ``why``
        (``report=False``: a second field the same key approximates, already reported)."""
        if report:
            self.ignore(key, why)
        self._put(field, Fact(value, Kind.APPROX, (self.shown(key),), self.path.name, why))

    def refuse(self, field: Field, key: str, why: Message) -> None:
        """``key`` asks for something VRAM Lab cannot cost; the import fails unless ``field`` is set explicitly."""
        self.used.add(key)
        self._put(field, Fact(self.raw(key), Kind.REFUSED, (self.shown(key),), self.path.name, why))

    def ignore(self, key: str, why: Message) -> None:
        """``key`` is not used, for a reason worth saying (it changes memory, or is followed elsewhere)."""
        self.used.add(key)
        if self.raw(key) is not None:
            self.ignored.append(Ignored(self.shown(key), why))

    def follow_file(self, key: str, path: str) -> None:
        """The file names another file (a DeepSpeed config) to read with it."""
        self.used.add(key)
        self.read[self.shown(key)] = path
        self.follow.append((self.shown(key), path))

    # -- closing ------------------------------------------------------------------------------------------------
    def _touched(self, key: str) -> bool:
        return key in self.used or any(u.startswith(key + ".") for u in self.used)

    def finish(self, reasons: Mapping[str, str] | None = None) -> None:
        """Close the report of this file (module docstring): every key the mapping did not use is ignored
        (``reasons``, key -> template, says why, else :data:`NOT_USED`), a section whose keys were partly used
        listing its unused keys at whatever depth; every key it consulted that is neither read, ignored nor refused
        is read. Null values are left out (they state nothing)."""
        self._unused(self.data, "", reasons or {})
        reported = set(self.read) | {i.key for i in self.ignored}
        refused = {k for f in self.facts.values() if f.kind is Kind.REFUSED for k in f.keys}
        for key in sorted(self.used):
            value = self._lookup(key)
            shown = self.shown(key)
            if value is _MISSING or value is None or shown in reported or shown in refused \
                    or any(r.startswith(shown + ".") for r in reported):
                continue
            self.read[shown] = jsonable(value)

    def _unused(self, data: Mapping[str, Any], prefix: str, reasons: Mapping[str, str]) -> None:
        for raw_key, value in data.items():
            key = prefix + str(raw_key)
            if value is None or key in self.used:
                continue
            if isinstance(value, Mapping) and self._touched(key):
                self._unused(value, key + ".", reasons)
            elif not self._touched(key):
                self.ignored.append(Ignored(self.shown(key), _reason(reasons, key, value)))


def _reason(reasons: Mapping[str, str], key: str, value: Any) -> Message:
    """Why an unused key is ignored: its reason, unless the file switches it off (``compile: False``,
    ``sample_packing: false``), which does nothing the reason could speak of."""
    off = value is False or (isinstance(value, str) and value.strip().lower() == "false")
    return Message(NOT_USED if off else reasons.get(key, NOT_USED))
