"""Hugging Face configs of hybrid models: layers whose token mixer is not (only) softmax attention.

Each family's attention stack (its attention layers, MLPs and experts) is read by ``engine.hf_config`` with the
family's traits below; then every layer that the config's ``layer_types`` (or the family's rule) makes a gated
DeltaNet, Mamba or convolution layer gets that mixer instead (``engine.specs.Mixer``), read from the config's
fields with transformers 5.24's defaults (``models/<type>/configuration_<type>.py``, ``dataclasses.fields``).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import Any

from engine.hf_config import Reader, language_config
from engine.hf_config import spec_fields as attention_fields
from engine.hf_families import FAMILIES as BASE_FAMILIES
from engine.hf_families import REFUSED, Family
from engine.layers import expand, group
from engine.specs import (
    DeltaNetSpec,
    ExpertLora,
    LayerSpec,
    Mamba1Spec,
    Mamba2Spec,
    MlpKind,
    MlpSpec,
    MoESpec,
    NormKind,
    PositionKind,
    QkNorm,
    ShortConvSpec,
)

_LINEAR = {"linear_conv_kernel_dim": 4, "linear_key_head_dim": 128, "linear_value_head_dim": 128,
           "linear_num_key_heads": 16, "linear_num_value_heads": 32, "partial_rotary_factor": 0.25,
           "head_dim": 256, "full_attention_interval": 4}


#: Mamba-2 fields as BambaConfig / GraniteMoeHybridConfig name them, with their defaults
_MAMBA2 = {"mamba_n_heads": 128, "mamba_d_head": 64, "mamba_n_groups": 1, "mamba_d_state": 256, "mamba_d_conv": 4,
           "mamba_expand": 2, "mamba_chunk_size": 256, "mamba_conv_bias": True, "mamba_proj_bias": False}


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
    # Bamba: Llama-style layers, attention on attn_layer_indices with RoPE on half of each head, Mamba-2 elsewhere
    "bamba": Family({"vocab_size": 128000, "hidden_size": 4096, "intermediate_size": 14336, "num_hidden_layers": 32,
                     "num_attention_heads": 32, "num_key_value_heads": 8, "max_position_embeddings": 262144,
                     "partial_rotary_factor": 0.5, **_MAMBA2}, source=_src("bamba", "bamba")),
    # Granite 4.0-H: GraniteMoeHybrid's attention / MoE stack (engine.hf_families), Mamba-2 where layer_types says
    "granitemoehybrid": replace(BASE_FAMILIES["granitemoehybrid"],
                                defaults={**BASE_FAMILIES["granitemoehybrid"].defaults, **_MAMBA2,
                                          "mamba_d_head": "auto"}),
    # Nemotron-H / Nemotron 3: one norm and one block per layer (Mamba-2, attention without positions, a ReLU^2
    # MLP, or ReLU^2 experts with a shared expert); the norms apply their weight in fp32 (NemotronHRMSNorm)
    "nemotron_h": Family({"vocab_size": 131072, "hidden_size": 4096, "intermediate_size": 21504,
                          "num_attention_heads": 32, "num_key_value_heads": 8, "head_dim": 128,
                          "max_position_embeddings": 4096, "mamba_num_heads": 128, "mamba_head_dim": 64,
                          "ssm_state_size": 128, "n_groups": 8, "conv_kernel": 4, "use_conv_bias": True,
                          "use_bias": False, "chunk_size": 128, "n_routed_experts": 8, "num_experts_per_tok": 2,
                          "moe_intermediate_size": 7688, "moe_shared_expert_intermediate_size": 7688},
                         norm=NormKind.RMSNORM_FP32, norms=1, mlp=MlpKind.RELU2, positions=PositionKind.NONE,
                         source=_src("nemotron_h", "nemotron_h")),
    # Mamba-2 alone (Mamba2ForCausalLM: Mamba-Codestral): a norm and a mixer per layer
    "mamba2": Family({"vocab_size": 32768, "hidden_size": 4096, "num_hidden_layers": 64, "num_heads": 128,
                      "head_dim": 64, "state_size": 128, "n_groups": 8, "expand": 2, "conv_kernel": 4,
                      "use_bias": False, "use_conv_bias": True, "chunk_size": 256},
                     norms=1, source=_src("mamba2", "mamba2")),
    # Parallel attention / MLP blocks (module docstring of engine.training.saved.layer._parallel_shared)
    "gptj": Family({"vocab_size": 50400, "hidden_size": 4096, "num_hidden_layers": 28, "num_attention_heads": 16,
                    "max_position_embeddings": 2048, "rotary_dim": 64, "mlp_bias": True},
                   norm=NormKind.LAYERNORM, norms=1, mlp=MlpKind.PLAIN, qkv_bias=False, o_bias=False,
                   source=_src("gptj", "gptj")),
    "gpt_neox": Family({"vocab_size": 50432, "hidden_size": 6144, "intermediate_size": 24576,
                        "num_hidden_layers": 44, "num_attention_heads": 64, "max_position_embeddings": 2048,
                        "partial_rotary_factor": 0.25, "attention_bias": True, "use_parallel_residual": True,
                        "mlp_bias": True},
                       norm=NormKind.LAYERNORM, mlp=MlpKind.GELU, fused_qkv=True, source=_src("gpt_neox", "gpt_neox")),
    "phi": Family({"vocab_size": 51200, "hidden_size": 2048, "intermediate_size": 8192, "num_hidden_layers": 24,
                   "num_attention_heads": 32, "max_position_embeddings": 2048, "partial_rotary_factor": 0.5,
                   "mlp_bias": True},
                  norm=NormKind.LAYERNORM, norms=1, mlp=MlpKind.PLAIN, qkv_bias=True, o_bias=True,
                  source=_src("phi", "phi")),
    # Cohere (Command R, Aya 23 / Expanse): one CohereLayerNorm (NormKind.CENTRED_FP32) feeding attention and a
    # SwiGLU MLP side by side; RoPE on interleaved pairs, in fp32 (no tensor kept)
    "cohere": Family({"vocab_size": 256000, "hidden_size": 8192, "intermediate_size": 22528, "num_hidden_layers": 40,
                      "num_attention_heads": 64, "max_position_embeddings": 8192, "tie_word_embeddings": True,
                      "use_qk_norm": False},
                     norm=NormKind.CENTRED_FP32, norms=1,
                     refused_switches=(("use_qk_norm", "LayerNorms on q and k with a weight per head "
                                                       "(Command R+)"),),
                     source=_src("cohere", "cohere")),
    # Mamba-1: Jamba (attention every attn_layer_period-th layer from attn_layer_offset, experts every
    # expert_layer_period-th from expert_layer_offset, Mamba with dt / B / C RMSNorms elsewhere), Mamba alone
    "jamba": Family({"vocab_size": 65536, "hidden_size": 4096, "intermediate_size": 14336, "num_hidden_layers": 32,
                     "num_attention_heads": 32, "num_key_value_heads": 8, "max_position_embeddings": 262144,
                     "num_experts": 16, "num_experts_per_tok": 2, "expert_layer_period": 2, "expert_layer_offset": 1,
                     "attn_layer_period": 8, "attn_layer_offset": 4, "mamba_d_state": 16, "mamba_d_conv": 4,
                     "mamba_expand": 2, "mamba_dt_rank": "auto", "mamba_conv_bias": True, "mamba_proj_bias": False},
                    positions=PositionKind.NONE, source=_src("jamba", "jamba")),
    "mamba": Family({"vocab_size": 50280, "hidden_size": 768, "num_hidden_layers": 32, "state_size": 16,
                     "expand": 2, "conv_kernel": 4, "time_step_rank": "auto", "use_bias": False,
                     "use_conv_bias": True, "tie_word_embeddings": True}, norms=1, source=_src("mamba", "mamba")),
    # Kimi Linear: MLA without positions for its full-attention layers, KDA elsewhere, DeepSeek-style experts after
    # its first dense layer (their router a parameter, not a linear)
    "kimi_linear": Family({"vocab_size": 163840, "hidden_size": 2304, "intermediate_size": 9216,
                           "moe_intermediate_size": 1024, "num_hidden_layers": 27, "num_attention_heads": 32,
                           "num_key_value_heads": 32, "n_shared_experts": 1, "kv_lora_rank": 512,
                           "q_lora_rank": None, "qk_rope_head_dim": 64, "v_head_dim": 128, "qk_nope_head_dim": 128,
                           "num_experts_per_tok": 8, "max_position_embeddings": 1048576, "num_local_experts": 256,
                           "first_k_dense_replace": 1, "linear_head_dim": 128, "linear_num_heads": 32,
                           "linear_conv_kernel_dim": 4},
                          mla=True, moe_layers="first_k", shared="deepseek", expert_lora=ExpertLora.NONE,
                          positions=PositionKind.NONE, source=_src("kimi_linear", "kimi_linear")),
    # LFM2: attention (q / k RMSNorms per head) on layer_types' full_attention layers, a gated short convolution
    # elsewhere; a SwiGLU MLP of 2/3 x block_ff_dim rounded as Lfm2MLP does
    "lfm2": Family({"vocab_size": 65536, "hidden_size": 2560, "intermediate_size": 12288, "num_hidden_layers": 32,
                    "num_attention_heads": 32, "num_key_value_heads": 8, "max_position_embeddings": 128000,
                    "tie_word_embeddings": True, "conv_bias": False, "conv_L_cache": 3},
                   qk_norm=QkNorm.HEAD, source=_src("lfm2", "lfm2")),
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
    """Whether a config dict is one of the hybrid families here (top level or under ``text_config``); a wrapper the
    engine refuses by name (Kimi K3 around a kimi_linear text model) is not: ``engine.hf_config`` refuses it."""
    outer = cfg.get("model_type")
    text = cfg.get("text_config")
    inner = text.get("model_type") if isinstance(text, dict) else None
    if not isinstance(outer, str) or outer in REFUSED:  # a malformed model_type is engine.hf_config's to say
        return isinstance(inner, str) and outer is None and inner in FAMILIES
    return outer in FAMILIES or outer in WRAPPERS or (isinstance(inner, str) and inner in FAMILIES)


def spec_fields(cfg: dict[str, Any], name: str, source: str = "config.json") -> dict[str, Any]:
    """ModelSpec fields of a hybrid model's config (module docstring)."""
    cfg = _named(cfg)
    language, model_type, _ = language_config(cfg, source)
    family = FAMILIES[model_type]
    r = Reader(language, family, f"{source} (text_config)" if "text_config" in cfg else source)
    fields = (_OWN_LAYERS[model_type](cfg, language, r, name, source) if model_type in _OWN_LAYERS
              else _stacked(cfg, language, model_type, r, name=name, source=source))
    fields["notes"] = (*fields.get("notes", ()), *_mtp_note(r))
    return fields


