"""``python -m engine estimate --from-config FILE [...]``: the estimate of a setup imported from training configs.

Flags typed on the command line override every file (``engine.commands.explicit``); the JSON is ``estimate``'s,
with ``setup.alignment`` (the method a file names, or null) and ``imported`` (``engine.config_import``'s
report: format, files, read, ignored, assumed).
"""

from __future__ import annotations

import argparse
from typing import Any

from engine.allocator.total import with_device_total
from engine.catalog import DEFAULT_MODEL, get_gpu, get_model
from engine.commands.estimate_output import to_json, to_text
from engine.commands.explicit import explicit
from engine.commands.host_report import host_from_args
from engine.commands.setup_flags import resolve_model
from engine.commands.time_report import time_json, time_text
from engine.config_import import ImportedConfig, import_configs
from engine.specs import (
    Attention,
    Checkpointing,
    CpCommType,
    LoraTargets,
    Loss,
    Method,
    OffloadDevice,
    Optimizer,
    PipelineSchedule,
    Precision,
    QuantType,
    Sharding,
)
from engine.training import estimate

#: flag destination -> (setup field, how to read the flag's value)
FIELDS: dict[str, tuple[str, Any]] = {
    "method": ("method", Method),
    "precision": ("precision", Precision),
    "optimizer": ("optimizer", Optimizer),
    "batch": ("batch", int),
    "seq_len": ("seq_len", int),
    "grad_accum": ("grad_accum", int),
    "attention": ("attention", Attention),
    "checkpointing": ("checkpointing", Checkpointing),
    "gpus": ("gpus", int),
    "sharding": ("sharding", Sharding),
    "offload_optimizer": ("offload_optimizer", bool),
    "offload_params": ("offload_params", bool),
    "lora_rank": ("lora.rank", int),
    "lora_alpha": ("lora.alpha", float),
    "lora_dropout": ("lora.dropout", float),
    "lora_targets": ("lora.targets", LoraTargets),
    "quant": ("quant.quant_type", QuantType),
    "no_double_quant": ("quant.double_quant", lambda v: not v),
    "tp": ("parallel.tp", int),
    "pp": ("parallel.pp", int),
    "cp": ("parallel.cp", int),
    "ep": ("parallel.ep", int),
    "etp": ("parallel.etp", lambda v: v),
    "sequence_parallel": ("parallel.sequence_parallel", bool),
    "micro_batches": ("parallel.micro_batches", int),
    "pp_schedule": ("parallel.schedule", PipelineSchedule),
    "virtual_stages": ("parallel.virtual_stages", int),
    "pp_layers": ("parallel.pp_layers", lambda v: v),
    "cp_comm_type": ("parallel.cp_comm_type", CpCommType),
    "loss": ("loss", Loss),
    "loss_chunks": ("loss_chunks", int),
    "activation_offload": ("activation_offload", bool),
    "alloc_conf": ("alloc_conf", lambda v: v),
    "optimizer_rank": ("optimizer_rank", int),
    "dora": ("dora", bool),
    "modules_to_save": ("modules_to_save", lambda v: v),
    "trainable_tokens": ("trainable_tokens", int),
    "freeze_layers": ("freeze_layers", int),
    "oft_block_size": ("oft_block_size", int),
    "offload_optimizer_device": ("offload_optimizer_device", OffloadDevice),
    "offload_params_device": ("offload_params_device", OffloadDevice),
}


def explicit_fields(args: argparse.Namespace) -> dict[str, Any]:
    """The setup fields the user typed a flag for, with their values."""
    typed = explicit(args)
    return {field: read(getattr(args, dest)) for dest, (field, read) in FIELDS.items() if dest in typed}


def _text(e_text: str, imported: ImportedConfig) -> str:
    r = imported.report
    head = f"imported from {', '.join(r.files)} ({r.format.value}): {len(r.read)} read, {len(r.ignored)} ignored"
    assumed = ", ".join(f"{k} {v}" for k, v in r.assumed.items())
    lines = [head] + ([f"assumed: {assumed}"] if assumed else [])
    if imported.alignment is not None:
        lines.append(f"alignment: {imported.alignment.value} (python -m engine alignment counts its other models)")
    return "\n".join([*lines, e_text])


def run_imported(args: argparse.Namespace) -> tuple[dict[str, Any], str]:
    typed = explicit(args)
    model = resolve_model(args.model, args.config) if {"model", "config"} & typed else None
    imported = import_configs(args.from_config, explicit=explicit_fields(args), model=model,
                              default_model=get_model(DEFAULT_MODEL))
    # the host side (loading, data, workers) is not in training configs: the host flags set it, as without files
    setup = imported.setup.with_(host=host_from_args(args))
    gpu = get_gpu(args.gpu)
    e = with_device_total(estimate(imported.model, setup, gpu))
    data = to_json(e)
    data["time"] = time_json(imported.model, setup, gpu, getattr(args, "epochs", None),
                             getattr(args, "price_per_gpu_hour", None))
    data["setup"]["alignment"] = imported.alignment.value if imported.alignment else None
    data["imported"] = imported.report.as_dict()
    return data, _text("\n".join([to_text(e), *time_text(data["time"])]), imported)
