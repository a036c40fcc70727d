"""What a torch.compile'd decoder layer saves for backward, per token (``--compile``; ``engine.training.saved``).

Inductor partitions each compiled graph's joint forward and backward with torch 2.13's
``torch._functorch.partitioners.min_cut_rematerialization_partition`` (after its decompositions): it keeps what
is expensive to recompute or cheaper to keep than its inputs, and recomputes the rest in the backward; its kernels
then fuse what is recomputed. torchtitan 0.3.0 compiles each block after its activation checkpointing
(torchtitan/distributed/compile.py ``apply_compile``, ``compile.components`` default ``["model", "loss"]``).

Traced (calibration/stacks/NOTES.md section 7: the ``aot_eager_decomp_partition`` backend, inductor's
decompositions and partitioner, executed eagerly; torchtitan's Llama 3 8B block with SDPA for FlexAttention),
per token besides the block's input:

* without checkpointing: 123,520 bytes (eager: 160,392): the two norms' outputs (the projections' inputs) but
  neither their fp32 rstd nor their inputs, q after RoPE, the attention output and its log-sum-exp, k and v, the
  RoPE cache slice (complex64), w1's and w3's outputs and w2's input: ``2 x 2h + 2h + 2h + 4 heads + 2 x 2 h_kv +
  4 d + 3 x 2f`` (the 16-bit SiLU output and the norms' inputs are recomputed);
* with torchtitan's per-operator SAC around the block: the policy's kept outputs but w2's, which no backward
  reads (the residual sum's operand): 49,280 bytes (eager SAC: 57,472);
* with full checkpointing the block keeps its input; its recompute in the backward saves the compiled set.

Not traced, so refused: transformers' and torchtune's compiled layers (transformers' Llama block keeps o_proj's
output and the norms' rsqrt besides, 8,200 bytes a token more: the partition follows each model's ops), LoRA.
"""

from __future__ import annotations

from engine.specs import LayerSpec
from engine.training.precision import FP32
from engine.training.saved.attention import core
from engine.training.saved.inputs import Ctx
from engine.training.saved.op_selective import dense

#: the projection whose output torchtitan's SAC policy keeps in eager but no backward reads (the residual sum's
#: operand): a compiled block does not keep it (module docstring)
UNREAD = frozenset({"down"})


def compiled_saved(ctx: Ctx, layer: LayerSpec) -> tuple[float, tuple[float, ...]]:
    """(bytes per token a compiled torchtitan block saves without checkpointing, its input among them; the parts)
    (module docstring)."""
    c, h = ctx.c, ctx.m.hidden_size
    at, mlp = dense(layer)
    parts = (ctx.r * h,  # the block's input, the compiled graph's
             2 * c * h,  # the two norms' outputs, the projections' inputs
             core(ctx, layer)[0],  # q after RoPE, k, v, the attention output and its log-sum-exp
             FP32 * at.head_dim if ctx.impl.rope_slice else 0.0,  # the block's RoPE cache slice
             3 * c * mlp.intermediate_size)  # w1's and w3's outputs, w2's input
    return sum(parts), parts
