"""Exact parameter counts, module kind by module kind, and LoRA's trainable counts.

Counts follow the Hugging Face ``transformers`` module definitions (LlamaForCausalLM, MistralForCausalLM,
MixtralForCausalLM, Qwen2ForCausalLM, Gemma2ForCausalLM, Phi3ForCausalLM, GPT2LMHeadModel, DeepseekV2ForCausalLM):
a linear layer of ``n_in -> n_out`` holds ``n_in * n_out`` weights plus ``n_out`` biases when it has a bias.
They are checked in the tests against the published checkpoint totals (Llama 2 7B = 6,738,415,616).

LoRA (Hu et al. 2021, arXiv:2106.09685, section 4.1): an adapted linear ``n_in -> n_out`` of rank r trains
``A (r x n_in)`` and ``B (n_out x r)``, i.e. ``r * (n_in + n_out)`` parameters.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

from engine.specs import LoraTargets, MlpKind, ModelSpec, NormKind, PositionKind


@dataclass(frozen=True, slots=True)
class Linear:
    """One linear layer of a decoder block, as (role, n_in, n_out, bias, count per layer)."""

    role: str  # q, k, v, o, gate, up, down, router, ... (MLA: q_a, q_b, kv_a, kv_b)
    n_in: int
    n_out: int
    bias: bool = False
    count: int = 1

    @property
    def params(self) -> int:
        return self.count * (self.n_in * self.n_out + (self.n_out if self.bias else 0))

    def lora_params(self, rank: int) -> int:
        return self.count * rank * (self.n_in + self.n_out)


ATTENTION_ROLES = frozenset({"q", "k", "v", "o", "q_a", "q_b", "kv_a", "kv_b"})
#: "qv": LoRA's original choice; for MLA, whose values come out of kv_b, that projection stands in for v.
QV_ROLES = frozenset({"q", "v", "q_b", "kv_b"})


def attention_linears(m: ModelSpec) -> list[Linear]:
    """Projections of one attention block (grouped-query when num_kv_heads < num_heads)."""
    h = m.hidden_size
    if m.mla is not None:
        a = m.mla
        qk = a.qk_nope_head_dim + a.qk_rope_head_dim
        q = (
            [Linear("q", h, m.num_heads * qk)]
            if a.q_lora_rank is None
            else [Linear("q_a", h, a.q_lora_rank), Linear("q_b", a.q_lora_rank, m.num_heads * qk)]
        )
        return [
            *q,
            Linear("kv_a", h, a.kv_lora_rank + a.qk_rope_head_dim),
            Linear("kv_b", a.kv_lora_rank, m.num_heads * (a.qk_nope_head_dim + a.v_head_dim)),
            Linear("o", m.num_heads * a.v_head_dim, h, m.o_bias),
        ]
    d = m.head_size
    return [
        Linear("q", h, m.num_heads * d, m.qkv_bias),
        Linear("k", h, m.num_kv_heads * d, m.qkv_bias),
        Linear("v", h, m.num_kv_heads * d, m.qkv_bias),
        Linear("o", m.num_heads * d, h, m.o_bias),
    ]


def _mlp(h: int, inter: int, kind: MlpKind, bias: bool, count: int = 1) -> list[Linear]:
    if kind is MlpKind.GATED:
        return [
            Linear("gate", h, inter, bias, count),
            Linear("up", h, inter, bias, count),
            Linear("down", inter, h, bias, count),
        ]
    return [Linear("up", h, inter, bias, count), Linear("down", inter, h, bias, count)]


def mlp_linears(m: ModelSpec, layer: int) -> list[Linear]:
    """Linears of layer ``layer``'s MLP: dense, or router + routed experts + shared experts."""
    if m.moe is None or layer < m.moe.first_dense_layers:
        return _mlp(m.hidden_size, m.intermediate_size, m.mlp, m.mlp_bias)
    e = m.moe
    out = [Linear("router", m.hidden_size, e.num_experts)]
    out += _mlp(m.hidden_size, e.expert_intermediate_size, m.mlp, m.mlp_bias, e.num_experts)
    if e.shared_experts:
        out += _mlp(m.hidden_size, e.expert_intermediate_size * e.shared_experts, m.mlp, m.mlp_bias)
    return out


