"""Seconds of one kernel: a GEMM, a fused attention call, a run of elementwise kernels.

* GEMM (``gemm_seconds``): ``fixed + max(compute, inputs) + epilogue x output``. Compute is the FLOPs (2 m n k per
  batch) at the GPU's maximum achievable matmul rate (its measured MAMF, ``engine.timing.hardware``; the datasheet
  peak times a fitted fraction where none was measured), slowed by wave quantization: the output splits into
  128 x 128 tiles (split along k when too few, as cuBLAS's split-K does) and a wave of tiles occupies every SM, so
  ``tiles / (waves x SMs)`` of the GPU works (NVIDIA, "Matrix Multiplication Background User's Guide",
  "Wave Quantization"). Inputs and the output move at the GPU's memory bandwidth (the roofline, Williams et al.
  2009); a share of the output write is not hidden behind the main loop (fitted on measured GEMM times).
* Fused attention (``attention_seconds``): FLOPs at a fraction of the datasheet peak by kernel and architecture,
  reached at long sequences: FlashAttention-2 on Ampere/Ada up to 73% forward (Dao 2023, arXiv:2307.08691,
  abstract and s4.1), on Hopper 35% (Shah et al. 2024, FlashAttention-3, arXiv:2407.08608, s1: "FlashAttention-2
  achieves only 35% utilization on the H100"); FlashAttention-3 (and cuDNN's fused attention that Transformer
  Engine calls) up to 75% (740 TFLOP/s, ibid. abstract). The backward's rate relative to the forward and the
  sequence length at which a kernel runs at half its long-sequence rate are fitted.
* Elementwise kernels (``pointwise_seconds``): bytes at the achieved share of the memory bandwidth (fitted), each
  launch at least the kernel floor (fitted).
"""

from __future__ import annotations

import math

from engine.timing.fitted import Fitted
from engine.timing.hardware import CannotTimeError, GpuPerf

TILE = 128
#: GeForce and RTX workstation architectures: no MAMF measured, and their clocks under load run above the
#: datasheet's rated boost (GPU Boost), so their matmul rate is the datasheet figure times a fitted factor
DESKTOP_ARCHS = frozenset({"ada", "ampere-ga10x", "blackwell-gb20x", "turing"})
SPLIT_K_DEPTH = 512  # k per split when cuBLAS splits along k to fill the GPU


def matmul_rate(perf: GpuPerf, dtype: str, f: Fitted) -> float:
    """FLOP/s of a large GEMM in ``dtype`` (bf16, fp16, fp32) inside a training step: the measured MAMF, else the
    datasheet peak times the median MAMF / peak of the measured GPUs (and, for desktop and workstation cards, a
    fitted factor: ``DESKTOP_ARCHS``), times the fitted sustained share; fp8
    (float8 training): the bf16 rate times the fitted float8 gain (the casts and scales torchao and Transformer
    Engine add, included)."""
    if dtype == "fp8":
        if "fp8" not in perf.peak:
            raise CannotTimeError(f"cannot time float8 on {perf.id}: it has no FP8 tensor cores")
        return matmul_rate(perf, "bf16", f) * f.float8_speedup
    if dtype in perf.mamf:
        return perf.mamf[dtype] * f.gemm_sustained
    if dtype not in perf.peak:
        raise CannotTimeError(f"cannot time {dtype} matmuls on {perf.id}: its datasheet gives no {dtype} rate "
                              "(no bf16 tensor cores before Ampere: use fp16-mixed or amp-fp16)")
    desktop = f.desktop_gemm_factor if perf.arch in DESKTOP_ARCHS else 1.0
    return perf.peak[dtype] * f.gemm_peak_fraction * f.gemm_sustained * desktop


def _busy(m: float, n: float, k: float, batch: float, sms: int) -> float:
    """Share of the SMs a GEMM keeps busy (wave quantization, module docstring)."""
    tiles = math.ceil(m / TILE) * math.ceil(n / TILE) * batch
    if tiles < sms:
        tiles *= max(1, min(int(k // SPLIT_K_DEPTH), math.ceil(sms / tiles)))
    waves = math.ceil(tiles / sms)
    return float(tiles / (waves * sms))


def gemm_seconds(m: float, n: float, k: float, perf: GpuPerf, f: Fitted, *, dtype: str = "bf16",
                 batch: float = 1, in_bytes: float = 2, out_bytes: float = 2, rate: float | None = None) -> float:
    """One (batched) GEMM ``[m, k] x [k, n]`` (module docstring)."""
    if m <= 0 or n <= 0 or k <= 0 or batch <= 0:
        return 0.0
    r = rate if rate is not None else matmul_rate(perf, dtype, f)
    compute = 2 * m * n * k * batch / (r * _busy(m, n, k, batch, perf.sm_count))
    bw = perf.hbm * f.memory_efficiency
    inputs = (m * k + k * n) * batch * in_bytes / bw
    output = m * n * batch * out_bytes / bw
    return f.gemm_fixed_s + max(compute, inputs) + f.gemm_epilogue * output


def attention_rate(perf: GpuPerf, f: Fitted, fused3: bool) -> float:
    """FLOP/s of a fused attention forward at long sequences (module docstring)."""
    peak = perf.peak.get("bf16", perf.peak.get("fp16", 0.0))
    if not peak:
        raise CannotTimeError(f"cannot time fused attention on {perf.id}: no 16-bit tensor-core rate")
    hopper_class = perf.arch in ("hopper", "blackwell")
    if hopper_class and fused3:
        return peak * f.flash3_fwd
    return peak * (f.flash2_hopper_fwd if hopper_class else f.flash2_fwd)


def attention_seconds(flops: float, seq: float, perf: GpuPerf, f: Fitted, *, fused3: bool, backward: bool) -> float:
    """A fused attention call of ``flops`` over sequences of ``seq`` keys (module docstring)."""
    if flops <= 0:
        return 0.0
    rate = attention_rate(perf, f, fused3) * (f.attention_bwd_ratio if backward else 1.0)
    ramp = seq / (seq + f.attention_ramp_tokens)
    return f.kernel_floor_s + flops / (rate * ramp)


def pointwise_seconds(nbytes: float, kernels: float, perf: GpuPerf, f: Fitted,
                      efficiency: float | None = None) -> float:
    """Elementwise kernels moving ``nbytes`` in ``kernels`` launches (module docstring)."""
    if nbytes <= 0 and kernels <= 0:
        return 0.0
    bw = perf.hbm * (f.memory_efficiency if efficiency is None else efficiency)
    return max(nbytes / bw, kernels * f.kernel_floor_s)
