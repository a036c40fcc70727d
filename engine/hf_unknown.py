"""A config.json whose ``model_type`` the engine does not know: what a Llama-style reading would miss is refused by
name, and experts are counted from their own fields.

``engine.hf_config`` reads an unknown model type as a Llama-style decoder (its note says so). That is only sound for
the fields a Llama-style reading covers, so two things are checked first:

* fields that mark layers such a reading would miss (:data:`UNCOSTABLE`: a sparse-attention indexer, sliding-window
  layers with their own head counts, value heads narrower than the queries and keys, state-space or linear-attention
  layers, hyper-connections, parallel blocks) refuse the import, naming the field;
* a mixture of experts is never costed as a dense MLP (issue 27: MiMo-V2-Flash came out at 16.1B parameters where its
  experts alone hold over 165B). Its routed experts are counted from the fields the MoE families transformers
  builds use for them (``engine.hf_families``: DeepSeek's ``n_routed_experts`` / ``first_k_dense_replace`` /
  ``moe_layer_freq`` / ``n_shared_experts``, Qwen's ``num_experts`` / ``decoder_sparse_step`` / ``mlp_only_layers``,
  Mixtral's ``num_local_experts``, ``num_experts_per_tok``, ``moe_intermediate_size``; Step's ``moe_num_experts`` /
  ``moe_top_k`` / ``moe_layers_enum``; a per-layer 0 / 1 ``moe_layer_freq`` list) when each of the count, the
  experts per token, the expert width, the shared experts and the routed layers is given by exactly one reading;
  otherwise it is refused, naming the fields that leave it open. A counted MoE is stored one module per expert
  (custom code, which transformers does not build, holds its experts as an ``nn.ModuleList``), with a note.
"""

from __future__ import annotations

from typing import Any, Protocol

from engine.layers import UnsupportedLayerError
from engine.specs import ExpertLora, ExpertStorage, MoESpec


class Reader(Protocol):
    """What this module reads of ``engine.hf_config.Reader`` (a protocol, so that the two modules need not import
    each other)."""

    cfg: dict[str, Any]
    source: str
    prefix: str

    def fail(self, key: str, why: str) -> ValueError: ...

    def whole(self, key: str, default: int | None = None, lo: int | None = None,
              layers: int | None = None) -> int: ...

    def int_list(self, key: str) -> list[int]: ...

#: fields of layers a Llama-style reading would miss -> what they are
UNCOSTABLE: dict[str, str] = {
    "index_topk": "a sparse-attention indexer",
    "index_n_heads": "a sparse-attention indexer",
    "sparse_attention_config": "sparse attention",
    "compress_ratios": "compressed sparse attention",
    "hybrid_layer_pattern": "layers of two attention kinds with their own head counts",
    "swa_num_key_value_heads": "sliding-window layers with their own head counts",
    "swa_num_attention_heads": "sliding-window layers with their own head counts",
    "swa_head_dim": "sliding-window layers with their own head width",
    "attention_other_setting": "layers with their own attention settings",
    "linear_attn_config": "linear-attention layers",
    "full_attn_idxs": "linear-attention layers beside the full-attention ones",
    "attn_type_list": "linear-attention layers beside the full-attention ones",
    "ssm_cfg": "state-space layers",
    "ssm_state_size": "state-space layers",
    "mamba_d_state": "state-space layers",
    "conv_kernel": "convolution layers",
    "hc_mult": "hyper-connections",
    "kv_lora_rank": "multi-head latent attention in a model type the engine does not know",
    "use_parallel_residual": "parallel attention and MLP blocks",
    "parallel_attn": "parallel attention and MLP blocks",
}
EXPERTS = ("n_routed_experts", "num_experts", "num_local_experts", "moe_num_experts")
PER_TOKEN = ("num_experts_per_tok", "moe_topk", "moe_top_k", "num_experts_per_token")
WIDTH = ("moe_intermediate_size",)
#: shared-expert widths whose meaning (one MLP of that width? several? gated?) differs between families: read only
#: where ``n_shared_experts`` x the expert width gives the same width (MiniMax-M3's 1 x 3,072, Step's 1 x 1,280)
OPEN_SHARED = ("shared_expert_intermediate_size", "shared_intermediate_size", "share_expert_dim",
               "moe_shared_expert_intermediate_size")
#: how the routed layers are placed: each reading and its fields
PLACEMENTS = (("first_k", ("first_k_dense_replace",)), ("qwen", ("decoder_sparse_step", "mlp_only_layers")),
              ("enum", ("moe_layers_enum",)), ("list", ("moe_layers",)))


def _stated(r: Reader, key: str) -> bool:
    """Whether the file (not a default) holds a value at ``key`` that says something (not null, false, 0 or empty)."""
    value = r.cfg.get(key)
    return value not in (None, False, 0, "", [], {})


def check(r: Reader, head_dim: int) -> None:
    """Refuse an unknown model type's config that holds a field of layers a Llama-style reading would miss."""
    for key, what in UNCOSTABLE.items():
        if _stated(r, key):
            raise UnsupportedLayerError(
                f"{r.source}: field {r.prefix + key!r}: {what}, which a model type the engine does not know cannot "
                "be read as (it is read as a Llama-style decoder); the engine cannot cost it yet")
    if _stated(r, "v_head_dim") and r.whole("v_head_dim") != head_dim:
        raise UnsupportedLayerError(
            f"{r.source}: field {r.prefix}'v_head_dim': value heads of their own width ({r.cfg['v_head_dim']}, the "
            f"queries and keys {head_dim}), which the engine cannot cost yet")


