"""Fake installs of the kernel packages users run hybrid models with, so that a CPU trace holds what a GPU holds.

transformers 5.24 picks a layer's kernel when its modeling file is imported (``integrations/hub_kernels.py``,
``use_kernel_func_from_hub_with_fallback``): the function of the installed package (``fla``, ``causal_conv1d``,
``mamba_ssm``), else its own PyTorch reference, which keeps far more for backward (every chunk's decay matrix and
intra-chunk attention in fp32). On this CPU-only machine none of the packages can be installed (they need CUDA or
Triton), so ``install()`` puts modules of those names in ``sys.modules`` whose functions are transcriptions of the
packages' Python code at named versions:

* every tensor the real Python code allocates is allocated here with the same shape, dtype and strides, and lives
  as long (same local variables, same returns);
* every GPU kernel launch (a Triton kernel, a CUDA extension call) is one call of a registered custom op,
  ``vramlab::kernel(name, inputs, outputs)``, which writes its outputs in place (``torch.library.custom_op`` with
  ``mutates_args``; its ``register_fake`` does nothing, as a kernel allocates nothing);
* each autograd Function saves exactly what the real one saves (``ctx.save_for_backward``), and its backward
  allocates what the real backward allocates.

Versions transcribed: flash-linear-attention / fla-core 0.6.0 (``fla/ops/gated_delta_rule/chunk.py``
``ChunkGatedDeltaRuleFunction``; ``fla/ops/kda/chunk.py`` ``ChunkKDAFunction``), causal-conv1d 1.6.1
(github.com/Dao-AILab/causal-conv1d at 0d2252d, ``causal_conv1d/causal_conv1d_interface.py`` ``CausalConv1dFn``
and ``cpp_functions.py``), mamba-ssm 2.3.2.post1 (github.com/state-spaces/mamba at e9594ce,
``mamba_ssm/ops/triton/ssd_combined.py`` ``MambaSplitConv1dScanCombinedFn`` and ``MambaChunkScanCombinedFn``,
``mamba_ssm/ops/selective_scan_interface.py`` ``MambaInnerFn`` and ``SelectiveScanFn``). Where a kernel's block
size depends on the GPU, a Hopper's (H100 / H200) is used.
"""

from __future__ import annotations

import importlib.machinery
import math
import sys
import types
from typing import Any

import torch

#: the modules ``install`` fakes and the functions each exposes (transformers reads them from the package root)
PACKAGES = ("fla", "causal_conv1d", "mamba_ssm")


@torch.library.custom_op("vramlab::kernel", mutates_args=["outputs"])
def kernel(name: str, inputs: list[torch.Tensor], outputs: list[torch.Tensor]) -> None:
    """One GPU kernel launch: reads ``inputs``, writes ``outputs`` in place (on real CPU tensors: zeros)."""
    for t in outputs:
        t.zero_()


@kernel.register_fake
def _kernel_fake(name: str, inputs: list[torch.Tensor], outputs: list[torch.Tensor]) -> None:
    return None


#: the fake package functions called since the last clear, as "package version: function" (``trace.run_case``
#: records them with the case)
LAUNCHED: set[str] = set()
FLA = "flash-linear-attention 0.6.0"
CONV = "causal-conv1d 1.6.1"
MAMBA = "mamba-ssm 2.3.2.post1"


def _called(package: str, function: str) -> None:
    LAUNCHED.add(f"{package}: {function}")


def _launch(name: str, inputs: list[Any], outputs: list[Any]) -> None:
    kernel(name, [t for t in inputs if isinstance(t, torch.Tensor)], [t for t in outputs if t is not None])


def _contiguous(*tensors: Any) -> list[Any]:
    """fla's ``input_guard``: every tensor argument made contiguous (fla/utils/decorators.py)."""
    return [t.contiguous() if isinstance(t, torch.Tensor) else t for t in tensors]


# -- causal-conv1d 1.6.1 ------------------------------------------------------------------------------------
def _conv1d_fwd(x: torch.Tensor, weight: torch.Tensor, bias: torch.Tensor | None, silu: bool) -> torch.Tensor:
    """``cpp_functions.causal_conv1d_fwd_function``: ``out = torch.empty_like(x)``, then the CUDA kernel."""
    out = torch.empty_like(x)
    _launch("causal_conv1d_fwd", [x, weight, bias], [out])
    return out


def _conv1d_bwd(x: torch.Tensor, weight: torch.Tensor, bias: torch.Tensor | None,
                dout: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor | None]:
    """``cpp_functions.causal_conv1d_bwd_function``: dx like x, fp32 dweight / dbias cast back to their dtype."""
    dx = torch.empty_like(x)
    dweight = torch.zeros_like(weight, dtype=torch.float32)
    dbias = torch.zeros_like(bias, dtype=torch.float32) if bias is not None else None
    _launch("causal_conv1d_bwd", [x, weight, bias, dout], [dx, dweight, dbias])
    return dx, dweight.type_as(weight), dbias.type_as(bias) if dbias is not None and bias is not None else None


class CausalConv1dFn(torch.autograd.Function):
    """``causal_conv1d_interface.CausalConv1dFn``: saves its input x, the weight and the bias."""

    @staticmethod
    def forward(ctx: Any, x: torch.Tensor, weight: torch.Tensor, bias: torch.Tensor | None,
                activation: str | None) -> torch.Tensor:
        if x.stride(2) != 1 and x.stride(1) != 1:
            x = x.contiguous()
        bias = bias.contiguous() if bias is not None else None
        out = _conv1d_fwd(x, weight, bias, activation in ("silu", "swish"))
        ctx.save_for_backward(x, weight, bias)
        return out

    @staticmethod
    def backward(ctx: Any, dout: torch.Tensor) -> tuple[Any, ...]:
        x, weight, bias = ctx.saved_tensors
        if dout.stride(2) != 1 and dout.stride(1) != 1:
            dout = dout.contiguous()
        dx, dweight, dbias = _conv1d_bwd(x, weight, bias, dout)
        return dx, dweight, dbias if bias is not None else None, None


