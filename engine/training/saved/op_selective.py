"""Operator-level selective activation checkpointing with torchtitan's policy: what one layer keeps, per token
(``engine.training.saved``; ``--checkpointing op-selective``).

torchtitan 0.3.0 ``SelectiveAC`` (torchtitan/distributed/activation_checkpoint.py ``_get_default_save_ops`` and
``SelectiveAC._wrap_block``) wraps each block in a non-reentrant checkpoint whose policy
(``torch.utils.checkpoint.create_selective_checkpoint_contexts``) saves the outputs of every op in its save list
and recomputes everything else in the backward. The list is torch's ``get_default_op_list().compute_intensive_ops``
(torch/_functorch/partitioners.py@2.13: ``mm``, ``addmm``, ``bmm``, the flash / memory-efficient / cuDNN SDPA
kernels, ``_scaled_mm``, ...) plus ``aten.linear``, ``aten.max`` (float8's amax), ``topk``, FlexAttention, the
compiled-region HOP, ``reduce_scatter_tensor`` and ``all_to_all_single``; **every second** ``mm`` / ``linear``
of a block's forward is recomputed instead (a counter reset per checkpoint call: the 1st, 3rd, 5th ... are kept).
``addmm`` (a linear with a bias on a 2-D or flattened 3-D input) is in the list but not counted, so it is always
kept.

So a dense layer keeps, besides its input (the checkpoint's argument):

* the outputs of its projections in forward order, every second ``mm`` dropped: torchtitan 0.3.0's Llama runs
  ``wqkv`` (1: kept), ``wo`` (2), ``w1`` (3: kept), ``w3`` (4), ``w2`` (5: kept) -- 65,664 bytes a token a block
  for Llama 3 8B with the input and attention, traced to the byte (calibration/stacks/NOTES.md section 4 rule 2);
  with q, k and v unfused (transformers' layers, torchtitan before its fusion) q, v, gate and down are kept;
* the attention kernel's outputs: the output in the compute dtype and the fp32 log-sum-exp per head and token.

In its backward the layer runs again: what it saves then is what it saves without checkpointing, the kept
tensors among it; the projections' kept outputs that nothing saves are freed as the recomputed forward passes
them (``engine.training.saved.layer``: ``recomputed``).
"""

from __future__ import annotations

from engine.params import Linear, attention_linears, mlp_linears
from engine.specs import AttentionSpec, LayerSpec, MlpSpec
from engine.training.precision import FP32
from engine.training.saved.inputs import Ctx
from engine.training.stacks import StackError


def dense(layer: LayerSpec) -> tuple[AttentionSpec, MlpSpec]:
    """The attention and the MLP of a layer these rules cost (other layers are refused before:
    ``engine.training.stacks.check``)."""
    if layer.attention is None or layer.mlp is None:
        raise StackError("op-selective checkpointing and --compile are costed for attention + MLP layers")
    return layer.attention, layer.mlp


def _forward_matmuls(ctx: Ctx, layer: LayerSpec) -> list[Linear]:
    """The layer's projections in the order its forward runs them: q, k, v (one ``wqkv`` where the stack fuses
    them), o, then the MLP's (gate, up, down: ``w2(silu(w1(x)) * w3(x))``)."""
    h = ctx.m.hidden_size
    a, p = dense(layer)
    attn = attention_linears(a, h)
    if ctx.impl.fused_qkv and not a.fused_qkv:
        q_bias = a.qkv_bias
        attn = [Linear("qkv", h, (a.num_heads + 2 * a.num_kv_heads) * a.head_dim, q_bias),
                *[x for x in attn if x.role == "o"]]
    return attn + mlp_linears(p, h)


def kept_outputs(ctx: Ctx, layer: LayerSpec) -> list[tuple[str, float]]:
    """(role, bytes per token) of each projection whose output the policy keeps, in forward order (module
    docstring)."""
    out, counted = [], 0
    for x in _forward_matmuls(ctx, layer):
        if x.bias:  # addmm: in the list, not counted
            out.append((x.role, float(ctx.c * x.n_out)))
            continue
        counted += 1
        if counted % 2:
            out.append((x.role, float(ctx.c * x.n_out)))
    return out


def kept(ctx: Ctx, layer: LayerSpec, unread: frozenset[str] = frozenset()) -> tuple[float, tuple[float, ...]]:
    """(bytes per token one layer keeps, the parts they add up to) under torchtitan's policy (module docstring);
    ``unread``: projections whose kept output no backward reads, which a compiled block does not keep
    (``engine.training.saved.compiled``)."""
    a, _ = dense(layer)
    parts: list[float] = [float(ctx.r * ctx.m.hidden_size)]  # the checkpoint's input
    parts += [b for role, b in kept_outputs(ctx, layer) if role not in unread]
    parts.append(ctx.c * a.num_heads * a.head_dim + FP32 * a.num_heads)  # the attention kernel's output and its LSE
    return sum(parts), tuple(parts)
