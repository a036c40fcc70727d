"""What torch.compile's partitioner saves for backward, against eager autograd: one Llama block and one loss.

    /work/calib-venv/bin/python -m calibration.stacks.compiled_block [TOKENS]

torch 2.13's inductor partitions each compiled graph's joint forward+backward with
``torch._functorch.partitioners.min_cut_rematerialization_partition`` after inductor's decompositions; the
``aot_eager_decomp_partition`` backend (torch/_dynamo/backends/debugging.py) runs those same decompositions and
partitioner and then executes the graphs eagerly, so what it saves is what inductor saves (inductor's kernels then
fuse what is recomputed, which changes the backward's temporaries, not the saved set). The saved tensors are
counted by unique storage through ``torch.autograd.graph.saved_tensors_hooks``, parameters and the graph's inputs
left out (a compiled block's input is saved as it is: counted as the block's input by the engine). Real CPU
tensors: transformers 5.24's ``LlamaDecoderLayer`` with Llama 3 8B's shape (SDPA, bf16), and torchtitan's
``CrossEntropyLoss`` body (``F.cross_entropy(logits.float(), labels, reduction="sum")``) on one 256-token chunk of
Llama 3's 128,256-entry vocabulary.

Result (calibration/stacks/NOTES.md section 7): the block saves 200,840 bytes a token eager (the engine's HF
formula, 20 h + 4 h_kv + 8 f + 4 heads, plus two fp32 rsqrt) and 131,208 compiled, plus its input (2 h): the norms
keep no fp32 copy (their 16-bit input and rsqrt), SiLU's output is recomputed from the gate's, o_proj's output is
kept (the residual sum is recomputed from it); the loss saves 4 bytes per logit eager (the fp32 log-softmax) and
only two fp32 values per row compiled (the logits, its input, kept as they are).
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import Any

import torch

BACKEND = "aot_eager_decomp_partition"
H, F, HEADS, KV_HEADS = 4096, 14336, 32, 8


def saved_by(fn: Callable[[], Any], skip: list[torch.Tensor]) -> dict[int, tuple[int, tuple[int, ...], str]]:
    """Each storage ``fn``'s autograd saves (by data pointer): (bytes, shape, dtype); ``skip``'s left out."""
    skipped = {t.untyped_storage().data_ptr() for t in skip}
    seen: dict[int, tuple[int, tuple[int, ...], str]] = {}

    def pack(t: torch.Tensor) -> torch.Tensor:
        st = t.untyped_storage()
        if st.data_ptr() not in skipped:
            seen[st.data_ptr()] = (st.nbytes(), tuple(t.shape), str(t.dtype))
        return t

    with torch.autograd.graph.saved_tensors_hooks(pack, lambda t: t):
        fn()
    return seen


def block(tokens: int) -> dict[str, int]:
    from transformers import LlamaConfig
    from transformers.models.llama.modeling_llama import LlamaDecoderLayer, LlamaRotaryEmbedding

    cfg = LlamaConfig(hidden_size=H, intermediate_size=F, num_attention_heads=HEADS, num_key_value_heads=KV_HEADS,
                      max_position_embeddings=131072, rope_theta=500000.0)
    cfg._attn_implementation = "sdpa"
    torch.set_default_dtype(torch.bfloat16)
    layer = LlamaDecoderLayer(cfg, 0)
    torch.set_default_dtype(torch.float32)
    x = torch.randn(1, tokens, H, dtype=torch.bfloat16, requires_grad=True)
    pos = torch.arange(tokens).unsqueeze(0)
    cos, sin = (t.to(torch.bfloat16) for t in LlamaRotaryEmbedding(cfg)(x, pos))
    out = {}
    for name, mod in (("eager", layer), ("compiled", torch.compile(layer, backend=BACKEND, dynamic=False))):
        seen = saved_by(lambda m=mod: m(x, position_embeddings=(cos, sin), attention_mask=None, position_ids=pos),
                        [*layer.parameters(), x, cos, sin])
        out[name] = sum(b for b, _, _ in seen.values())
    return out


def loss(rows: int = 256, vocab: int = 128_256) -> dict[str, int]:
    import torch.nn.functional as fn

    logits = torch.randn(rows, vocab, dtype=torch.bfloat16, requires_grad=True)
    labels = torch.randint(0, vocab, (rows,))

    def ce(x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
        return fn.cross_entropy(x.float(), y, reduction="sum")

    out = {}
    for name, f in (("eager", ce), ("compiled", torch.compile(ce, backend=BACKEND, dynamic=False))):
        seen = saved_by(lambda g=f: g(logits, labels), [logits, labels])
        out[name] = sum(b for b, _, _ in seen.values())
    return out


def main(argv: list[str]) -> int:
    tokens = int(argv[0]) if argv else 512
    b = block(tokens)
    print(f"Llama block, {tokens} tokens: eager {b['eager'] / tokens:,.0f} B/token, compiled "
          f"{b['compiled'] / tokens:,.0f} B/token (its input, {2 * H:,} B/token, besides)")
    c = loss()
    print(f"cross-entropy, 256 x 128,256 logits: eager {c['eager']:,} B, compiled {c['compiled']:,} B")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