def _stacked(cfg: dict[str, Any], language: dict[str, Any], model_type: str, r: Reader, *, name: str,
             source: str) -> dict[str, Any]:
    """A hybrid read as its family's attention stack, each mixer layer given its mixer (module docstring)."""
    family = r.family
    n = r.whole("num_hidden_layers")
    if model_type in _RENAMED:  # the family's own spellings (attribute_map), as the attention stack reads them
        language = {_RENAMED[model_type].get(k, k): v for k, v in language.items()}
        r = Reader(language, family, r.source)
    kinds, mixer = _BUILDERS[model_type](r, n)
    if model_type == "lfm2":
        language = _lfm2_language(language, family, source)
    fields = attention_fields(_replace_language(cfg, _attention_only(language, n)), name, source, family=family)
    gate = model_type in GATED_ATTENTION
    layers = [_with_mixer(layer, kind, mixer, gate) for layer, kind in zip(expand(fields["layers"]), kinds,
                                                                             strict=True)]
    fields["layers"] = group(layers)
    fields["family"] = f"imported ({model_type})"
    if model_type == "granitemoehybrid" and r.raw("position_embedding_type") == "nope":
        fields["positions"] = PositionKind.NONE
    return fields


#: the fields that count a checkpoint's multi-token-prediction layers (Qwen3.5 / Qwen3-Next, Nemotron 3)
_MTP = ("mtp_num_hidden_layers", "num_nextn_predict_layers")


