"""The Hugging Face ``TrainingArguments`` keys that TRL and LLaMA-Factory files share.

Mapping table (transformers ``src/transformers/training_args.py``, main at commit 00349ae8, v5; the defaults are
its field defaults):

===================================  =====================================================================
``per_device_train_batch_size``      micro-batch (default 8)
``gradient_accumulation_steps``      gradient accumulation (default 1)
``gradient_checkpointing``           full checkpointing when true (default false; TRL's configs default true)
``bf16`` / ``fp16``                  the 16-bit autocast the Trainer asks accelerate for (default false)
``optim``                            the optimizer (default ``adamw_torch``, ``adamw_torch_fused`` with
                                     torch >= 2.8: AdamW either way) and torch AdamW's implementation
                                     (``adamw_torch``: foreach, ``adamw_torch_fused``: fused); absent, the
                                     Trainer's default of the ``transformers_version`` the file states
                                     (before 4.34 ``adamw_hf``, from 4.34 foreach, from 4.54 fused), else
                                     today's, fused (assumed); the stack is hf-trainer
``deepspeed``                        a DeepSpeed JSON path (followed) or the config itself
``fsdp`` + ``fsdp_config``           FSDP (``engine.config_import.fsdp``); ``fsdp_config`` alone, as every
                                     ``to_json_string()`` dump holds it, is not FSDP
===================================  =====================================================================
"""

from __future__ import annotations

from engine.config_import import common, deepspeed, fsdp
from engine.config_import.draft import Draft, Field
from engine.config_import.report import NOT_USED, Message
from engine.specs import Checkpointing, Optimizer

DEFAULT_BATCH = 8
DEFAULT_ACCUM = 1


def batch(d: Draft) -> None:
    """Micro-batch and gradient accumulation, with transformers' defaults."""
    if not common.whole(d, Field.BATCH, "per_device_train_batch_size"):
        d.default(Field.BATCH, DEFAULT_BATCH)
    if not common.whole(d, Field.GRAD_ACCUM, "gradient_accumulation_steps"):
        d.default(Field.GRAD_ACCUM, DEFAULT_ACCUM)


def checkpointing(d: Draft, default: bool) -> None:
    """``gradient_checkpointing`` (``default`` when absent: the tool's)."""
    on = common.flag(d, "gradient_checkpointing")
    if on is None:
        d.default(Field.CHECKPOINTING, Checkpointing.FULL if default else Checkpointing.NONE)
    else:
        d.set(Field.CHECKPOINTING, Checkpointing.FULL if on else Checkpointing.NONE, "gradient_checkpointing")
    d.ignore("gradient_checkpointing_kwargs", Message(NOT_USED))  # reentrant or not: the same tensors are kept


def half(d: Draft, default: str) -> None:
    """``bf16`` / ``fp16`` as the 16-bit compute asked for; ``default`` ("bf16" for TRL, "none" for
    transformers) where ``bf16`` is absent and ``fp16`` is not true."""
    bf16, fp16 = common.flag(d, "bf16"), common.flag(d, "fp16")
    if bf16:
        d.set(Field.HALF, "bf16", "bf16")
    elif fp16:
        d.set(Field.HALF, "fp16", "fp16")
    elif bf16 is None:
        d.default(Field.HALF, default)
    else:
        d.set(Field.HALF, "none", *(k for k in ("bf16", "fp16") if d.has(k)))


def optimizer(d: Draft) -> None:
    """``optim``, AdamW by default; ``optim_args`` (transformers' ``"k=v,k=v"``, ``_parse_optim_args``) where it
    changes the memory of issue 27's optimizers: ``rmsprop``'s ``momentum`` (its momentum buffer), GaLore's and
    APOLLO's ``rank``; ``optim_target_modules`` (GaLore's and APOLLO's targets: the decoder blocks' linears)."""
    if not common.optimizer(d, "optim"):
        d.default(Field.OPTIMIZER, Optimizer.ADAMW)
        return
    args = common.optim_args(d.raw("optim_args"))
    chosen = d.facts.get(Field.OPTIMIZER)
    if chosen is not None and chosen.value is Optimizer.RMSPROP and float(args.get("momentum", 0) or 0) > 0:
        d.set(Field.OPTIMIZER, Optimizer.RMSPROP_MOMENTUM, "optim", "optim_args")
    if chosen is not None and chosen.value in (Optimizer.GALORE_ADAMW, Optimizer.APOLLO_ADAMW):
        if "rank" in args:
            d.set(Field.OPTIMIZER_RANK, int(args["rank"]), "optim_args")
        d.get("optim_target_modules")


def deepspeed_key(d: Draft) -> None:
    """``deepspeed``: a DeepSpeed JSON path to follow, or the config itself inlined (Axolotl accepts both too)."""
    value = d.get("deepspeed")
    if isinstance(value, str) and value.strip():
        d.set(Field.BACKEND, "deepspeed")
        d.follow_file("deepspeed", value.strip())
    elif isinstance(value, dict):
        deepspeed.read_zero(d, "deepspeed.")


def distributed(d: Draft) -> None:
    """``deepspeed`` and ``fsdp`` / ``fsdp_config``."""
    deepspeed_key(d)
    if fsdp.read_option(d, "fsdp"):
        if isinstance(d.raw("fsdp_config"), dict):
            fsdp.read_config(d, "fsdp_config")
    else:
        d.get("fsdp_config")
