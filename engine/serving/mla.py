"""DeepSeek's latent cache (MLA) against DeepSeek 67B's grouped-query cache: like for like, and as published.

DeepSeek-V2 (arXiv:2405.04434, abstract and section 3.2.3) reports a KV cache 93.3% smaller than DeepSeek
67B's.
That deployed figure compares unlike things: V2's cache is quantized to about 6 bits per element on average
while 67B's is 16-bit, and V2 has 60 layers where 67B has 95. In the same dtype, per token, MLA's cache is
82.2% smaller (69,120 vs 389,120 bytes in bf16); per layer, 71.9% (576 vs 2,048 elements).
"""

from __future__ import annotations

from collections.abc import Mapping

from pydantic import BaseModel, ConfigDict

from engine.catalog import get_model
from engine.serving.kv import kv_cache
from engine.specs import KvDtype, MLASpec, ModelSpec, MoESpec

#: DeepSeek-V2 (236B MoE), from its config.json (deepseek-ai/DeepSeek-V2); not in the bundled catalog.
DEEPSEEK_V2 = ModelSpec(
    id="deepseek-v2", name="DeepSeek-V2", family="deepseek", hf_repo="deepseek-ai/DeepSeek-V2",
    vocab_size=102_400, hidden_size=5_120, num_layers=60, num_heads=128, num_kv_heads=128,
    intermediate_size=12_288, max_position=163_840,
    moe=MoESpec(num_experts=160, experts_per_token=6, expert_intermediate_size=1_536, shared_experts=2,
                first_dense_layers=1),
    mla=MLASpec(
        kv_lora_rank=512, qk_rope_head_dim=64, qk_nope_head_dim=128, v_head_dim=128, q_lora_rank=1_536
    ),
)

PUBLISHED_REDUCTION = 0.933
PUBLISHED_SOURCE = "DeepSeek-V2, arXiv:2405.04434, abstract and section 3.2.3"
#: DeepSeek-V2's deployed KV cache: "each element ... into 6 bits on average" (section 3.2.3).
DEPLOYED_KV_BITS = 6


class MlaComparison(BaseModel):
    """Per-token KV cache of an MLA model against a GQA model, three ways."""

    model_config = ConfigDict(frozen=True)

    mla_model: str
    gqa_model: str
    dtype: KvDtype
    mla_layers: int
    gqa_layers: int
    mla_bytes_per_token: int
    gqa_bytes_per_token: int
    like_for_like: float  # 1 - MLA / GQA, same dtype, per token, each model's own layers
    per_layer: float  # 1 - MLA / GQA per layer and token, same dtype
    published: float = PUBLISHED_REDUCTION
    published_reconstructed: float  # V2's cache at 6 bits per element against 67B's at 16 bits
    note: str
    source: str = PUBLISHED_SOURCE


def _note(c: Mapping[str, object]) -> str:
    return (
        f"The published {PUBLISHED_REDUCTION:.1%} compares DeepSeek-V2's deployed cache (about "
        f"{DEPLOYED_KV_BITS} bits per element, 60 layers) with DeepSeek 67B's (16-bit, 95 layers). "
        f"In the same dtype ({c['dtype']}), {c['mla']} caches {c['lfl']:.1%} less per token "
        f"({c['mla_layers']} vs {c['gqa_layers']} layers) and {c['per_layer']:.1%} less per layer."
    )


def compare_mla(mla_model: ModelSpec = DEEPSEEK_V2, gqa_model: ModelSpec | None = None,
                dtype: KvDtype = KvDtype.BF16) -> MlaComparison:
    """MLA vs GQA per token (formulas: ``engine.serving.kv``); defaults: DeepSeek-V2 vs DeepSeek 67B."""
    gqa = gqa_model or get_model("deepseek-llm-67b")
    mla_kv, gqa_kv = kv_cache(mla_model, 1, dtype), kv_cache(gqa, 1, dtype)
    lfl = 1 - mla_kv.bytes_per_token / gqa_kv.bytes_per_token
    per_layer = 1 - mla_kv.elements_per_token_layer / gqa_kv.elements_per_token_layer
    v2, g67 = kv_cache(DEEPSEEK_V2, 1, dtype), kv_cache(get_model("deepseek-llm-67b"), 1, KvDtype.BF16)
    deployed = v2.layers * v2.elements_per_token_layer * DEPLOYED_KV_BITS / 8
    fields = {"dtype": dtype.value, "mla": mla_model.label, "lfl": lfl, "per_layer": per_layer,
              "mla_layers": mla_model.num_layers, "gqa_layers": gqa.num_layers}
    return MlaComparison(
        mla_model=mla_model.label, gqa_model=gqa.label, dtype=dtype,
        mla_layers=mla_model.num_layers, gqa_layers=gqa.num_layers,
        mla_bytes_per_token=mla_kv.bytes_per_token, gqa_bytes_per_token=gqa_kv.bytes_per_token,
        like_for_like=lfl, per_layer=per_layer,
        published_reconstructed=1 - deployed / g67.bytes_per_token, note=_note(fields),
    )