def _mtp_note(r: Reader) -> tuple[str, ...]:
    """A note for the multi-token-prediction layers a checkpoint holds beside its decoder: transformers 5.24 builds
    none of them (its *ForCausalLM drops their weights on load: ``_keys_to_ignore_on_load_unexpected = [r"^mtp.*"]``)
    and a fine-tune does not run them, so they are not counted."""
    for key in _MTP:
        value = r.raw(key)
        if isinstance(value, int) and not isinstance(value, bool) and value > 0:
            return (f"its {value} multi-token-prediction layer(s) ({key}) are not counted: transformers 5.24 "
                    "loads the checkpoint without them and fine-tuning does not run them",)
    return ()


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


def _mamba2_spec(r: Reader, hidden: int, **fixed: Any) -> Mamba2Spec:
    """A Mamba-2 mixer from the ``mamba_*`` fields (Bamba, Granite 4.0-H): in_proj's and out_proj's bias from
    ``mamba_proj_bias``; the kernel runs heads x head_dim channels, which must be ``mamba_expand x hidden_size``
    (transformers sizes in_proj and the convolution by the latter, mamba-ssm's kernel by the former)."""
    heads, head_dim = r.whole("mamba_n_heads", lo=1), r.whole("mamba_d_head", lo=1)
    expand = r.number("mamba_expand")
    if expand is None or int(expand * hidden) != heads * head_dim:
        raise r.fail("mamba_n_heads", f"{heads} heads x {head_dim} (mamba_d_head) is not mamba_expand ({expand}) x "
                                      f"hidden_size ({hidden}): mamba-ssm's kernel cannot run this layer")
    bias = r.flag("mamba_proj_bias")
    return Mamba2Spec(kind="mamba2", num_heads=heads, head_dim=head_dim, state_size=r.whole("mamba_d_state", lo=1),
                      groups=r.whole("mamba_n_groups", lo=1), conv_kernel=r.whole("mamba_d_conv", lo=1),
                      conv_bias=r.flag("mamba_conv_bias"), in_bias=bias, out_bias=bias,
                      chunk_size=r.whole("mamba_chunk_size", lo=1), **fixed)