def causal_conv1d_fn(x: torch.Tensor, weight: torch.Tensor, bias: torch.Tensor | None = None,  # noqa: PLR0917
                     seq_idx: Any = None, initial_states: Any = None, return_final_states: bool = False,
                     final_states_out: Any = None, activation: str | None = None) -> torch.Tensor:
    """``causal_conv1d_interface.causal_conv1d_fn`` (x: batch, dim, seqlen)."""
    if seq_idx is not None or initial_states is not None or return_final_states:
        raise NotImplementedError("the fake causal_conv1d_fn models training without packing or states")
    _called(CONV, "causal_conv1d_fn")
    return CausalConv1dFn.apply(x, weight, bias, activation)


# -- flash-linear-attention 0.6.0: gated DeltaNet -------------------------------------------------------------
#: Hopper's tiling in ``chunk_bwd_dqkwg`` (``check_shared_mem('hopper')``: CONST_TILING 128)
_TILING = 128


def _l2norm_fwd(x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """``fla/modules/norm/l2norm.py`` ``l2norm_fwd``: y like x, one fp32 rstd per row."""
    y = torch.empty_like(x)
    rstd = torch.empty(x.shape[:-1], dtype=torch.float32, device=x.device)
    _launch("l2norm_fwd", [x], [y, rstd])
    return y, rstd


def _l2norm_bwd(y: torch.Tensor, rstd: torch.Tensor, dy: torch.Tensor) -> torch.Tensor:
    dx = torch.empty_like(y)
    _launch("l2norm_bwd", [y, rstd, dy], [dx])
    return dx


def _cumsum(g: torch.Tensor) -> torch.Tensor:
    """``fla/ops/utils/cumsum.py`` ``chunk_local_cumsum``: a new fp32 tensor (``output_dtype=torch.float``)."""
    o = torch.empty_like(g, dtype=torch.float32)
    _launch("chunk_local_cumsum", [g], [o])
    return o


def _chunks(t: int, bt: int) -> int:
    return math.ceil(t / bt)


def _w_u(k: torch.Tensor, v: torch.Tensor, hv: int) -> tuple[torch.Tensor, torch.Tensor]:
    """``wy_fast.recompute_w_u_fwd``: w (B, T, HV, K) like k, u like v."""
    b, t, _, kd = k.shape
    w, u = k.new_empty(b, t, hv, kd), torch.empty_like(v)
    _launch("recompute_w_u_fwd", [k, v], [w, u])
    return w, u


def _fwd_h(k: torch.Tensor, w: torch.Tensor, u: torch.Tensor, hv: int, bt: int) -> tuple[torch.Tensor, torch.Tensor]:
    """``common/chunk_delta_h.py`` ``chunk_gated_delta_rule_fwd_h``: every chunk's state h (B, NT, HV, K, V) in k's
    dtype and v_new like u (no final state: training without a cache)."""
    b, t, _, kd = k.shape
    h = k.new_empty(b, _chunks(t, bt), hv, kd, u.shape[-1])
    v_new = torch.empty_like(u)
    _launch("chunk_gated_delta_rule_fwd_h", [k, w, u], [h, v_new])
    return h, v_new


class ChunkGatedDeltaRuleFunction(torch.autograd.Function):
    """fla 0.6.0 ``ChunkGatedDeltaRuleFunction`` (``use_qk_l2norm_in_kernel``, no gate or sigmoid in the kernel,
    no initial state): saves q and k after their L2 norm with one fp32 rstd per head and token, v, the chunk-local
    cumulative decay g (fp32), beta, and the solved ``(I + A)^-1`` per chunk, A (B, T, HV, 64) in k's dtype."""

    @staticmethod
    def forward(ctx: Any, q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, g: torch.Tensor,  # noqa: PLR0917
                beta: torch.Tensor, scale: float, use_qk_l2norm_in_kernel: bool, chunk_size: int) -> torch.Tensor:
        q, k, v, g, beta = _contiguous(q, k, v, g, beta)
        q_rstd = k_rstd = None
        if use_qk_l2norm_in_kernel:
            q, q_rstd = _l2norm_fwd(q)
            k, k_rstd = _l2norm_fwd(k)
        g, o, a = _gdr_fwd(q, k, v, g, beta, chunk_size)
        ctx.save_for_backward(q, q_rstd, k, k_rstd, v, g, beta, beta, a)
        ctx.scale, ctx.chunk_size, ctx.l2norm = scale, chunk_size, use_qk_l2norm_in_kernel
        return o.to(q.dtype)

    @staticmethod
    def backward(ctx: Any, do: torch.Tensor) -> tuple[Any, ...]:
        (do,) = _contiguous(do)
        q, q_rstd, k, k_rstd, v, g, _, beta, a = ctx.saved_tensors
        dq, dk, dv, db, dg = _gdr_bwd(q, k, v, g, beta, a, do, ctx.chunk_size)
        if ctx.l2norm:
            dq = _l2norm_bwd(q, q_rstd, dq)
            dk = _l2norm_bwd(k, k_rstd, dk)
        return dq.to(q), dk.to(k), dv.to(v), dg.to(g), db.to(beta), None, None, None


def _gdr_fwd(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, g: torch.Tensor, beta: torch.Tensor,  # noqa: PLR0917
             bt: int) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """``chunk_gated_delta_rule_fwd``: (g cumsum, o, A); w, u, h and v_new die with the call."""
    hv = v.shape[2]
    g = _cumsum(g)
    b, t = k.shape[:2]
    a = torch.zeros(b, t, hv, bt, device=k.device, dtype=k.dtype)  # chunk_fwd.py: the fused kkt + solve_tril
    _launch("chunk_gated_delta_rule_fwd_kkt_solve", [k, g, beta], [a])
    w, u = _w_u(k, v, hv)
    h, v_new = _fwd_h(k, w, u, hv, bt)
    o = torch.empty_like(v)
    _launch("chunk_fwd_o", [q, k, v_new, h, g], [o])
    return g, o, a


def _gdr_bwd(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, g: torch.Tensor, beta: torch.Tensor,  # noqa: PLR0917
             a: torch.Tensor, do: torch.Tensor, bt: int) -> tuple[torch.Tensor, ...]:
    """``chunk_gated_delta_rule_bwd``: w, u, h and v_new recomputed, the state gradients dh (B, NT, HV, K, V) in
    q's dtype, then dq, dk, dw, dg and the WY representation's gradients; every local lives to the return."""
    b, t, heads, kd = k.shape
    hv = v.shape[2]
    w, u = _w_u(k, v, hv)
    h, v_new = _fwd_h(k, w, u, hv, bt)
    dv = torch.empty_like(do)
    _launch("chunk_bwd_dv_local", [q, k, g, do], [dv])
    dh = q.new_empty(b, _chunks(t, bt), hv, kd, v.shape[-1])
    dv2 = torch.empty_like(dv)
    _launch("chunk_gated_delta_rule_bwd_dhu", [q, k, w, g, do, dv], [dh, dv2])
    dv = dv2
    nk = _chunks(kd, min(max(2 ** math.ceil(math.log2(kd)), 16), _TILING))
    dq, dk = q.new_empty(b, t, hv, kd), k.new_empty(b, t, hv, kd)
    dg = torch.empty(nk, *g.shape, dtype=torch.float32, device=g.device)
    dw = torch.empty_like(w)
    _launch("chunk_bwd_dqkwg", [q, k, v_new, w, g, h, dv, do, dh], [dq, dk, dg, dw])
    if heads != hv:
        dq = dq.view(b, t, heads, hv // heads, kd).sum(3)
        dk = dk.view(b, t, heads, hv // heads, kd).sum(3)
    dg = dg.sum(0)
    dk2, dv3 = k.new_empty(b, t, hv, kd), torch.empty_like(v)
    dg2, db = torch.empty_like(g), torch.empty_like(beta)
    _launch("prepare_wy_repr_bwd", [k, v, beta, g, a, dw, dv], [dk2, dv3, db, dg2])
    if heads != hv:
        dk2 = dk2.view(b, t, heads, hv // heads, kd).sum(3)
    dk.add_(dk2)
    dg.add_(dg2)
    dg = _cumsum(dg)
    return dq, dk, dv3, db, dg


def chunk_gated_delta_rule(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, g: torch.Tensor,  # noqa: PLR0917
                           beta: torch.Tensor, scale: float | None = None, initial_state: Any = None,
                           output_final_state: bool = False, use_qk_l2norm_in_kernel: bool = False,
                           cu_seqlens: Any = None, **kwargs: Any) -> tuple[torch.Tensor, None]:
    """``fla.ops.gated_delta_rule.chunk_gated_delta_rule`` (q, k: B, T, H, K; v: B, T, HV, V; g, beta: B, T, HV)."""
    if initial_state is not None or output_final_state or cu_seqlens is not None:
        raise NotImplementedError("the fake chunk_gated_delta_rule models training without a cache or packing")
    scale = k.shape[-1] ** -0.5 if scale is None else scale
    _called(FLA, "chunk_gated_delta_rule")
    return ChunkGatedDeltaRuleFunction.apply(q, k, v, g, beta, scale, use_qk_l2norm_in_kernel,
                                             kwargs.get("chunk_size", 64)), None


# -- mamba-ssm 2.3.2.post1: Mamba-2's fused split / conv1d / chunked scan / gated RMSNorm / out_proj ------------
#: H100 / H200 streaming multiprocessors (``nsplits`` in ssd_chunk_state.py ``_chunk_state_bwd_db``)
_SMS = 132


def _ensure_stride(t: torch.Tensor) -> torch.Tensor:
    """ssd_combined.py ``ensure_stride``: a copy unless stride(1) is a multiple of 8."""
    return t if t.stride(1) % 8 == 0 else t.contiguous()


def _chunk_cumsum(dt: torch.Tensor, chunk: int) -> tuple[torch.Tensor, torch.Tensor]:
    """ssd_chunk_state.py ``_chunk_cumsum_fwd``: dA_cumsum and dt_out, (b, h, nchunks, chunk) fp32 each."""
    b, s, h = dt.shape
    shape = (b, h, _chunks(s, chunk), chunk)
    dacs = torch.empty(shape, device=dt.device, dtype=torch.float32)
    dt_out = torch.empty(shape, device=dt.device, dtype=torch.float32)
    _launch("_chunk_cumsum_fwd", [dt], [dacs, dt_out])
    return dacs, dt_out


def _chunk_states(x: torch.Tensor, n: int, chunk: int) -> torch.Tensor:
    """``_chunk_state_fwd(states_in_fp32=True)`` then ``_state_passing_fwd`` (its out_dtype: fp32 in the
    backward's recompute, C's dtype in the forward): the states at each chunk, (b, nchunks, h, p, n)."""
    b, s, h, p = x.shape
    states = torch.empty((b, _chunks(s, chunk), h, p, n), device=x.device, dtype=torch.float32)
    _launch("_chunk_state_fwd", [x], [states])
    return states


def _ssd_fwd(x: torch.Tensor, dt: torch.Tensor, bm: torch.Tensor, cm: torch.Tensor,
             chunk: int) -> torch.Tensor:
    """``_mamba_chunk_scan_combined_fwd`` with z=None (the gated norm does the gating): B and C made contiguous,
    the chunk cumsums, the chunk states (fp32) and their passing (in C's dtype), C^T B per chunk (fp32), and the
    scan's output like x; all but the output die with the call."""
    bm = bm if bm.stride(-1) == 1 else bm.contiguous()
    cm = cm if cm.stride(-1) == 1 else cm.contiguous()
    if x.stride(-1) != 1 and x.stride(1) != 1:
        x = x.contiguous()
    b, s, h, p = x.shape
    g, n = bm.shape[2], bm.shape[3]
    dacs, dt_out = _chunk_cumsum(dt, chunk)
    states = _chunk_states(x, n, chunk)
    passed = torch.empty((b, states.shape[1], h, p * n), device=x.device, dtype=cm.dtype)
    final = torch.empty((b, h, p * n), device=x.device, dtype=torch.float32)
    _launch("_state_passing_fwd", [states, dacs], [passed, final])
    cb = torch.empty((b, states.shape[1], g, chunk, chunk), device=x.device, dtype=torch.float32)
    _launch("_bmm_chunk_fwd", [cm, bm], [cb])
    out = torch.empty(b, s, h, p, device=x.device, dtype=x.dtype)
    _launch("_chunk_scan_fwd", [cb, x, dt_out, dacs, cm, passed], [out])
    return out


def _ssd_bwd(dout: torch.Tensor, x: torch.Tensor, dt: torch.Tensor, bm: torch.Tensor,  # noqa: PLR0917
             cm: torch.Tensor, chunk: int) -> None:
    """``_mamba_chunk_scan_combined_bwd`` (z=None; dx, ddt, dB, dC written into the caller's buffers): the forward
    recomputed (cumsums, C^T B, states in fp32), the state gradients (fp32, then in x's dtype with the states
    converted), dB and dC per split in fp32, d(C^T B) in fp32, the decay gradients; each local lives to the
    return. Tensors of a layer's size (dA, dD's partial sums, the dt_bias workspace) are left out."""
    b, s, h, p = x.shape
    g, n = bm.shape[2], bm.shape[3]
    nc = _chunks(s, chunk)
    dt_in = dt.clone()
    dacs, dt_out = _chunk_cumsum(dt_in, chunk)
    cb = torch.empty((b, nc, g, chunk, chunk), device=x.device, dtype=torch.float32)
    _launch("_bmm_chunk_fwd", [cm, bm], [cb])
    states = _chunk_states(x, n, chunk)
    passed = torch.empty((b, nc, h, p * n), device=x.device, dtype=torch.float32)
    _launch("_state_passing_fwd", [states, dacs], [passed])
    del states
    dstates = torch.empty((b, nc, h, p, n), device=x.device, dtype=torch.float32)
    _launch("_chunk_scan_bwd_dstates", [cm, dacs, dout], [dstates])
    dstates2 = torch.empty((b, nc, h, p * n), device=x.device, dtype=x.dtype)
    converted = torch.empty((b, nc, h, p * n), device=x.device, dtype=x.dtype)
    dda_chunk = torch.empty((b, h, nc, _chunks(p * n, 64)), device=x.device, dtype=torch.float32)
    _launch("_state_passing_bwd", [passed, dacs, dstates], [dstates2, converted, dda_chunk])
    del passed, dstates
    ddt = torch.empty((b, h, nc, chunk), device=x.device, dtype=torch.float32)
    _launch("_chunk_scan_chunk_state_bwd_dx", [x, dt_out, dacs, bm, cb, dout, dstates2], [ddt])
    per_program = max(min(math.ceil(b * nc * h / _SMS), h // g), 1)
    splits = _chunks(h // g, per_program)
    db = torch.empty((b, s, splits, g, n), device=x.device, dtype=torch.float32)
    dda_next = torch.empty((b, h, nc, chunk), device=x.device, dtype=torch.float32)
    _launch("_chunk_state_bwd_db", [x, dt_out, dacs, dstates2, bm], [db, dda_next])
    dc = torch.empty((b, s, splits, g, n), device=x.device, dtype=torch.float32)
    dda_prev = torch.empty((b, h, nc, chunk), device=x.device, dtype=torch.float32)
    _launch("_chunk_scan_bwd_dC", [converted, dacs, dout, cm], [dc, dda_prev])
    dcb = torch.empty((b, nc, splits, g, chunk, chunk), device=x.device, dtype=torch.float32)
    _launch("_chunk_scan_bwd_dcb", [x, dt_out, dacs, dout], [dcb])
    _launch("_bmm_chunk_bwd", [cm, dcb, db, bm, dc], [])
    dda_prev = dda_prev.flip([-1]).cumsum(dim=-1).flip([-1])
    dda = torch.empty((b, h, nc, chunk), device=x.device, dtype=torch.float32)
    _launch("_chunk_scan_bwd_ddAcs_stable", [x, dt_out, dacs, dout, cb], [dda])
    dda += dda_next + dda_prev
    _launch("_chunk_cumsum_bwd", [dda, ddt, dt_in], [])


class MambaSplitConv1dScanCombinedFn(torch.autograd.Function):
    """mamba-ssm ``MambaSplitConv1dScanCombinedFn`` (with the gated RMSNorm and out_proj inside, as transformers
    calls it in training): saves zxbcdt (in_proj's output), the scan's output before the norm (b, s, h, p) in x's
    dtype, the norm's fp32 rstd per group and row, and the weights (out_proj's cast to the autocast dtype)."""

    @staticmethod
    def forward(ctx: Any, zxbcdt: torch.Tensor, conv_w: torch.Tensor, conv_b: torch.Tensor | None,  # noqa: PLR0917
                dt_bias: torch.Tensor, a: torch.Tensor, d: torch.Tensor, chunk: int, activation: str,
                norm_w: torch.Tensor | None, out_w: torch.Tensor, out_b: torch.Tensor | None, headdim: int,
                ngroups: int) -> torch.Tensor:
        nheads = d.shape[0]
        dim = nheads * headdim
        dstate = (conv_w.shape[0] - dim) // ngroups // 2
        z, xbc, dt = torch.split(zxbcdt, [dim, dim + 2 * ngroups * dstate, nheads], dim=-1)
        xbc_conv = _conv1d_fwd(_ensure_stride(xbc).transpose(1, 2), conv_w, conv_b, activation in ("silu", "swish"))
        x, bm, cm = torch.split(xbc_conv.transpose(1, 2), [dim, ngroups * dstate, ngroups * dstate], dim=-1)
        b, s = zxbcdt.shape[:2]
        out_x = _ssd_fwd(x.reshape(b, s, nheads, headdim), dt, bm.reshape(b, s, ngroups, dstate),
                         cm.reshape(b, s, ngroups, dstate), chunk)
        rstd = None
        if norm_w is None:  # Falcon-H1 without its norm: the scan gates with z (not modelled)
            raise NotImplementedError("the fake models the gated RMSNorm path")
        x_rms = out_x.reshape(b * s, dim)
        out = torch.empty_like(x_rms)
        rstd = torch.empty((ngroups * b * s,), dtype=torch.float32, device=x_rms.device)
        _launch("_layer_norm_fwd", [x_rms, norm_w.contiguous(), z], [out, rstd])
        out = out.reshape(b, s, dim)
        if torch.is_autocast_enabled("cpu"):  # the trace's stand-in for CUDA's autocast
            dtype = torch.get_autocast_dtype("cpu")
            out, out_w = out.to(dtype), out_w.to(dtype)
            out_b = out_b.to(dtype) if out_b is not None else None
        result = torch.nn.functional.linear(out, out_w, out_b)
        ctx.save_for_backward(zxbcdt, conv_w, conv_b, out_x, a, d, dt_bias, norm_w, rstd, out_w, out_b)
        ctx.chunk, ctx.headdim, ctx.ngroups, ctx.activation = chunk, headdim, ngroups, activation
        return result

    @staticmethod
    def backward(ctx: Any, dout: torch.Tensor) -> tuple[Any, ...]:
        zxbcdt, conv_w, conv_b, out, a, d, dt_bias, norm_w, rstd, out_w, out_b = ctx.saved_tensors
        nheads, headdim, ngroups = d.shape[0], ctx.headdim, ctx.ngroups
        dim = nheads * headdim
        dstate = (conv_w.shape[0] - dim) // ngroups // 2
        b, s = zxbcdt.shape[:2]
        out_recompute = torch.empty(b, s, dim, device=out.device, dtype=out.dtype)
        z, xbc, dt = torch.split(zxbcdt, [dim, dim + 2 * ngroups * dstate, nheads], dim=-1)
        xbc_conv = _conv1d_fwd(_ensure_stride(xbc).transpose(1, 2), conv_w, conv_b, True)
        x, bm, cm = torch.split(xbc_conv.transpose(1, 2), [dim, ngroups * dstate, ngroups * dstate], dim=-1)
        dzxbcdt = torch.empty_like(zxbcdt)
        dz, dxbc_given, _ddt = torch.split(dzxbcdt, [dim, dim + 2 * ngroups * dstate, nheads], dim=-1)
        dxbc = torch.empty_like(xbc)
        dout_og = dout
        dout = torch.nn.functional.linear(dout, out_w.t())
        x_rms = out.reshape(b * s, dim)
        dx_norm = torch.empty_like(x_rms)
        dw = torch.empty((_SMS, dim), dtype=torch.float32, device=out.device)  # one row per program
        _launch("_layer_norm_bwd", [dout, x_rms, norm_w, rstd, z], [dx_norm, dz, out_recompute, dw])
        _ssd_bwd(dx_norm.reshape(b, s, nheads, headdim), x.reshape(b, s, nheads, headdim), dt,
                 bm.reshape(b, s, ngroups, dstate), cm.reshape(b, s, ngroups, dstate), ctx.chunk)
        dout_w = torch.einsum("bso,bsd->od", dout_og, out_recompute)
        dout_b = dout_og.sum(dim=(0, 1)) if out_b is not None else None
        dx_conv, dconv_w, dconv_b = _conv1d_bwd(_ensure_stride(xbc).transpose(1, 2), conv_w, conv_b,
                                                _ensure_stride(dxbc).transpose(1, 2))
        dxbc_given.copy_(dx_conv.transpose(1, 2))
        return (dzxbcdt, dconv_w, dconv_b, torch.zeros_like(dt_bias), torch.zeros_like(a), torch.zeros_like(d),
                None, None, dw.sum(0).to(norm_w.dtype) if norm_w is not None else None, dout_w.to(out_w.dtype),
                dout_b, None, None)


def mamba_split_conv1d_scan_combined(zxbcdt: torch.Tensor, conv1d_weight: torch.Tensor,  # noqa: PLR0917
                                     conv1d_bias: torch.Tensor | None, dt_bias: torch.Tensor, A: torch.Tensor,  # noqa: N803
                                     D: torch.Tensor, chunk_size: int, initial_states: Any = None,  # noqa: N803
                                     seq_idx: Any = None, dt_limit: Any = (0.0, float("inf")),
                                     return_final_states: bool = False, activation: str = "silu",
                                     rmsnorm_weight: torch.Tensor | None = None, rmsnorm_eps: float = 1e-6,
                                     outproj_weight: torch.Tensor | None = None,
                                     outproj_bias: torch.Tensor | None = None, headdim: int | None = None,
                                     ngroups: int = 1, norm_before_gate: bool = True,
                                     state_dtype: Any = None) -> torch.Tensor:
    """``mamba_ssm.ops.triton.ssd_combined.mamba_split_conv1d_scan_combined`` (zxbcdt: batch, seqlen,
    2 dim + 2 ngroups dstate + nheads)."""
    if initial_states is not None or seq_idx is not None or return_final_states or outproj_weight is None:
        raise NotImplementedError("the fake models training with out_proj inside, without states or packing")
    if headdim is None or zxbcdt.shape[-1] != D.shape[0] * headdim + conv1d_weight.shape[0] + D.shape[0]:
        raise NotImplementedError("the fake models zxbcdt without the MLP part (d_nonssm = 0)")
    _called(MAMBA, "mamba_split_conv1d_scan_combined")
    _called(CONV, "causal_conv1d_fwd_function / causal_conv1d_bwd_function")
    return MambaSplitConv1dScanCombinedFn.apply(zxbcdt, conv1d_weight, conv1d_bias, dt_bias, A, D, chunk_size,
                                                activation, rmsnorm_weight, outproj_weight, outproj_bias,
                                                headdim, ngroups)


# -- mamba-ssm 2.3.2.post1: Mamba's selective scan (csrc/selective_scan/selective_scan.cpp) ----------------------
def _scan_fwd(u: torch.Tensor, delta: torch.Tensor, a: torch.Tensor, z: torch.Tensor | None,
              n: int) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor | None]:
    """``selective_scan_cuda.fwd``: out like delta, the scan's intermediates (b, d, chunks of 2048, 2 dstate) in A's
    dtype, and out_z like z."""
    b, d, seqlen = u.shape
    out = torch.empty_like(delta)
    x = torch.empty(b, d, _chunks(seqlen, 2048), 2 * n, device=u.device, dtype=a.dtype)
    out_z = torch.empty_like(z) if z is not None else None
    _launch("selective_scan_fwd", [u, delta, a, z], [out, x, out_z])
    return out, x, out_z


def _scan_bwd(u: torch.Tensor, delta: torch.Tensor, a: torch.Tensor, bm: torch.Tensor,  # noqa: PLR0917
              cm: torch.Tensor, z: torch.Tensor | None, dz: torch.Tensor | None, recompute: bool) -> tuple[Any, ...]:
    """``selective_scan_cuda.bwd``: du, ddelta, dz (unless given), the recomputed out_z, and dB, dC in fp32."""
    du, ddelta = torch.empty_like(u), torch.empty_like(delta)
    da = torch.zeros_like(a)
    db = torch.zeros_like(bm, dtype=torch.float32)
    dc = torch.zeros_like(cm, dtype=torch.float32)
    if z is not None and dz is None:
        dz = torch.empty_like(z)
    out_z = torch.empty_like(delta) if recompute else None
    _launch("selective_scan_bwd", [u, delta, a, bm, cm, z], [du, ddelta, da, db, dc, dz, out_z])
    return du, ddelta, da, db, dc, dz, out_z


class SelectiveScanFn(torch.autograd.Function):
    """mamba-ssm ``SelectiveScanFn`` with z: saves u, delta, B and C (made contiguous), z, the intermediates and the
    ungated output; returns out_z."""

    @staticmethod
    def forward(ctx: Any, u: torch.Tensor, delta: torch.Tensor, a: torch.Tensor, bm: torch.Tensor,  # noqa: PLR0917
                cm: torch.Tensor, d: torch.Tensor | None, z: torch.Tensor, delta_bias: torch.Tensor | None,
                ) -> torch.Tensor:
        u = u if u.stride(-1) == 1 else u.contiguous()
        delta = delta if delta.stride(-1) == 1 else delta.contiguous()
        d = d.contiguous() if d is not None else None
        bm = bm if bm.stride(-1) == 1 else bm.contiguous()
        cm = cm if cm.stride(-1) == 1 else cm.contiguous()
        z = z if z.stride(-1) == 1 else z.contiguous()
        out, x, out_z = _scan_fwd(u, delta, a, z, bm.shape[-2])
        ctx.save_for_backward(u, delta, a, bm, cm, d, z, delta_bias, x, out)
        return out_z

    @staticmethod
    def backward(ctx: Any, dout: torch.Tensor) -> tuple[Any, ...]:
        u, delta, a, bm, cm, d, z, delta_bias, _, _ = ctx.saved_tensors
        dout = dout if dout.stride(-1) == 1 else dout.contiguous()
        du, ddelta, da, db, dc, dz, _ = _scan_bwd(u, delta, a, bm, cm, z, None, False)
        dd = torch.zeros_like(d) if d is not None else None
        ddb = torch.zeros_like(delta_bias) if delta_bias is not None else None
        return du, ddelta, da, db.to(bm.dtype), dc.to(cm.dtype), dd, dz, ddb


def selective_scan_fn(u: torch.Tensor, delta: torch.Tensor, A: torch.Tensor, B: torch.Tensor,  # noqa: N803, PLR0917
                      C: torch.Tensor, D: torch.Tensor | None = None, z: torch.Tensor | None = None,  # noqa: N803
                      delta_bias: torch.Tensor | None = None, delta_softplus: bool = False,
                      return_last_state: bool = False) -> torch.Tensor:
    """``mamba_ssm.ops.selective_scan_interface.selective_scan_fn`` (u, delta, z: b, d, l; B, C: b, dstate, l)."""
    if z is None or return_last_state or B.dim() != 3:
        raise NotImplementedError("the fake models a gated scan with input-dependent B and C, without states")
    _called(MAMBA, "selective_scan_fn")
    return SelectiveScanFn.apply(u, delta, A, B, C, D, z, delta_bias)


class MambaInnerFn(torch.autograd.Function):
    """mamba-ssm ``MambaInnerFn`` (checkpoint_lvl 1: the convolution's output and delta recomputed in backward; no
    dt / B / C norms): saves xz made contiguous (b, 2d, l), x_dbl = x_proj(conv) ((b l), dt_rank + 2 dstate), B and
    C contiguous, the scan's intermediates and ungated output, and the weights (cast to the autocast dtype);
    x_proj, dt_proj and out_proj run inside on their weights."""

    @staticmethod
    def forward(ctx: Any, xz: torch.Tensor, conv_w: torch.Tensor, conv_b: torch.Tensor | None,  # noqa: PLR0917
                x_w: torch.Tensor, dt_w: torch.Tensor, out_w: torch.Tensor, out_b: torch.Tensor | None,
                a: torch.Tensor, d: torch.Tensor | None, delta_bias: torch.Tensor | None) -> torch.Tensor:
        big_l, rank, n = xz.shape[-1], dt_w.shape[1], a.shape[-1]
        if torch.is_autocast_enabled("cpu"):  # the trace's stand-in for CUDA's autocast
            dtype = torch.get_autocast_dtype("cpu")
            x_w, dt_w, out_w = x_w.to(dtype), dt_w.to(dtype), out_w.to(dtype)
            out_b = out_b.to(dtype) if out_b is not None else None
        if xz.stride(-1) != 1:
            xz = xz.contiguous()
        conv_w = conv_w.reshape(conv_w.shape[0], conv_w.shape[-1])
        x, z = xz.chunk(2, dim=1)
        conv_out = _conv1d_fwd(x, conv_w, conv_b, True)
        x_dbl = torch.nn.functional.linear(conv_out.transpose(1, 2).reshape(-1, conv_out.shape[1]), x_w)
        delta = (dt_w @ x_dbl[:, :rank].t()).reshape(dt_w.shape[0], xz.shape[0], big_l).transpose(0, 1)
        bm = x_dbl[:, rank:rank + n].reshape(xz.shape[0], big_l, 1, n).permute(0, 2, 3, 1).contiguous()
        cm = x_dbl[:, -n:].reshape(xz.shape[0], big_l, 1, n).permute(0, 2, 3, 1).contiguous()
        d = d.contiguous() if d is not None else None
        out, scan, out_z = _scan_fwd(conv_out, delta, a, z, n)
        ctx.save_for_backward(xz, conv_w, conv_b, x_dbl, x_w, dt_w, out_w, a, bm, cm, d, delta_bias, scan, out)
        ctx.rank, ctx.has_out_bias = rank, out_b is not None
        return torch.nn.functional.linear(out_z.transpose(1, 2), out_w, out_b)

    @staticmethod
    def backward(ctx: Any, dout: torch.Tensor) -> tuple[Any, ...]:
        xz, conv_w, conv_b, x_dbl, x_w, dt_w, out_w, a, bm, cm, d, delta_bias, _, _ = ctx.saved_tensors
        big_l, rank = xz.shape[-1], ctx.rank
        x, z = xz.chunk(2, dim=1)
        dout = dout if dout.stride(-1) == 1 else dout.contiguous()
        conv_out = _conv1d_fwd(x, conv_w, conv_b, True)
        delta = (dt_w @ x_dbl[:, :rank].t()).reshape(dt_w.shape[0], xz.shape[0], big_l).transpose(0, 1)
        dxz = torch.empty_like(xz)
        dx, dz = dxz.chunk(2, dim=1)
        dout2 = dout.reshape(-1, dout.shape[-1]).t()
        dout_y = (out_w.t() @ dout2).reshape(out_w.shape[1], xz.shape[0], big_l).transpose(0, 1)
        _launch("selective_scan_bwd_reads", [dout_y], [])
        dconv_out, ddelta, da, db, dc, _, out_z = _scan_bwd(conv_out, delta, a, bm, cm, z, dz, True)
        dout_w = torch.einsum("eB,dB->ed", dout2, out_z.transpose(0, 1).reshape(out_z.shape[1], -1))
        dout_b = dout2.sum(dim=1) if ctx.has_out_bias else None
        dx_dbl = torch.empty_like(x_dbl)
        dx_dbl[:, rank:rank + bm.shape[2]] = db.permute(0, 3, 1, 2).reshape(-1, bm.shape[2])
        dx_dbl[:, -cm.shape[2]:] = dc.permute(0, 3, 1, 2).reshape(-1, cm.shape[2])
        ddelta2 = ddelta.transpose(0, 1).reshape(ddelta.shape[1], -1)
        ddt_w = torch.einsum("dB,Br->dr", ddelta2, x_dbl[:, :rank])
        dx_dbl[:, :rank] = torch.einsum("dB,dr->Br", ddelta2, dt_w)
        dconv2 = dconv_out.transpose(0, 1).reshape(dconv_out.shape[1], -1)
        dx_w = torch.einsum("Br,Bd->rd", dx_dbl, conv_out.transpose(1, 2).reshape(-1, conv_out.shape[1]))
        dconv2 = torch.addmm(dconv2, x_w.t(), dx_dbl.t())
        dxin, dconv_w, dconv_b = _conv1d_bwd(x, conv_w, conv_b, dconv2.reshape(x.shape[1], x.shape[0], big_l)
                                             .transpose(0, 1))
        dx.copy_(dxin)
        dd = torch.zeros_like(d) if d is not None else None
        ddb = torch.zeros_like(delta_bias) if delta_bias is not None else None
        return (dxz, dconv_w.reshape(conv_w.shape[0], 1, -1), dconv_b, dx_w, ddt_w, dout_w, dout_b, da, dd, ddb)


def mamba_inner_fn(xz: torch.Tensor, conv1d_weight: torch.Tensor, conv1d_bias: torch.Tensor | None,  # noqa: PLR0917
                   x_proj_weight: torch.Tensor, delta_proj_weight: torch.Tensor, out_proj_weight: torch.Tensor,
                   out_proj_bias: torch.Tensor | None, A: torch.Tensor, B: Any = None, C: Any = None,  # noqa: N803
                   D: torch.Tensor | None = None, delta_bias: torch.Tensor | None = None,  # noqa: N803
                   B_proj_bias: Any = None, C_proj_bias: Any = None, delta_softplus: bool = True,  # noqa: N803
                   checkpoint_lvl: int = 1, b_rms_weight: Any = None, c_rms_weight: Any = None,
                   dt_rms_weight: Any = None, b_c_dt_rms_eps: float = 1e-6) -> torch.Tensor:
    """``mamba_ssm.ops.selective_scan_interface.mamba_inner_fn`` (xz: b, 2d, l)."""
    if B is not None or C is not None or checkpoint_lvl != 1 or b_rms_weight is not None:
        raise NotImplementedError("the fake models input-dependent B and C, checkpoint_lvl 1, no B / C / dt norms")
    _called(MAMBA, "mamba_inner_fn")
    _called(CONV, "causal_conv1d_fwd_function / causal_conv1d_bwd_function")
    return MambaInnerFn.apply(xz, conv1d_weight, conv1d_bias, x_proj_weight, delta_proj_weight, out_proj_weight,
                              out_proj_bias, A, D, delta_bias)


# -- flash-linear-attention 0.6.0: Kimi Delta Attention (fla/ops/kda/chunk.py, chunk_fwd.py, chunk_bwd.py) -------
class ChunkKDAFunction(torch.autograd.Function):
    """fla 0.6.0 ``ChunkKDAFunction`` (the L2 norm in the kernel, the gate computed outside: use_gate_in_kernel
    False, disable_recompute False): saves q and k after their L2 norm with their rstd, v, the chunk-local
    cumulative decay per channel (fp32), the decay as given, beta, and the chunks' Aqk and Akk (B, T, H, 64) in
    k's dtype; w, u, qg, kg, v_new and the chunk states are dropped and recomputed in backward."""

    @staticmethod
    def forward(ctx: Any, q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, g: torch.Tensor,  # noqa: PLR0917
                beta: torch.Tensor, l2norm: bool, bt: int) -> torch.Tensor:
        q, k, v, g, beta = _contiguous(q, k, v, g, beta)
        q_rstd = k_rstd = None
        if l2norm:
            q, q_rstd = _l2norm_fwd(q)
            k, k_rstd = _l2norm_fwd(k)
        g_cumsum = _cumsum(g)
        b, t, heads, _ = k.shape
        aqk = torch.empty(b, t, heads, bt, device=k.device, dtype=k.dtype)
        akk = torch.zeros(b, t, heads, bt, device=k.device, dtype=k.dtype)
        akkd = torch.empty(b, t, heads, 16, device=k.device, dtype=torch.float32)
        w, u, qg, kg = k.new_empty(k.shape), torch.empty_like(v), torch.empty_like(q), torch.empty_like(k)
        _launch("chunk_kda_fwd_intra", [q, k, g_cumsum, beta], [aqk, akk, akkd, w, u, qg, kg])
        del akkd
        h, v_new = _fwd_h(kg, w, u, heads, bt)
        o = torch.empty_like(v)
        _launch("chunk_gla_fwd_o_gk", [q, v_new, g_cumsum, aqk, h], [o])
        del w, u, qg, kg, h, v_new
        ctx.save_for_backward(q, q_rstd, k, k_rstd, v, g_cumsum, g, beta, aqk, akk)
        ctx.l2norm, ctx.bt = l2norm, bt
        return o.type_as(q)

    @staticmethod
    def backward(ctx: Any, do: torch.Tensor) -> tuple[Any, ...]:
        (do,) = _contiguous(do)
        q, q_rstd, k, k_rstd, v, g_cumsum, g, beta, aqk, akk = ctx.saved_tensors
        b, t, heads, kd = k.shape
        bt = ctx.bt
        w, u, qg, kg = k.new_empty(k.shape), torch.empty_like(v), torch.empty_like(q), torch.empty_like(k)
        _launch("recompute_w_u_fwd", [k, v, beta, akk, g_cumsum], [w, u, qg, kg])
        h, v_new = _fwd_h(kg, w, u, heads, bt)
        daqk = v.new_empty(b, t, heads, bt, dtype=torch.float)
        dv = torch.empty_like(do)
        _launch("chunk_kda_bwd_dAv", [q, k, v_new, do, aqk], [daqk, dv])
        dh = q.new_empty(b, _chunks(t, bt), heads, kd, v.shape[-1])
        dv2 = torch.empty_like(dv)
        _launch("chunk_gated_delta_rule_bwd_dhu", [qg, kg, w, g_cumsum, do, dv], [dh, dv2])
        dq = g_cumsum.new_empty(b, t, heads, kd, dtype=torch.float)
        dk = g_cumsum.new_empty(b, t, heads, kd, dtype=torch.float)
        dv3 = torch.empty_like(v)
        dg = torch.empty_like(g_cumsum, dtype=torch.float)
        db = torch.empty_like(beta, dtype=torch.float)
        dakk = torch.empty_like(akk, dtype=torch.float)
        _launch("chunk_kda_bwd_wy_dqkg_fused", [q, k, v, v_new, g_cumsum, beta, akk, h, do, dh, dv2],
                [dq, dk, dv3, dg, db, dakk])
        nk = _chunks(kd, 64)
        dq2, dk2 = torch.empty_like(dq), torch.empty_like(dk)
        db2 = beta.new_empty(nk, *beta.shape, dtype=torch.float)
        dg2 = torch.empty_like(dg, dtype=torch.float)
        _launch("chunk_kda_bwd_intra", [q, k, g_cumsum, beta, daqk, dakk, dq, dk, db, dg], [dq2, dk2, db2, dg2])
        dq, dk, db, dg = dq2, dk2, db2.sum(0), dg2
        dg = _cumsum(dg)
        if ctx.l2norm:
            dq = _l2norm_bwd(q, q_rstd, dq)
            dk = _l2norm_bwd(k, k_rstd, dk)
        return dq.to(q), dk.to(k), dv3.to(v), dg.to(g), db.to(beta), None, None


def chunk_kda(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, g: torch.Tensor,  # noqa: PLR0917
              beta: torch.Tensor, scale: float | None = None, initial_state: Any = None,
              output_final_state: bool = False, use_qk_l2norm_in_kernel: bool = False,
              use_gate_in_kernel: bool = False, cu_seqlens: Any = None, **kwargs: Any) -> tuple[torch.Tensor, None]:
    """``fla.ops.kda.chunk_kda`` (q, k, v, g: B, T, H, K; beta: B, T, H)."""
    if initial_state is not None or output_final_state or cu_seqlens is not None or use_gate_in_kernel:
        raise NotImplementedError("the fake chunk_kda models training with the gate computed outside, no cache")
    _called(FLA, "chunk_kda")
    return ChunkKDAFunction.apply(q, k, v, g, beta, use_qk_l2norm_in_kernel, kwargs.get("chunk_size", 64)), None


# -- installing -----------------------------------------------------------------------------------------------
def _module(name: str, **functions: Any) -> types.ModuleType:
    mod = types.ModuleType(name)
    mod.__spec__ = importlib.machinery.ModuleSpec(name, None)
    mod.__dict__.update(functions)
    return mod


def install() -> None:
    """Put the fake packages in ``sys.modules`` (before transformers imports a hybrid model's modeling file,
    which binds the kernels then). Idempotent."""
    fakes = {
        "fla": _module("fla", chunk_gated_delta_rule=chunk_gated_delta_rule, chunk_kda=chunk_kda),
        "causal_conv1d": _module("causal_conv1d", causal_conv1d_fn=causal_conv1d_fn),
        "mamba_ssm": _module("mamba_ssm", mamba_split_conv1d_scan_combined=mamba_split_conv1d_scan_combined,
                             selective_scan_fn=selective_scan_fn, mamba_inner_fn=mamba_inner_fn),
    }
    for name, mod in fakes.items():
        sys.modules.setdefault(name, mod)


def installed() -> bool:
    """Whether the fakes are the modules of those names."""
    return all(getattr(sys.modules.get(n), "__spec__", None) is not None and sys.modules[n].__spec__.origin is None
               for n in ("fla", "causal_conv1d"))
