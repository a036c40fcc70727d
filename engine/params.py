"""Exact parameter counts, layer kind by layer kind, and LoRA's trainable counts as PEFT builds them.

Counts follow the Hugging Face ``transformers`` 5.24 module definitions, walked over the model's layer runs
(``engine.layers.runs``): a linear layer of ``n_in -> n_out`` holds ``n_in * n_out`` weights plus ``n_out`` biases
when it has a bias; fused experts (``Qwen3MoeExperts``, ``DeepseekV3NaiveMoe``, ``GptOssExperts``,
``Llama4TextExperts``) hold the same numbers in one 3-D parameter per projection; q/k norms (``Qwen3Attention``
q_norm / k_norm over head_dim, ``Olmo2Attention`` over the whole projection), attention sinks (``GptOssAttention``)
and MLA's latent norms are counted with the norms. They are checked in the tests against the models transformers
builds (tests/engine/data/transformers_counts.json) and the published checkpoint totals.

LoRA (Hu et al. 2021, arXiv:2106.09685, section 4.1): an adapted linear ``n_in -> n_out`` of rank r trains
``A (r x n_in)`` and ``B (n_out x r)``, i.e. ``r * (n_in + n_out)`` parameters. Which linears PEFT 0.21.2 adapts:
``all-linear`` is every ``nn.Linear`` but the output layer (peft/tuners/tuners_utils.py
``_maybe_include_all_linear_layers``); for the MoE model types transformers re-fused in v5 it also wraps the fused
experts and the router as parameters (``ParamWrapper``, peft/tuners/lora/layer.py: ``lora_A`` is
``in x (r * experts)``, ``lora_B`` is ``(r * experts) x out``; ``gate_up_proj`` at rank 2r through the
``rank_pattern`` that peft/utils/transformers_weight_conversion.py sets) and drops the linears named
``gate_proj`` / ``up_proj`` / ``down_proj`` (see ``engine.specs.ExpertLora``). ``qvo-mlp`` is torchtune's
recipes' set (``lora_attn_modules: [q_proj, v_proj, output_proj]``, ``apply_lora_to_mlp: True``,
torchtune/models/llama3/_component_builders.py ``lora_llama3``@0.6.1): q, v, o and the dense MLP, not k.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

from engine.layers import runs
from engine.specs import (
    AttentionSpec,
    DeltaNetSpec,
    ExpertLora,
    ExpertStorage,
    LayerSpec,
    LoraTargets,
    Mamba1Spec,
    Mamba2Spec,
    Mixer,
    MlpKind,
    MlpSpec,
    ModelSpec,
    NormKind,
    PositionKind,
    QkNorm,
    ShortConvSpec,
)


@dataclass(frozen=True, slots=True)
class Linear:
    """One linear map of a decoder layer, as (role, n_in, n_out, bias, count per layer, LoRA rank multiple)."""

    role: str  # q, k, v, qkv, o, gate, up, gate_up, down, router, experts_*, shared_*, ... (MLA: q_a, q_b, kv_a, kv_b)
    n_in: int
    n_out: int
    bias: bool = False
    count: int = 1  # experts stored together (a fused 3-D parameter) or one per expert
    rank_mult: int = 1  # PEFT's rank for it, in units of r (the fused gate_up expert parameter: 2)

    @property
    def params(self) -> int:
        return self.count * (self.n_in * self.n_out + (self.n_out if self.bias else 0))

    def lora_params(self, rank: int) -> int:
        return self.count * rank * self.rank_mult * (self.n_in + self.n_out)


ATTENTION_ROLES = frozenset({"q", "k", "v", "qkv", "o", "q_a", "q_b", "kv_a", "kv_b"})
#: "qv": LoRA's original choice; for MLA, whose values come out of kv_b, that projection stands in for v; a fused
#: qkv projection (Phi-3 / Phi-4) is adapted whole.
QV_ROLES = frozenset({"q", "v", "qkv", "q_b", "kv_b"})
#: the linears PEFT's MoE conversion drops from ``all-linear`` (named gate_proj / up_proj / down_proj)
_CONVERTED_NAMES = frozenset({"gate", "up", "down", "shared_gate", "shared_up", "shared_down"})


def attention_linears(a: AttentionSpec, h: int) -> list[Linear]:
    """Projections of one attention block (grouped-query when num_kv_heads < num_heads)."""
    if a.mla is not None:
        x = a.mla
        qk = x.qk_nope_head_dim + x.qk_rope_head_dim
        q = (  # DeepseekV3Attention: attention_bias puts biases on q_a, kv_a and o
            [Linear("q", h, a.num_heads * qk)]
            if x.q_lora_rank is None
            else [Linear("q_a", h, x.q_lora_rank, a.qkv_bias), Linear("q_b", x.q_lora_rank, a.num_heads * qk)]
        )
        return [
            *q,
            Linear("kv_a", h, x.kv_lora_rank + x.qk_rope_head_dim, a.qkv_bias),
            Linear("kv_b", x.kv_lora_rank, a.num_heads * (x.qk_nope_head_dim + x.v_head_dim)),
            Linear("o", a.num_heads * x.v_head_dim, h, a.o_bias),
        ]
    d = a.head_dim
    o = Linear("o", a.num_heads * d, h, a.o_bias)
    gate = 2 if a.output_gate else 1  # gated attention: q_proj makes the queries and the gate
    if a.fused_qkv:
        return [Linear("qkv", h, (gate * a.num_heads + 2 * a.num_kv_heads) * d, a.qkv_bias), o]
    return [
        Linear("q", h, gate * a.num_heads * d, a.qkv_bias),
        Linear("k", h, a.num_kv_heads * d, a.qkv_bias),
        Linear("v", h, a.num_kv_heads * d, a.qkv_bias),
        o,
    ]


def _dense(h: int, inter: int, kind: MlpKind, *, bias: bool, fused: bool, prefix: str = "") -> list[Linear]:
    if not kind.gated:
        return [Linear(prefix + "up", h, inter, bias), Linear(prefix + "down", inter, h, bias)]
    if fused:
        return [Linear(prefix + "gate_up", h, 2 * inter, bias), Linear(prefix + "down", inter, h, bias)]
    return [
        Linear(prefix + "gate", h, inter, bias),
        Linear(prefix + "up", h, inter, bias),
        Linear(prefix + "down", inter, h, bias),
    ]


def mlp_linears(p: MlpSpec, h: int) -> list[Linear]:
    """Linears of one MLP: dense, or router + routed experts (+ shared experts and their gate)."""
    out = _dense(h, p.intermediate_size, p.kind, bias=p.bias, fused=p.fused_gate_up) if p.intermediate_size else []
    e = p.moe
    if e is None:
        return out
    out.append(Linear("router", h, e.num_experts, e.router_bias))
    i, n, b = e.expert_intermediate_size, e.num_experts, e.expert_bias
    gated = p.kind.gated
    d = e.latent_size or h  # the experts' own width (Nemotron-H's latent projections around them)
    if e.latent_size is not None:
        out.append(Linear("latent_in", h, d, p.bias))
    if e.storage is ExpertStorage.FUSED and gated:
        out.append(Linear("experts_gate_up", d, 2 * i, b, n, 2))
    elif e.storage is ExpertStorage.FUSED:
        out.append(Linear("experts_up", d, i, b, n))
    else:
        out += [Linear(f"experts_{r}", d, i, b, n) for r in (("gate", "up") if gated else ("up",))]
    out.append(Linear("experts_down", i, d, b, n))
    if e.latent_size is not None:
        out.append(Linear("latent_out", d, h, p.bias))
    if e.shared_width:
        out += _dense(h, e.shared_width, p.kind, bias=p.bias, fused=p.fused_gate_up, prefix="shared_")
    if e.shared_expert_gate:
        out.append(Linear("shared_expert_gate", h, 1))
    return out


def _deltanet_linears(x: DeltaNetSpec, h: int) -> list[Linear]:
    """Gated DeltaNet (Qwen3NextGatedDeltaNet: in_proj_qkvz, in_proj_ba; Qwen3_5GatedDeltaNet: in_proj_qkv,
    in_proj_z, in_proj_b, in_proj_a) or KDA (KimiLinearDeltaAttention: q/k/v_proj, the forget gate's f_a / f_b,
    b_proj, the output gate's g_a / g_b, o_proj), all without biases."""
    k, v, hv = x.key_width, x.value_width, x.num_v_heads
    if x.kind == "kda":
        d = x.head_k_dim
        return [Linear("q", h, k), Linear("k", h, k), Linear("v", h, v), Linear("f_a", h, d), Linear("f_b", d, k),
                Linear("b", h, hv), Linear("g_a", h, d), Linear("g_b", d, v), Linear("o", v, h)]
    out = Linear("out", v, h)
    if x.fused_projections:
        return [Linear("in_qkvz", h, 2 * k + 2 * v), Linear("in_ba", h, 2 * hv), out]
    return [Linear("in_qkv", h, 2 * k + v), Linear("in_z", h, v), Linear("in_b", h, hv), Linear("in_a", h, hv), out]


def mixer_linears(x: Mixer, h: int) -> list[Linear]:
    """The linears of a token mixer that is not softmax attention (``engine.specs.Mixer``), as transformers 5.24
    builds them (the classes each spec's docstring names)."""
    if isinstance(x, DeltaNetSpec):
        return _deltanet_linears(x, h)
    if isinstance(x, Mamba2Spec):  # in_proj makes z, x, B, C and one dt per head
        return [Linear("in", h, x.inner + x.conv_width + x.num_heads, x.in_bias), Linear("out", x.inner, h, x.out_bias)]
    if isinstance(x, Mamba1Spec):
        return [Linear("in", h, 2 * x.inner, x.in_bias), Linear("x", x.inner, x.dt_rank + 2 * x.state_size),
                Linear("dt", x.dt_rank, x.inner, True), Linear("out", x.inner, h, x.out_bias)]
    return [Linear("in", h, 3 * h, x.bias), Linear("out", h, h, x.bias)]  # LFM2's short convolution


def mixer_tensors(x: Mixer, h: int) -> list[int]:
    """The sizes of a mixer's parameter tensors outside its linears (:func:`mixer_other_params` tensor by tensor:
    the convolution's weight and bias, dt_bias, A_log, D, the norms' weights)."""
    if isinstance(x, DeltaNetSpec):
        channels = 2 * x.key_width + x.value_width
        if x.kind == "kda":
            return [channels * x.conv_kernel, x.key_width, x.num_k_heads, x.head_v_dim]
        return [channels * x.conv_kernel, x.num_v_heads, x.num_v_heads, x.head_v_dim]
    if isinstance(x, Mamba2Spec):
        conv = [x.conv_width * x.conv_kernel] + ([x.conv_width] if x.conv_bias else [])
        return conv + [x.num_heads] * 3 + ([x.inner] if x.gated_norm else [])
    if isinstance(x, Mamba1Spec):
        conv = [x.inner * x.conv_kernel] + ([x.inner] if x.conv_bias else [])
        norms = [x.dt_rank, x.state_size, x.state_size] if x.dt_norms else []
        return [*conv, x.inner * x.state_size, x.inner, *norms]
    assert isinstance(x, ShortConvSpec)
    return [h * x.conv_kernel] + ([h] if x.bias else [])


def mixer_other_params(x: Mixer, h: int) -> int:
    """A mixer's parameters outside its linears: the depthwise convolution (a weight of ``kernel`` taps per
    channel, a bias per channel where it has one), the decay and skip parameters, its norms."""
    if isinstance(x, DeltaNetSpec):
        channels = 2 * x.key_width + x.value_width
        if x.kind == "kda":  # KimiLinearForgetGate dt_bias (per channel) and A_log (per head); o_norm
            return channels * x.conv_kernel + x.key_width + x.num_k_heads + x.head_v_dim
        return channels * x.conv_kernel + 2 * x.num_v_heads + x.head_v_dim  # dt_bias, A_log, the gated norm
    if isinstance(x, Mamba2Spec):
        conv = x.conv_width * (x.conv_kernel + (1 if x.conv_bias else 0))
        return conv + 3 * x.num_heads + (x.inner if x.gated_norm else 0)  # dt_bias, A_log, D; the gated norm
    if isinstance(x, Mamba1Spec):
        conv = x.inner * (x.conv_kernel + (1 if x.conv_bias else 0))
        norms = x.dt_rank + 2 * x.state_size if x.dt_norms else 0  # Jamba's dt / B / C RMSNorms
        return conv + x.inner * x.state_size + x.inner + norms  # A_log (inner x state), D
    assert isinstance(x, ShortConvSpec)
    return h * (x.conv_kernel + (1 if x.bias else 0))


def layer_linears(layer: LayerSpec, h: int) -> list[Linear]:
    """Every linear of one decoder layer: attention, the other token mixer, the MLP."""
    out = attention_linears(layer.attention, h) if layer.attention is not None else []
    if layer.mixer is not None:
        out += mixer_linears(layer.mixer, h)
    return out + (mlp_linears(layer.mlp, h) if layer.mlp is not None else [])


def norm_params(m: ModelSpec) -> int:
    """One hidden-width normalisation: RMSNorm has a weight, LayerNorm a weight and a bias."""
    return m.hidden_size * (2 if m.norm is NormKind.LAYERNORM else 1)


def attention_norm_params(a: AttentionSpec) -> int:
    """The attention block's own norms and sinks: q/k norms, MLA's latent norms, one sink logit per head."""
    qk = {
        QkNorm.NONE: 0,
        QkNorm.L2: 0,
        QkNorm.HEAD: 2 * a.head_dim,
        QkNorm.PROJECTION: (a.num_heads + a.num_kv_heads) * a.head_dim,
    }[a.qk_norm]
    mla = a.mla.kv_lora_rank + (a.mla.q_lora_rank or 0) if a.mla is not None else 0
    return qk + mla + (a.num_heads if a.sinks else 0)


def layer_norm_params(m: ModelSpec, layer: LayerSpec) -> int:
    """A layer's norms: its hidden-width norms and its attention's own (q/k norms, MLA's, sinks)."""
    own = attention_norm_params(layer.attention) if layer.attention is not None else 0
    return layer.norms * norm_params(m) + own


def layer_params(m: ModelSpec, layer: LayerSpec) -> int:
    """Parameters of one decoder layer of kind ``layer``."""
    linears = sum(x.params for x in layer_linears(layer, m.hidden_size))
    other = mixer_other_params(layer.mixer, m.hidden_size) if layer.mixer is not None else 0
    return linears + layer_norm_params(m, layer) + other


def embedding_params(m: ModelSpec) -> int:
    """Token embedding (vocab x hidden) plus a learned position table where the model has one."""
    pos = m.max_position * m.hidden_size if m.positions is PositionKind.LEARNED else 0
    return m.vocab_size * m.hidden_size + pos


def lm_head_params(m: ModelSpec) -> int:
    """The output projection (and its bias, GPT-J / Phi); zero when it shares the embedding's weights (tied)."""
    bias = m.vocab_size if m.lm_head_bias else 0
    return bias + (0 if m.tie_embeddings else m.vocab_size * m.hidden_size)


@dataclass(frozen=True, slots=True)
class ParamBreakdown:
    embedding: int
    attention: int
    mlp: int
    norms: int
    lm_head: int
    #: token mixers that are not softmax attention: their linears, convolutions, decay parameters and norms
    mixer: int = 0

    @property
    def total(self) -> int:
        return self.embedding + self.attention + self.mixer + self.mlp + self.norms + self.lm_head

    @property
    def non_embedding(self) -> int:
        """Everything but the embedding and output tables (the seed's 0.62% is of this)."""
        return self.attention + self.mixer + self.mlp + self.norms


@lru_cache(maxsize=256)
def count_params(m: ModelSpec) -> ParamBreakdown:
    """Exact parameter count of the language model, by module kind (sinks and q/k norms count as norms;
    kept per model: the sum walks every layer run, and the alignment page and lessons ask on every change)."""
    h = m.hidden_size
    layer_runs = runs(m)
    mixers = [(r.count, r.mixer) for r in layer_runs if r.mixer is not None]
    return ParamBreakdown(
        embedding=embedding_params(m),
        attention=sum(r.count * sum(x.params for x in attention_linears(r.attention, h)) for r in layer_runs
                      if r.attention is not None),
        mlp=sum(r.count * sum(x.params for x in mlp_linears(r.mlp, h)) for r in layer_runs if r.mlp is not None),
        norms=sum(r.count * layer_norm_params(m, r) for r in layer_runs) + norm_params(m),
        lm_head=lm_head_params(m),
        mixer=sum(n * (sum(x.params for x in mixer_linears(x, h)) + mixer_other_params(x, h)) for n, x in mixers),
    )


def _peft_converts(m: ModelSpec) -> bool:
    """PEFT's v4 -> v5 MoE conversion applies to this model (engine.specs.ExpertLora.PARAMETERS)."""
    return any(r.mlp is not None and r.mlp.moe is not None and r.mlp.moe.lora is ExpertLora.PARAMETERS
               for r in runs(m))


def _mixer_targets(x: Mixer, h: int) -> list[Linear]:
    """The linears of a mixer ``all-linear`` adapts: every one but a Mamba out_proj that PEFT 0.21 refuses
    (``tuners_utils._check_lora_target_modules_mamba``; the spec's ``lora_out_proj``)."""
    keep_out = not isinstance(x, Mamba1Spec | Mamba2Spec) or x.lora_out_proj
    return [y for y in mixer_linears(x, h) if keep_out or y.role != "out"]


def _all_linear(m: ModelSpec, layer: LayerSpec) -> list[Linear]:
    """What PEFT 0.21's ``all-linear`` adapts in one layer (module docstring)."""
    converted = _peft_converts(m)
    out = attention_linears(layer.attention, m.hidden_size) if layer.attention is not None else []
    if layer.mixer is not None:
        out += _mixer_targets(layer.mixer, m.hidden_size)
    if layer.mlp is None:
        return out
    e = layer.mlp.moe
    for x in mlp_linears(layer.mlp, m.hidden_size):
        if x.role.startswith("experts_"):
            keep = e is not None and e.lora is not ExpertLora.NONE
        elif x.role == "router":
            keep = e is not None and (e.lora is not ExpertLora.NONE or e.router_linear)
        else:
            keep = not (converted and x.role in _CONVERTED_NAMES)
        if keep:
            out.append(x)
    return out


def lora_targets(m: ModelSpec, layer: LayerSpec, targets: LoraTargets) -> list[Linear]:
    """The linears LoRA adapts in one layer of kind ``layer`` (module docstring: PEFT's rules)."""
    if targets is LoraTargets.ALL_LINEAR:
        return _all_linear(m, layer)
    # PEFT matches module names: q_proj / k_proj / v_proj / o_proj of a KDA mixer are hit as an attention's are
    named = attention_linears(layer.attention, m.hidden_size) if layer.attention is not None else []
    if isinstance(layer.mixer, DeltaNetSpec) and layer.mixer.kind == "kda":
        named += [x for x in mixer_linears(layer.mixer, m.hidden_size) if x.role in ATTENTION_ROLES]
    if targets is LoraTargets.QV:
        return [x for x in named if x.role in QV_ROLES]
    if targets is LoraTargets.QVO_MLP:  # torchtune: q, v, output_proj (no k) and the dense MLP's linears
        dense = [x for x in (mlp_linears(layer.mlp, m.hidden_size) if layer.mlp is not None else [])
                 if not x.role.startswith("experts_") and x.role not in ("router", "shared_expert_gate")]
        return [x for x in named if x.role in QV_ROLES or x.role == "o"] + dense
    return named


@lru_cache(maxsize=256)
def lora_params(m: ModelSpec, rank: int, targets: LoraTargets) -> int:
    """Trainable LoRA parameters: sum over adapted linears of r * (n_in + n_out) (Hu et al. 2021); kept per
    (model, rank, targets) like :func:`count_params`."""
    return sum(r.count * sum(x.lora_params(rank) for x in lora_targets(m, r, targets)) for r in runs(m))


def active_params(m: ModelSpec) -> int:
    """Parameters a token passes through (MoE: only the experts it is routed to)."""
    idle = 0
    for r in runs(m):
        e = r.mlp.moe if r.mlp is not None else None
        if e is not None and r.mlp is not None:
            experts = sum(x.params for x in mlp_linears(r.mlp, m.hidden_size) if x.role.startswith("experts_"))
            idle += r.count * experts // e.num_experts * (e.num_experts - e.experts_per_token)
    return count_params(m).total - idle


@lru_cache(maxsize=256)
def dora_params(m: ModelSpec, targets: LoraTargets) -> int:
    """DoRA's magnitude vectors (PEFT 0.21.2 peft/tuners/lora/dora.py ``DoraLinearLayer.update_layer``: one value
    per output row of each adapted linear, ``weight_norm`` of ``W + s B A``): the adapted linears' output widths."""
    return sum(r.count * sum(x.count * x.n_out for x in lora_targets(m, r, targets)) for r in runs(m))


@lru_cache(maxsize=256)
def oft_params(m: ModelSpec, targets: LoraTargets, block: int) -> int:
    """OFT's trained parameters (PEFT 0.21.2 peft/tuners/oft/layer.py ``OFTRotationModule``: ``weight`` of
    ``r x block (block - 1) / 2``, r = n_in / block, the strict upper triangle of each skew-symmetric block):
    n_in (block - 1) / 2 per adapted linear."""
    return sum(r.count * sum(x.count * x.n_in // block * block * (block - 1) // 2
                             for x in lora_targets(m, r, targets)) for r in runs(m))