def _granite(r: Reader, n: int) -> tuple[list[str], Mamba2Spec]:
    """Granite 4.0-H (GraniteMoeHybridConfig): ``layer_types`` of "mamba" / "attention" (transformers 5.24 also
    spells them "linear_attention" / "full_attention"); every layer Mamba-2 when it has none; ``mamba_d_head``
    "auto" is mamba_expand x hidden / heads."""
    types = r.str_list("layer_types", n) or ["mamba"] * n
    mamba, attention = {"mamba", "linear_attention"}, {"attention", "full_attention"}
    for i, t in enumerate(types):
        if t not in mamba | attention:
            raise r.fail("layer_types", f"layer {i} has an unknown kind {t[:40]!r}")
    hidden = r.whole("hidden_size")
    if r.raw("mamba_d_head") == "auto":
        expand_by = r.number("mamba_expand") or 0
        r = Reader({**r.cfg, "mamba_d_head": int(expand_by * hidden) // r.whole("mamba_n_heads", lo=1)}, r.family,
                   r.source)
    return ["mamba2" if t in mamba else "attention" for t in types], _mamba2_spec(r, hidden)


def _bamba(r: Reader, n: int) -> tuple[list[str], Mamba2Spec]:
    """Bamba: attention on ``attn_layer_indices`` (BambaConfig.layers_block_type), Mamba-2 elsewhere."""
    attention = set(r.int_list("attn_layer_indices"))
    return ["attention" if i in attention else "mamba2" for i in range(n)], _mamba2_spec(r, r.whole("hidden_size"))


def _nemotron_kinds(r: Reader) -> list[str]:
    """NemotronHConfig's layers: ``layers_block_type`` (or ``layer_types``) of linear_attention (Mamba-2, or
    "mamba" in older files), full_attention ("attention"), mlp, moe; or ``hybrid_override_pattern``'s letters M, *,
    -, E (configuration_nemotron_h.py ``_pattern_to_list``); with neither, the class default (Mamba, MoE,
    attention, MLP); it decides the layer count."""
    legacy = {"mamba": "linear_attention", "attention": "full_attention"}
    letters = {"M": "linear_attention", "*": "full_attention", "-": "mlp", "E": "moe"}
    types: list[str] = []
    for key in ("layers_block_type", "layer_types"):
        value = r.raw(key)
        if value is not None:
            if not isinstance(value, list) or not all(isinstance(v, str) for v in value) or not value:
                raise r.fail(key, "expected a list of layer kinds")
            types = [str(legacy.get(v, v)) for v in value]
            break
    else:
        pattern = r.raw("hybrid_override_pattern")
        if pattern is None:  # NemotronHConfig.__post_init__'s default stack
            return ["linear_attention", "moe", "full_attention", "mlp"]
        if not isinstance(pattern, str) or not pattern or set(pattern) - set(letters):
            raise r.fail("hybrid_override_pattern", "expected a string of M, *, - and E (one letter a layer)")
        types = [letters[ch] for ch in pattern]
    for i, t in enumerate(types):
        if t not in letters.values():
            raise r.fail("layers_block_type", f"layer {i} has an unknown kind {t[:40]!r}")
    return types


def _nemotron_h(cfg: dict[str, Any], language: dict[str, Any], r: Reader, name: str, source: str) -> dict[str, Any]:
    """Nemotron-H / Nemotron 3 (NemotronHBlock: one RMSNorm and one mixer a layer). PEFT 0.21 refuses LoRA on a
    nemotron_h out_proj or conv1d (``_check_lora_target_modules_mamba``): all-linear here is every other linear.
    The MoE's router is an fp32 parameter, not a linear (PEFT leaves it), its experts non-gated ReLU^2 in
    ``moe_latent_size`` when given; the shared expert a ReLU^2 MLP of ``moe_shared_expert_intermediate_size``."""
    types = _nemotron_kinds(r)
    n = len(types)
    stack = {**language, "num_hidden_layers": n, "layer_types": ["full_attention"] * n}
    fields = attention_fields(stack, name, source, family=r.family)
    attention = expand(fields["layers"])[0].attn.model_copy(update={"qkv_bias": False, "o_bias": False})
    mlp_bias = r.flag("mlp_bias")
    dense = MlpSpec(kind=MlpKind.RELU2, intermediate_size=r.whole("intermediate_size", lo=1), bias=mlp_bias)
    heads, head_dim = r.whole("mamba_num_heads", lo=1), r.whole("mamba_head_dim", lo=1)
    bias = r.flag("use_bias")
    mixer = Mamba2Spec(kind="mamba2", num_heads=heads, head_dim=head_dim, state_size=r.whole("ssm_state_size", lo=1),
                       groups=r.whole("mamba_n_groups" if r.has("mamba_n_groups") else "n_groups", lo=1),
                       conv_kernel=r.whole("mamba_d_conv" if r.has("mamba_d_conv") else "conv_kernel", lo=1),
                       conv_bias=r.flag("mamba_conv_bias" if r.has("mamba_conv_bias") else "use_conv_bias"),
                       in_bias=bias, out_bias=bias,
                       chunk_size=r.whole("mamba_chunk_size" if r.has("mamba_chunk_size") else "chunk_size", lo=1),
                       lora_out_proj=False)
    moe = None
    if "moe" in types:
        latent = r.whole("moe_latent_size", lo=1) if r.has("moe_latent_size") else None
        moe = MoESpec(num_experts=r.whole("n_routed_experts", lo=1), experts_per_token=r.whole("num_experts_per_tok"),
                      expert_intermediate_size=r.whole("moe_intermediate_size", lo=1), shared_experts=1,
                      shared_intermediate_size=r.whole("moe_shared_expert_intermediate_size", lo=1),
                      lora=ExpertLora.NONE, latent_size=latent)
    by_kind = {"linear_attention": LayerSpec(mixer=mixer, norms=1), "full_attention": LayerSpec(attention=attention,
                                                                                                norms=1),
               "mlp": LayerSpec(mlp=dense, norms=1),
               "moe": LayerSpec(mlp=MlpSpec(kind=MlpKind.RELU2, bias=mlp_bias, moe=moe), norms=1) if moe else None}
    layers = [by_kind[t] for t in types]
    fields.update(num_layers=n, layers=group([x for x in layers if x is not None]), moe=moe,
                  family="imported (nemotron_h)", norms_per_layer=1, intermediate_size=dense.intermediate_size,
                  notes=(*fields["notes"], "PEFT 0.21 refuses LoRA on a nemotron_h out_proj: all-linear counts every "
                                           "other linear (a target list that runs)"))
    return fields


def _mamba2_only(cfg: dict[str, Any], language: dict[str, Any], r: Reader, name: str, source: str) -> dict[str, Any]:
    """Mamba2ForCausalLM: every layer a norm and a Mamba-2 mixer; no attention (PEFT 0.21 refuses a mamba2
    out_proj, as nemotron_h's)."""
    hidden = r.whole("hidden_size")
    heads, head_dim = r.whole("num_heads", lo=1), r.whole("head_dim", lo=1)
    expand_by = r.number("expand") or 0
    if int(expand_by * hidden) != heads * head_dim:
        raise r.fail("num_heads", f"{heads} heads x {head_dim} (head_dim) is not expand ({expand_by}) x hidden_size "
                                  f"({hidden}): mamba-ssm's kernel cannot run this layer")
    bias = r.flag("use_bias")
    mixer = Mamba2Spec(kind="mamba2", num_heads=heads, head_dim=head_dim, state_size=r.whole("state_size", lo=1),
                       groups=r.whole("n_groups", lo=1), conv_kernel=r.whole("conv_kernel", lo=1),
                       conv_bias=r.flag("use_conv_bias"), in_bias=bias, out_bias=bias,
                       chunk_size=r.whole("chunk_size", lo=1), lora_out_proj=False)
    return _attention_free(r, name, "mamba2", LayerSpec(mixer=mixer, norms=1),
                           residual_fp32=r.flag("residual_in_fp32", True),
                           notes=("PEFT 0.21 refuses LoRA on a mamba2 out_proj: all-linear counts every other linear",))


def _attention_free(r: Reader, name: str, model_type: str, layer: LayerSpec, *, residual_fp32: bool,
                    notes: tuple[str, ...]) -> dict[str, Any]:
    """ModelSpec fields of a model without attention: its flat attention fields are placeholders (one head of the
    hidden width), which no layer reads."""
    hidden, n = r.whole("hidden_size"), r.whole("num_hidden_layers")
    return {"id": name, "name": name, "family": f"imported ({model_type})", "vocab_size": r.whole("vocab_size"),
            "hidden_size": hidden, "num_layers": n, "num_heads": 1, "num_kv_heads": 1, "head_dim": hidden,
            "intermediate_size": 1, "max_position": 4_096, "tie_embeddings": r.flag("tie_word_embeddings"),
            "norm": r.family.norm, "positions": PositionKind.NONE, "norms_per_layer": 1,
            "layers": group([layer] * n), "residual_fp32": residual_fp32, "notes": notes}


#: config keys of the parallel families, as the attention stack's reader names them (GPTJConfig's GPT-2 names;
#: GPTNeoXConfig's rotary_pct)
_RENAMED = {"gptj": {"n_embd": "hidden_size", "n_layer": "num_hidden_layers", "n_head": "num_attention_heads",
                     "n_positions": "max_position_embeddings", "n_inner": "intermediate_size"},
            "gpt_neox": {"rotary_pct": "partial_rotary_factor"},
            # KimiLinearConfig.attribute_map: its checkpoints' names for the experts and positions
            "kimi_linear": {"num_experts_per_token": "num_experts_per_tok", "num_shared_experts": "n_shared_experts",
                            "num_experts": "num_local_experts", "model_max_length": "max_position_embeddings",
                            "num_expert_group": "n_group", "moe_renormalize": "norm_topk_prob"}}
#: the families whose output layer has a bias (GPTJForCausalLM, PhiForCausalLM: nn.Linear(h, V))
_HEAD_BIAS = frozenset({"gptj", "phi"})


def _parallel(cfg: dict[str, Any], language: dict[str, Any], r: Reader, name: str, source: str) -> dict[str, Any]:
    """GPT-J, GPT-NeoX / Pythia, Phi-1 / 1.5 / 2, Cohere: attention and MLP side by side on one residual. GPT-J,
    Phi and Cohere read one norm's output; GPT-NeoX two LayerNorms of the same input, or runs them one after the
    other when ``use_parallel_residual`` is false (RedPajama-INCITE), a sequential layer. GPT-J's MLP is 4 x
    hidden unless ``n_inner``; its RoPE covers ``rotary_dim`` of each head."""
    model_type = str(language.get("model_type"))
    renamed = {_RENAMED.get(model_type, {}).get(k, k): v for k, v in language.items()}
    if model_type in ("gptj", "gpt_neox"):  # multi-head attention of hidden / heads (GPTNeoXAttention.head_size)
        renamed = {k: v for k, v in renamed.items() if k not in ("num_key_value_heads", "head_dim")}
    if model_type == "gptj":
        hidden = Reader(renamed, r.family, r.source).whole("hidden_size")
        if renamed.get("intermediate_size") is None:
            renamed["intermediate_size"] = 4 * hidden
    fields = attention_fields(renamed, name, source, family=r.family)
    parallel = model_type != "gpt_neox" or Reader(renamed, r.family, r.source).flag("use_parallel_residual")
    layers = [LayerSpec(attention=x.attention, mlp=x.mlp, norms=x.norms, parallel=parallel)
              for x in expand(fields["layers"])]
    fields.update(layers=group(layers), lm_head_bias=model_type in _HEAD_BIAS, family=f"imported ({model_type})")
    return fields


def _rank(r: Reader, key: str, hidden: int) -> int:
    """A Mamba dt rank: a number, or "auto" = ceil(hidden / 16) (JambaConfig / MambaConfig.__post_init__)."""
    return -(-hidden // 16) if r.raw(key) == "auto" else r.whole(key, lo=1)


def _jamba(cfg: dict[str, Any], language: dict[str, Any], r: Reader, name: str, source: str) -> dict[str, Any]:
    """Jamba (JambaConfig.layers_block_type / layers_num_experts): attention where i % attn_layer_period ==
    attn_layer_offset, Mamba elsewhere; experts where i % expert_layer_period == expert_layer_offset (a
    ``num_experts``-way top-k MoE of the dense width, its router a parameter PEFT leaves), a dense MLP elsewhere.
    Attention has no positions (JambaAttention applies no RoPE); Mamba runs its pieces apart
    (``Mamba1Spec.fused`` false)."""
    n, hidden = r.whole("num_hidden_layers"), r.whole("hidden_size")
    fields = attention_fields({**language, "layer_types": ["full_attention"] * n}, name, source, family=r.family)
    period, offset = r.whole("attn_layer_period", lo=1), r.whole("attn_layer_offset")
    e_period, e_offset = r.whole("expert_layer_period", lo=1), r.whole("expert_layer_offset")
    bias = r.flag("mamba_proj_bias")
    mixer = Mamba1Spec(kind="mamba1", inner=int((r.number("mamba_expand") or 0) * hidden),
                       state_size=r.whole("mamba_d_state", lo=1), dt_rank=_rank(r, "mamba_dt_rank", hidden),
                       conv_kernel=r.whole("mamba_d_conv", lo=1), conv_bias=r.flag("mamba_conv_bias"),
                       in_bias=bias, out_bias=bias, dt_norms=True, fused=False)
    experts = r.whole("num_experts", lo=1)
    dense = expand(fields["layers"])[0]
    moe = MlpSpec(moe=MoESpec(num_experts=experts, experts_per_token=r.whole("num_experts_per_tok", lo=1),
                              expert_intermediate_size=r.whole("intermediate_size"), lora=ExpertLora.NONE,
                              )) if experts > 1 else dense.ffn
    layers = [LayerSpec(attention=dense.attention if i % period == offset else None,
                        mixer=None if i % period == offset else mixer,
                        mlp=moe if i % e_period == e_offset else dense.ffn, norms=2) for i in range(n)]
    fields.update(layers=group(layers), family="imported (jamba)",
                  moe=moe.moe if experts > 1 else None, positions=PositionKind.NONE)
    return fields


def _mamba_only(cfg: dict[str, Any], language: dict[str, Any], r: Reader, name: str, source: str) -> dict[str, Any]:
    """MambaForCausalLM: a norm and a Mamba mixer a layer, run by ``mamba_inner_fn`` in training (PEFT 0.21 refuses a
    mamba out_proj)."""
    hidden = r.whole("hidden_size")
    bias = r.flag("use_bias")
    inner = int((r.number("expand") or 0) * hidden)  # MambaConfig.intermediate_size
    mixer = Mamba1Spec(kind="mamba1", inner=inner, state_size=r.whole("state_size", lo=1),
                       dt_rank=_rank(r, "time_step_rank", hidden), conv_kernel=r.whole("conv_kernel", lo=1),
                       conv_bias=r.flag("use_conv_bias"), in_bias=bias, out_bias=bias, lora_out_proj=False)
    return _attention_free(r, name, "mamba", LayerSpec(mixer=mixer, norms=1),
                           residual_fp32=r.flag("residual_in_fp32", True),
                           notes=("PEFT 0.21 refuses LoRA on a mamba out_proj: all-linear counts every other linear; "
                                  "mamba_inner_fn runs x_proj and dt_proj on their weights, so their adapters get no "
                                  "gradient",))


_OWN_LAYERS: dict[str, Callable[[dict[str, Any], dict[str, Any], Reader, str, str], dict[str, Any]]] = {
    "nemotron_h": _nemotron_h, "mamba2": _mamba2_only, "gptj": _parallel, "gpt_neox": _parallel, "phi": _parallel,
    "cohere": _parallel,
    "jamba": _jamba, "mamba": _mamba_only,
}

def _kda(r: Reader, n: int) -> tuple[list[str], DeltaNetSpec]:
    """Kimi Linear (KimiLinearConfig.__post_init__): ``layer_types``; else ``linear_attn_config``'s 1-indexed
    ``kda_layers`` / ``full_attn_layers``; else every fourth layer from 4 full. Its sizes from linear_num_heads /
    linear_head_dim / linear_conv_kernel_dim, or linear_attn_config's num_heads / head_dim / short_conv_kernel_size."""
    nested = r.raw("linear_attn_config")
    inner = Reader(nested if isinstance(nested, dict) else {}, r.family, r.source)
    heads = inner.whole("num_heads", lo=1) if inner.has("num_heads") else r.whole("linear_num_heads", lo=1)
    dim = inner.whole("head_dim", lo=1) if inner.has("head_dim") else r.whole("linear_head_dim", lo=1)
    kernel = (inner.whole("short_conv_kernel_size", lo=1) if inner.has("short_conv_kernel_size")
              else r.whole("linear_conv_kernel_dim", lo=1))
    types = r.str_list("layer_types", n)
    if types is None and isinstance(nested, dict) and "kda_layers" in nested and "full_attn_layers" in nested:
        full = {i - 1 for i in inner.int_list("full_attn_layers")}
        types = ["full_attention" if i in full else "linear_attention" for i in range(n)]
    if types is None:
        types = ["full_attention" if i and i % 4 == 0 else "linear_attention" for i in range(n)]
    mixer = DeltaNetSpec(kind="kda", num_k_heads=heads, num_v_heads=heads, head_k_dim=dim, head_v_dim=dim,
                         conv_kernel=kernel)
    return ["attention" if t == "full_attention" else "kda" for t in types], mixer


def _lfm2_language(language: dict[str, Any], family: Family, source: str) -> dict[str, Any]:
    """LFM2's config as the attention stack's reader takes it: its MLP width as Lfm2MLP computes it (2/3 of
    block_ff_dim / intermediate_size, times block_ffn_dim_multiplier, up to a multiple of block_multiple_of, when
    block_auto_adjust_ff_dim), tie_embedding's old name."""
    r = Reader(language, family, source)
    width = language.get("block_ff_dim", language.get("intermediate_size", family.defaults["intermediate_size"]))
    out = {**language, "intermediate_size": width}
    if "tie_embedding" in language:
        out["tie_word_embeddings"] = language["tie_embedding"]
    if r.flag("block_auto_adjust_ff_dim", True):
        width = int(2 * Reader(out, family, source).whole("intermediate_size") / 3)
        multiplier = r.number("block_ffn_dim_multiplier") if r.has("block_ffn_dim_multiplier") else 1.0
        if multiplier is not None:
            of = r.whole("block_multiple_of", default=256, lo=1)
            width = of * ((int(multiplier * width) + of - 1) // of)
        out["intermediate_size"] = width
    return out


def _short_conv(r: Reader, n: int) -> tuple[list[str], ShortConvSpec]:
    """LFM2 (Lfm2Config.__post_init__): ``layer_types`` of conv / full_attention, else attention on full_attn_idxs
    (every layer when neither is given)."""
    types = r.str_list("layer_types", n)
    if types is None:
        full = set(r.int_list("full_attn_idxs")) if r.has("full_attn_idxs") else set(range(n))
        types = ["full_attention" if i in full else "conv" for i in range(n)]
    for i, t in enumerate(types):
        if t not in ("full_attention", "conv"):
            raise r.fail("layer_types", f"layer {i} has an unknown kind {t[:40]!r}")
    mixer = ShortConvSpec(kind="short-conv", conv_kernel=r.whole("conv_L_cache", lo=1), bias=r.flag("conv_bias"))
    return ["attention" if t == "full_attention" else "short-conv" for t in types], mixer


_BUILDERS: dict[str, Callable[[Reader, int], tuple[list[str], Any]]] = {
    "lfm2": _short_conv,
    "kimi_linear": _kda,
    "bamba": _bamba,
    "granitemoehybrid": _granite,
    "qwen3_next": lambda r, n: _gated_deltanet(r, n, fused=True),
    "qwen3_5_text": lambda r, n: _gated_deltanet(r, n, fused=False),
    "qwen3_5_moe_text": lambda r, n: _gated_deltanet(r, n, fused=False),
}
