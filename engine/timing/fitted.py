"""The constants of the step-time model: each fitted one named with the measurements it was fitted on, each
sourced one with its source.

``engine/timing/data/fitted.json`` is written by ``tools/fit_timing.py`` (a least-squares fit of the log step time
over the rows of its fit set, ``calibration/timing/``); every parameter there carries its meaning, its unit and the
sources of its fit set, and ``docs/accuracy.md`` ("Step time") reports the fit and validation errors. Nothing else
in ``engine.timing`` is fitted: the rest are counts (FLOPs, bytes, launches) read from the stacks' code and
datasheet figures (``engine.timing.hardware``).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, fields
from functools import cache
from pathlib import Path
from typing import Any

DATA = Path(__file__).resolve().parent / "data" / "fitted.json"


@dataclass(frozen=True, slots=True)
class Fitted:
    """The fitted constants (``fitted.json`` gives each one's meaning and fit set)."""

    gemm_peak_fraction: float  # achieved / datasheet matmul peak where no MAMF measurement exists (sourced)
    gemm_sustained: float  # sustained share of the maximum achievable matmul rate inside a training step
    desktop_gemm_factor: float  # desktop/workstation cards' matmul rate over the datasheet's boost-clock figure
    gemm_fixed_s: float  # seconds every GEMM costs beyond its work (launch, prologue, tail)
    gemm_epilogue: float  # share of a GEMM's output write not hidden behind its main loop
    memory_efficiency: float  # achieved / datasheet bandwidth of elementwise kernels
    kernel_floor_s: float  # the least GPU time of any kernel
    dequant_efficiency: float  # achieved / datasheet bandwidth of an eager 4-bit dequantization kernel (bnb, torchao)
    flash2_fwd: float  # FlashAttention-2 forward on Ampere / Ada, fraction of the datasheet peak (sourced)
    flash2_hopper_fwd: float  # FlashAttention-2 forward on Hopper / Blackwell (sourced)
    flash3_fwd: float  # FlashAttention-3 / cuDNN fused attention forward on Hopper / Blackwell (sourced)
    attention_bwd_ratio: float  # a fused attention backward's FLOP rate over its forward's
    attention_ramp_tokens: float  # sequence length at which an attention kernel runs at half its long-sequence rate
    eager_softmax_efficiency: float  # achieved / datasheet bandwidth of eager attention's s x s elementwise kernels
    cpu_op_eager_s: float  # CPU seconds per dispatched op, eager PyTorch with autograd
    cpu_op_compiled_s: float  # likewise, torch.compile'd graphs
    cpu_op_megatron_s: float  # likewise, Megatron-Core / Transformer Engine
    cpu_checkpoint_hook_s: float  # CPU seconds non-reentrant checkpointing adds per forward / rerun op (its hooks)
    overlap_power: float  # p of the soft maximum (gpu^p + cpu^p)^(1/p) of GPU and CPU time
    link_efficiency: float  # achieved / datasheet link bandwidth of NCCL collectives
    step_fixed_s: float  # seconds per optimizer step outside the micro-batches (data loading, logging, syncs)
    float8_speedup: float  # achieved float8 / bf16 GEMM rate (torchao / Transformer Engine, scaling included)


@cache
def fitted() -> Fitted:
    """The constants of ``fitted.json``."""
    raw: dict[str, Any] = json.loads(DATA.read_text(encoding="utf-8"))
    values = {name: float(p["value"]) for name, p in raw["parameters"].items()}
    return Fitted(**{f.name: values[f.name] for f in fields(Fitted)})


def describe() -> dict[str, Any]:
    """Every parameter with its value, unit, meaning and fit set (for the docs and the GUI)."""
    raw: dict[str, Any] = json.loads(DATA.read_text(encoding="utf-8"))
    params: dict[str, Any] = raw["parameters"]
    return params


def clear_cache() -> None:
    """Re-read ``fitted.json`` (after the fit tool rewrote it)."""
    fitted.cache_clear()
