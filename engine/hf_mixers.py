"""Hugging Face configs of hybrid models: layers whose token mixer is not (only) softmax attention.

Each family's attention stack (its attention layers, MLPs and experts) is read by ``engine.hf_config`` with the
family's traits below; then every layer that the config's ``layer_types`` (or the family's rule) makes a gated
DeltaNet, Mamba or convolution layer gets that mixer instead (``engine.specs.Mixer``), read from the config's
fields with transformers 5.24's defaults (``models/<type>/configuration_<type>.py``, ``dataclasses.fields``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from engine.hf_config import Reader, language_config
from engine.hf_config import spec_fields as attention_fields
from engine.hf_families import Family
from engine.layers import expand, group
from engine.specs import DeltaNetSpec, ExpertLora, LayerSpec, NormKind, QkNorm

_LINEAR = {"linear_conv_kernel_dim": 4, "linear_key_head_dim": 128, "linear_value_head_dim": 128,
           "linear_num_key_heads": 16, "linear_num_value_heads": 32, "partial_rotary_factor": 0.25,
           "head_dim": 256, "full_attention_interval": 4}


def _src(model_type: str, folder: str) -> str:
    return f"transformers 5.24 models/{folder}/configuration_{folder}.py and modeling_{folder}.py"


#: the hybrid families, each with its attention stack's traits (as ``engine.hf_families.FAMILIES``)
FAMILIES: dict[str, Family] = {
    # Qwen3-Next: gated attention (q_proj doubled, sigmoid gate), (1 + w) RMSNorms in fp32, q/k norms per head,
    # RoPE on a quarter of each head; Qwen2-MoE's gated shared expert; PEFT converts its experts (qwen2_moe pattern)
    "qwen3_next": Family({"vocab_size": 151936, "hidden_size": 2048, "intermediate_size": 5632,
                          "num_hidden_layers": 48, "num_attention_heads": 16, "num_key_value_heads": 2,
                          "max_position_embeddings": 32768, "num_experts": 512, "num_experts_per_tok": 10,
                          "moe_intermediate_size": 512, "shared_expert_intermediate_size": 512,
                          "decoder_sparse_step": 1, "mlp_only_layers": [], **_LINEAR},
                         norm=NormKind.RMSNORM_FP32, qk_norm=QkNorm.HEAD, moe_layers="qwen", shared="qwen2",
                         source=_src("qwen3_next", "qwen3_next")),
    "qwen3_5_text": Family({"vocab_size": 248320, "hidden_size": 4096, "intermediate_size": 12288,
                            "num_hidden_layers": 32, "num_attention_heads": 16, "num_key_value_heads": 4,
                            "max_position_embeddings": 32768, **_LINEAR},
                           norm=NormKind.RMSNORM_FP32, qk_norm=QkNorm.HEAD, source=_src("qwen3_5", "qwen3_5")),
    # every layer routed; the router is not an nn.Linear and PEFT 0.21 leaves the fused experts alone
    "qwen3_5_moe_text": Family({"vocab_size": 248320, "hidden_size": 2048, "num_hidden_layers": 40,
                                "num_attention_heads": 16, "num_key_value_heads": 2,
                                "max_position_embeddings": 32768, "num_experts": 256, "num_experts_per_tok": 8,
                                "moe_intermediate_size": 512, "shared_expert_intermediate_size": 512, **_LINEAR},
                               norm=NormKind.RMSNORM_FP32, qk_norm=QkNorm.HEAD, moe_layers="all", shared="qwen2",
                               expert_lora=ExpertLora.NONE, source=_src("qwen3_5_moe", "qwen3_5_moe")),
}
#: families whose attention layers are gated (``Qwen3NextAttention``: q_proj makes the queries and the gate)
GATED_ATTENTION = frozenset({"qwen3_next", "qwen3_5_text", "qwen3_5_moe_text"})
#: multimodal wrappers whose language model is one of FAMILIES (``text_config``; its model_type when it has none)
WRAPPERS = {"qwen3_5": "qwen3_5_text", "qwen3_5_moe": "qwen3_5_moe_text"}


def is_hybrid(cfg: dict[str, Any]) -> bool:
    """Whether a config dict is one of the hybrid families here (top level or under ``text_config``)."""
    outer = cfg.get("model_type")
    text = cfg.get("text_config")
    inner = text.get("model_type") if isinstance(text, dict) else None
    return outer in FAMILIES or outer in WRAPPERS or inner in FAMILIES


def spec_fields(cfg: dict[str, Any], name: str, source: str = "config.json") -> dict[str, Any]:
    """ModelSpec fields of a hybrid model's config (module docstring)."""
    cfg = _named(cfg)
    language, model_type, _ = language_config(cfg, source)
    family = FAMILIES[model_type]
    r = Reader(language, family, f"{source} (text_config)" if "text_config" in cfg else source)
    n = r.whole("num_hidden_layers")
    kinds, mixer = _BUILDERS[model_type](r, n)
    fields = attention_fields(_replace_language(cfg, _attention_only(language, n)), name, source, family=family)
    gate = model_type in GATED_ATTENTION
    layers = [_with_mixer(layer, kind, mixer, gate) for layer, kind in zip(expand(fields["layers"]), kinds,
                                                                             strict=True)]
    fields["layers"] = group(layers)
    fields["family"] = f"imported ({model_type})"
    return fields