def _ambiguous(r: Reader, keys: list[str], why: str) -> UnsupportedLayerError:
    shown = ", ".join(repr(r.prefix + k) for k in keys)
    return UnsupportedLayerError(
        f"{r.source}: fields {shown}: {why}; an MoE model type the engine does not know is refused rather than "
        "costed as a dense model")


def _one(r: Reader, keys: tuple[str, ...], what: str) -> str | None:
    """The one field of ``keys`` the file states (several must agree), or None."""
    found = [k for k in keys if _stated(r, k)]
    if len({repr(r.cfg[k]) for k in found}) > 1:
        raise _ambiguous(r, found, f"they give different {what}")
    return found[0] if found else None


def is_moe(r: Reader) -> bool:
    """Whether the file describes experts at all (a count above zero, or any other expert field)."""
    signs = (*EXPERTS, *PER_TOKEN, *WIDTH, *OPEN_SHARED, "n_shared_experts", "moe_layer_freq",
             *(k for _, keys in PLACEMENTS for k in keys))
    return any(_stated(r, k) for k in signs)


def moe(r: Reader, n: int) -> tuple[MoESpec, list[bool], str]:
    """The experts of an unknown MoE model type, which layers are routed, and the note saying how they were read
    (module docstring); raises :class:`UnsupportedLayerError` when a part is left open."""
    experts = _one(r, EXPERTS, "expert counts")
    per_token = _one(r, PER_TOKEN, "experts per token")
    width = _one(r, WIDTH, "expert widths")
    missing = [what for what, key in (("the expert count", experts), ("the experts per token", per_token),
                                      ("the expert width (moe_intermediate_size)", width)) if key is None]
    if missing:
        raise _ambiguous(r, [k for k in (*EXPERTS, *PER_TOKEN, *WIDTH, "intermediate_size") if k in r.cfg],
                         "they do not give " + " and ".join(missing))
    assert width is not None
    shared_width = r.whole("n_shared_experts", default=0, lo=0) * r.whole(width)
    shared = [k for k in OPEN_SHARED if _stated(r, k) and r.cfg[k] != shared_width]
    if shared:
        raise _ambiguous(r, shared, "a shared expert whose form (gated or not, one MLP or several) the fields do "
                                    "not say")
    assert experts is not None
    assert per_token is not None
    routed, placement = _routed(r, n)
    spec = MoESpec(num_experts=r.whole(experts, lo=1), experts_per_token=r.whole(per_token, lo=1),
                   expert_intermediate_size=r.whole(width), shared_experts=r.whole("n_shared_experts", default=0, lo=0),
                   storage=ExpertStorage.PER_EXPERT, lora=ExpertLora.LINEAR,
                   first_dense_layers=routed.index(True) if any(routed) else 0)
    agreeing = [k for k in OPEN_SHARED if _stated(r, k)]
    used = ", ".join(k for k in (experts, per_token, width, "n_shared_experts", *agreeing, *placement) if k in r.cfg)
    note = (f"an MoE model type the engine does not know: its experts are counted from {used} (SwiGLU experts, one "
            "module per expert as custom code holds them, so LoRA all-linear adapts each expert's projections)")
    return spec, routed, note


def _routed(r: Reader, n: int) -> tuple[list[bool], tuple[str, ...]]:
    """Which layers hold routed experts, by the placements the file uses (several must agree), and their fields."""
    readings = [(name, keys) for name, keys in PLACEMENTS if any(_stated(r, k) for k in keys)]
    freq = r.cfg.get("moe_layer_freq")
    if isinstance(freq, list):
        readings.append(("freq", ("moe_layer_freq",)))
    if not readings:
        return [True] * n, ()
    placed = {tuple(_placement(r, n, name, freq)) for name, _ in readings}
    fields = tuple(k for _, keys in readings for k in keys if k in r.cfg)
    if len(placed) > 1:
        raise _ambiguous(r, list(fields), "they place the routed layers in different ways")
    return list(placed.pop()), fields


def _placement(r: Reader, n: int, name: str, freq: Any) -> list[bool]:
    """The routed layers by one placement (module docstring)."""
    if name == "first_k":
        first = r.whole("first_k_dense_replace", default=0, lo=0, layers=n)
        step = 1 if isinstance(freq, list) else r.whole("moe_layer_freq", default=1, lo=1, layers=n)
        return [i >= first and i % step == 0 for i in range(n)]
    if name == "qwen":
        step = r.whole("decoder_sparse_step", default=1, lo=1, layers=n)
        dense = set(r.int_list("mlp_only_layers"))
        return [i not in dense and (i + 1) % step == 0 for i in range(n)]
    if name == "freq":
        flags = r.int_list("moe_layer_freq")
        if len(flags) != n or set(flags) - {0, 1}:
            raise r.fail("moe_layer_freq", f"expected {n} entries of 0 or 1 (one per layer)")
        return [f == 1 for f in flags]
    if name == "enum":
        return _enum(r, n)
    layers = set(r.int_list("moe_layers"))
    return [i in layers for i in range(n)]


def _enum(r: Reader, n: int) -> list[bool]:
    """Step's ``moe_layers_enum``: the routed layers' indices, comma-separated (``"3,4,5"``)."""
    value: Any = r.cfg.get("moe_layers_enum")
    words = [w.strip() for w in str(value).split(",") if w.strip()]
    if not words or not all(w.isdigit() and int(w) < n for w in words):
        raise r.fail("moe_layers_enum", f"expected layer indices below {n}, comma-separated")
    routed = {int(w) for w in words}
    return [i in routed for i in range(n)]
