"""PyTorch FSDP as the tools spell it: a sharding strategy, CPU offload, activation checkpointing.

Mapping table (PyTorch ``torch.distributed.fsdp.ShardingStrategy`` and ``fully_shard``; accelerate
``FullyShardedDataParallelPlugin`` in ``src/accelerate/utils/dataclasses.py``, v1.15; transformers
``FSDPOption`` in ``trainer_utils.py``):

====================================================  ==========================================================
``FULL_SHARD`` (1), ``full_shard``                     zero3: parameters, gradients and optimizer states sharded
``SHARD_GRAD_OP`` (2), ``shard_grad_op``               zero2: gradients and optimizer states sharded
``NO_SHARD`` (3), ``no_shard``                         none (plain data parallel)
``HYBRID_SHARD`` (4) / ``_HYBRID_SHARD_ZERO2`` (5)     zero3 / zero2 within each machine, replicated across
                                                       machines: costed as sharded over the GPUs given
                                                       (reported; give the GPUs of one machine)
FSDP2 ``reshard_after_forward`` true / false           zero3 / zero2 (true is ``fully_shard``'s default)
none given (FSDP1)                                     FULL_SHARD, accelerate's and PyTorch's default
``fsdp_version`` / ``version``: 1 / 2                  the FSDP version (``--fsdp-version``; default 1,
                                                       accelerate's), whose own rules the hf-trainer stack
                                                       costs (``engine.training.policy``)
``offload_params`` / ``cpu_offload: true``, ``offload``  CPU offload, which moves parameters, gradients and the
                                                       optimizer step to the CPU (``CPUOffload(offload_params)``)
``activation_checkpointing``: true / false            full / no activation checkpointing
====================================================  ==========================================================

Keys are read with or without accelerate's ``fsdp_`` prefix (``fsdp_offload_params`` or ``offload_params``).
accelerate 1.x also accepts a FSDP1 strategy name in ``fsdp_reshard_after_forward``.
"""

from __future__ import annotations

from typing import Any

from engine.config_import import common
from engine.config_import.draft import Draft, Field
from engine.config_import.report import Message
from engine.specs import Checkpointing, Sharding
from engine.translatable import QT_TRANSLATE_NOOP

STRATEGIES = {
    "full_shard": Sharding.ZERO3, "1": Sharding.ZERO3,
    "shard_grad_op": Sharding.ZERO2, "2": Sharding.ZERO2,
    "no_shard": Sharding.NONE, "3": Sharding.NONE,
}
HYBRID = {"hybrid_shard": Sharding.ZERO3, "4": Sharding.ZERO3,
          "hybrid_shard_zero2": Sharding.ZERO2, "_hybrid_shard_zero2": Sharding.ZERO2, "5": Sharding.ZERO2}

HYBRID_NOTE = QT_TRANSLATE_NOOP(
    "engine", "{value} shards within each machine and replicates across machines; costed as {used} over the GPUs "
              "given (give the GPUs of one machine)")
BAD_STRATEGY = QT_TRANSLATE_NOOP("engine", "{value} is not an FSDP sharding strategy")


def _strategy(d: Draft, key: str, value: Any) -> None:
    name = str(value).strip().lower()
    if name in STRATEGIES:
        d.set(Field.SHARDING, STRATEGIES[name], key)
    elif name in HYBRID:
        d.approx(Field.SHARDING, HYBRID[name], key, Message.of(HYBRID_NOTE, value=value, used=HYBRID[name].value))
    else:
        d.refuse(Field.SHARDING, key, Message.of(BAD_STRATEGY, value=value))


def _key(d: Draft, section: str, name: str) -> str:
    prefixed = f"{section}.fsdp_{name}"
    return prefixed if d.has(prefixed) else f"{section}.{name}"


def read_config(d: Draft, section: str, version_key: str | None = None) -> None:
    """FSDP's settings under ``section`` (a mapping); ``version_key`` is a top-level ``fsdp_version`` if any."""
    d.set(Field.BACKEND, "fsdp")
    version = d.get(version_key) if version_key else None
    used_key = version_key if version is not None and version_key else _key(d, section, "version")
    version = version if version is not None else d.get(used_key)
    if str(version) in ("1", "2"):
        d.set(Field.FSDP_VERSION, int(str(version)), used_key)
    else:
        d.default(Field.FSDP_VERSION, 1)  # accelerate's and transformers' default: FullyShardedDataParallel
    reshard_key = _key(d, section, "reshard_after_forward")
    reshard = d.get(reshard_key)
    strategy_key = _key(d, section, "sharding_strategy")
    strategy = d.get(strategy_key)
    if isinstance(reshard, str) and reshard.strip().lower() not in ("true", "false"):
        strategy, strategy_key = reshard, reshard_key
    if strategy is not None and str(version) != "2":
        _strategy(d, strategy_key, strategy)
    elif isinstance(reshard, bool) or str(reshard).lower() in ("true", "false"):
        on = reshard is True or str(reshard).lower() == "true"
        d.set(Field.SHARDING, Sharding.ZERO3 if on else Sharding.ZERO2, reshard_key)
    else:
        d.default(Field.SHARDING, Sharding.ZERO3)
    offload = _key(d, section, "offload_params")
    offload = offload if d.has(offload) else f"{section}.cpu_offload"  # transformers 5's name for it
    if common.flag(d, offload):
        for field in (Field.OFFLOAD_PARAMS, Field.OFFLOAD_OPTIMIZER):
            d.set(field, True, offload)
    checkpointing = common.flag(d, _key(d, section, "activation_checkpointing"))
    if checkpointing is not None:
        d.set(Field.CHECKPOINTING, Checkpointing.FULL if checkpointing else Checkpointing.NONE,
              _key(d, section, "activation_checkpointing"))


def read_option(d: Draft, key: str) -> bool:
    """transformers' ``fsdp`` option (``"full_shard auto_wrap offload"``, a list, or true); True when FSDP is on."""
    value = d.get(key)
    if value in (None, "", [], False):
        return False
    options = ["full_shard"] if value is True else [str(o).strip().lower() for o in common.split_words(value)]
    d.set(Field.BACKEND, "fsdp")
    d.default(Field.FSDP_VERSION, 1)
    named = [o for o in options if o in STRATEGIES or o in HYBRID]
    if named:
        _strategy_from_option(d, key, named[0])
    else:
        d.default(Field.SHARDING, Sharding.ZERO3)
    if "offload" in options:
        d.set(Field.OFFLOAD_PARAMS, True, key)
        d.set(Field.OFFLOAD_OPTIMIZER, True, key)
    return True


def _strategy_from_option(d: Draft, key: str, name: str) -> None:
    if name in STRATEGIES:
        d.set(Field.SHARDING, STRATEGIES[name], key)
    else:
        d.approx(Field.SHARDING, HYBRID[name], key, Message.of(HYBRID_NOTE, value=name, used=HYBRID[name].value))