def _named(cfg: dict[str, Any]) -> dict[str, Any]:
    """The config with its language model's model_type spelled out (a wrapper's text_config may omit it)."""
    text, outer = cfg.get("text_config"), cfg.get("model_type")
    if isinstance(text, dict) and "model_type" not in text and outer in WRAPPERS:
        return {**cfg, "text_config": {**text, "model_type": WRAPPERS[str(outer)]}}
    return cfg


def _replace_language(cfg: dict[str, Any], language: dict[str, Any]) -> dict[str, Any]:
    return {**cfg, "text_config": language} if isinstance(cfg.get("text_config"), dict) else language


def _attention_only(language: dict[str, Any], n: int) -> dict[str, Any]:
    """The config as ``engine.hf_config`` reads an attention stack: every layer full attention."""
    return {**language, "layer_types": ["full_attention"] * n}


def _with_mixer(layer: LayerSpec, kind: str, mixer: Any, output_gate: bool) -> LayerSpec:
    """The layer as the hybrid builds it: its attention gated, or its mixer in attention's place."""
    if kind == "attention":
        return LayerSpec(attention=layer.attn.model_copy(update={"output_gate": output_gate}), mlp=layer.mlp,
                         norms=layer.norms) if output_gate else layer
    return LayerSpec(attention=None, mixer=mixer, mlp=layer.mlp, norms=layer.norms)


def _layer_kinds(r: Reader, n: int, linear: str) -> list[str]:
    """"attention" or ``linear`` per layer, from ``layer_types`` (``full_attention`` / ``linear_attention``) or
    every ``full_attention_interval``-th layer full (Qwen3NextConfig / Qwen3_5TextConfig.__post_init__)."""
    types = r.str_list("layer_types", n)
    if types is None:
        every = r.whole("full_attention_interval", lo=1)
        types = ["linear_attention" if (i + 1) % every else "full_attention" for i in range(n)]
    for i, t in enumerate(types):
        if t not in ("full_attention", "linear_attention"):
            raise r.fail("layer_types", f"layer {i} has an unknown kind {t[:40]!r}")
    return ["attention" if t == "full_attention" else linear for t in types]


def _gated_deltanet(r: Reader, n: int, *, fused: bool) -> tuple[list[str], DeltaNetSpec]:
    """Qwen3-Next / Qwen3.5: every ``linear_attention`` layer a gated DeltaNet."""
    mixer = DeltaNetSpec(kind="gated-deltanet", num_k_heads=r.whole("linear_num_key_heads", lo=1),
                         num_v_heads=r.whole("linear_num_value_heads", lo=1),
                         head_k_dim=r.whole("linear_key_head_dim", lo=1),
                         head_v_dim=r.whole("linear_value_head_dim", lo=1),
                         conv_kernel=r.whole("linear_conv_kernel_dim", lo=1), fused_projections=fused)
    return _layer_kinds(r, n, "gated-deltanet"), mixer


_BUILDERS: dict[str, Callable[[Reader, int], tuple[list[str], Any]]] = {
    "qwen3_next": lambda r, n: _gated_deltanet(r, n, fused=True),
    "qwen3_5_text": lambda r, n: _gated_deltanet(r, n, fused=False),
    "qwen3_5_moe_text": lambda r, n: _gated_deltanet(r, n, fused=False),
}