def norm_params(m: ModelSpec) -> int:
    """One normalisation layer: RMSNorm has a weight, LayerNorm a weight and a bias."""
    return m.hidden_size * (2 if m.norm is NormKind.LAYERNORM else 1)


def _mla_norms(m: ModelSpec) -> int:
    if m.mla is None:
        return 0
    return m.mla.kv_lora_rank + (m.mla.q_lora_rank or 0)


def layer_params(m: ModelSpec, layer: int) -> int:
    linears = attention_linears(m) + mlp_linears(m, layer)
    return sum(x.params for x in linears) + m.norms_per_layer * norm_params(m) + _mla_norms(m)


def embedding_params(m: ModelSpec) -> int:
    """Token embedding (vocab x hidden) plus a learned position table where the model has one."""
    pos = m.max_position * m.hidden_size if m.positions is PositionKind.LEARNED else 0
    return m.vocab_size * m.hidden_size + pos


def lm_head_params(m: ModelSpec) -> int:
    """The output projection; zero when it shares the embedding's weights (tied)."""
    return 0 if m.tie_embeddings else m.vocab_size * m.hidden_size


@dataclass(frozen=True, slots=True)
class ParamBreakdown:
    embedding: int
    attention: int
    mlp: int
    norms: int
    lm_head: int

    @property
    def total(self) -> int:
        return self.embedding + self.attention + self.mlp + self.norms + self.lm_head

    @property
    def non_embedding(self) -> int:
        """Everything but the embedding and output tables (the seed's 0.62% is of this)."""
        return self.attention + self.mlp + self.norms


@lru_cache(maxsize=256)
def count_params(m: ModelSpec) -> ParamBreakdown:
    """Exact parameter count of the checkpoint, by module kind (kept per model: the sum walks every layer, about
    half a millisecond for a large model, and the alignment page and lessons ask for it on every change)."""
    layers = range(m.num_layers)
    return ParamBreakdown(
        embedding=embedding_params(m),
        attention=m.num_layers * sum(x.params for x in attention_linears(m)),
        mlp=sum(sum(x.params for x in mlp_linears(m, i)) for i in layers),
        norms=m.num_layers * (m.norms_per_layer * norm_params(m) + _mla_norms(m)) + norm_params(m),
        lm_head=lm_head_params(m),
    )


def lora_targets(m: ModelSpec, layer: int, targets: LoraTargets) -> list[Linear]:
    """The linears LoRA adapts in one layer. ``all-linear`` is PEFT's: every linear but the output layer."""
    attn = attention_linears(m)
    if targets is LoraTargets.QV:
        return [x for x in attn if x.role in QV_ROLES]
    if targets is LoraTargets.ATTENTION:
        return attn
    return attn + mlp_linears(m, layer)


@lru_cache(maxsize=256)
def lora_params(m: ModelSpec, rank: int, targets: LoraTargets) -> int:
    """Trainable LoRA parameters: sum over adapted linears of r * (n_in + n_out) (Hu et al. 2021); kept per
    (model, rank, targets) like :func:`count_params`."""
    return sum(
        x.lora_params(rank) for i in range(m.num_layers) for x in lora_targets(m, i, targets)
    )


def active_params(m: ModelSpec) -> int:
    """Parameters a token passes through (MoE: only the experts it is routed to)."""
    total = count_params(m).total
    if m.moe is None:
        return total
    e = m.moe
    moe_layers = m.num_layers - e.first_dense_layers
    per_expert = sum(x.params for x in _mlp(m.hidden_size, e.expert_intermediate_size, m.mlp, m.mlp_bias))
    return total - moe_layers * (e.num_experts - e.experts_per_token) * per_expert
