"""A Hugging Face config.json (as a dict) -> the fields of a ``ModelSpec``, its layer list included.

Every number is read as a finite whole number within the engine's bounds and every switch as a JSON boolean: a
string ``"4096"``, a bool where a number belongs, a list, ``"false"`` where a boolean belongs each stop the import
with one line naming the file and the field (:class:`ConfigFieldError`). Missing fields take the family's
transformers defaults (``engine.hf_families``). Multimodal wrappers (Gemma 3, Mistral 3, Llama 4) keep their
language model under ``text_config`` (Qwen2-VL and Qwen2.5-VL keep its fields at the top level, beside
``vision_config``): that is what is counted; the vision tower is reported apart.

The layer list follows each family's modeling file: ``layer_types`` (or the rule that computes it) for sliding
windows, and ``first_k_dense_replace`` (DeepSeek, GLM-4.5), ``decoder_sparse_step`` / ``mlp_only_layers``
(Qwen MoE), ``interleave_moe_layer_step`` (Llama 4) for which layers are routed.
"""

from __future__ import annotations

import json
import math
from typing import Any

from pydantic import ValidationError

from engine import hf_unknown
from engine.errors import first_error
from engine.hf_families import (
    ALIAS_NOTES,
    ALIASES,
    ATTENTION_LAYER_TYPES,
    FAMILIES,
    FLAT_WRAPPERS,
    LLAMA_DEFAULTS,
    REFUSED,
    REFUSED_LAYER_TYPES,
    WRAPPERS,
    Family,
)
from engine.layers import UnsupportedLayerError, group
from engine.specs import (
    AttentionSpec,
    ExpertStorage,
    LayerSpec,
    MLASpec,
    MlpSpec,
    ModelSpec,
    MoESpec,
    QkNorm,
    field_bounds,
)

#: the engine's bounds for each config field read (ModelSpec / MoESpec / MLASpec fields they land in)
_BOUNDS: dict[str, tuple[type[Any], str]] = {
    "vocab_size": (ModelSpec, "vocab_size"), "hidden_size": (ModelSpec, "hidden_size"),
    "num_hidden_layers": (ModelSpec, "num_layers"), "num_attention_heads": (ModelSpec, "num_heads"),
    "num_key_value_heads": (ModelSpec, "num_kv_heads"), "head_dim": (ModelSpec, "head_dim"),
    "intermediate_size": (ModelSpec, "intermediate_size"), "intermediate_size_mlp": (ModelSpec, "intermediate_size"),
    "max_position_embeddings": (ModelSpec, "max_position"), "sliding_window": (ModelSpec, "max_position"),
    "moe_intermediate_size": (MoESpec, "expert_intermediate_size"),
    "shared_expert_intermediate_size": (MoESpec, "expert_intermediate_size"),
    "shared_intermediate_size": (MoESpec, "expert_intermediate_size"),
    "num_experts": (MoESpec, "num_experts"), "num_local_experts": (MoESpec, "num_experts"),
    "n_routed_experts": (MoESpec, "num_experts"), "num_experts_per_tok": (MoESpec, "experts_per_token"),
    "n_shared_experts": (MoESpec, "shared_experts"), "kv_lora_rank": (MLASpec, "kv_lora_rank"),
    "q_lora_rank": (MLASpec, "q_lora_rank"), "qk_rope_head_dim": (MLASpec, "qk_rope_head_dim"),
    "qk_nope_head_dim": (MLASpec, "qk_nope_head_dim"), "v_head_dim": (MLASpec, "v_head_dim"),
}
_LAYER_INDEX_LIMIT = 1_024
#: sizes an unknown model_type must state (a known family takes transformers' defaults for them)
_CORE = frozenset({"vocab_size", "hidden_size", "num_hidden_layers", "num_attention_heads", "intermediate_size"})


class ConfigFieldError(ValueError):
    """A config value that cannot be used; the message names the file and the field."""


class Reader:
    """Validated access to one config dict: family defaults under the file's own values."""

    def __init__(self, cfg: dict[str, Any], family: Family, source: str, known: bool = True,
                 prefix: str = "") -> None:
        self.cfg, self.family, self.source = cfg, family, source
        self.known = known  # an unknown model_type takes no default for the core sizes
        self.prefix = prefix  # where cfg sits in the file ("text_config."), for the field names messages give

    def fail(self, key: str, why: str) -> ConfigFieldError:
        return ConfigFieldError(f"{self.source}: field {self.prefix + key!r}: {why}")

    def raw(self, key: str) -> Any:
        """The file's value (an explicit null included), else the family's default, else Llama's, else None."""
        if key in self.cfg:
            return self.cfg[key]
        if not self.known and key in _CORE:
            return None
        return self.family.defaults.get(key, LLAMA_DEFAULTS.get(key))

    def has(self, key: str) -> bool:
        return self.raw(key) is not None

    def whole(self, key: str, default: int | None = None, lo: int | None = None, layers: int | None = None) -> int:
        """A whole number within the engine's bounds for this field (``ConfigFieldError`` otherwise); ``layers``:
        a count of layers, at most the model's (``first_k_dense_replace``: 1,000 dense layers of 32 read as an
        MoE with no routed layer, issue 17)."""
        value = self.raw(key)
        if value is None:
            if default is None:
                why = "" if self.known else " (an unknown model_type has no default for it)"
                raise self.fail(key, "missing" + why)
            return default
        if isinstance(value, bool) or not isinstance(value, int):
            raise self.fail(key, f"expected a whole number, found {_shown(value)}")
        number = value
        low, high = _bounds(key)
        low = lo if lo is not None else low
        if (low is not None and number < low) or (high is not None and number > high):
            raise self.fail(key, f"{number:,} is outside the range the engine accepts ({low:,} to {high:,})"
                            if low is not None and high is not None else f"{number:,} is out of range")
        if layers is not None and number > layers:
            raise self.fail(key, f"{number:,} is more than the model's {layers:,} layers (num_hidden_layers)")
        return number

    def flag(self, key: str, default: bool = False) -> bool:
        """A JSON boolean (the string ``"false"`` is refused: it would read as true)."""
        value = self.raw(key)
        if value is None:
            return default
        if not isinstance(value, bool):
            raise self.fail(key, f"expected true or false, found {_shown(value)}")
        return value

    def number(self, key: str) -> float | None:
        """A finite number or None (soft-capping values and other switches that are numbers)."""
        value = self.raw(key)
        if value is None:
            return None
        if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
            raise self.fail(key, f"expected a number, found {_shown(value)}")
        return float(value)

    def int_list(self, key: str) -> list[int]:
        value = self.raw(key)
        if value is None:
            return []
        if not isinstance(value, list) or any(isinstance(v, bool) or not isinstance(v, int) for v in value):
            raise self.fail(key, f"expected a list of whole numbers, found {_shown(value)}")
        if any(v < 0 or v > _LAYER_INDEX_LIMIT for v in value):
            raise self.fail(key, "a layer index is out of range")
        return list(value)

    def str_list(self, key: str, n: int) -> list[str] | None:
        value = self.raw(key)
        if value is None:
            return None
        if not isinstance(value, list) or any(not isinstance(v, str) for v in value):
            raise self.fail(key, f"expected a list of strings, found {_shown(value)}")
        if len(value) != n:
            raise self.fail(key, f"{len(value)} entries for {n} layers (num_hidden_layers)")
        return list(value)


def _shown(value: Any) -> str:
    """A config value as the file spells it, kind first, cut short."""
    if isinstance(value, bool):
        return f"the boolean {str(value).lower()}"
    if isinstance(value, str):
        return f"the string {json.dumps(value[:40])}"
    if isinstance(value, float):
        return f"the number {json.dumps(value)[:40]}"  # 4096.0, as the file spells it
    if isinstance(value, list):
        return "a list"
    if isinstance(value, dict):
        return "an object"
    return repr(value)[:40]


def _bounds(key: str) -> tuple[int | None, int | None]:
    where = _BOUNDS.get(key)
    if where is None:
        return 0, None
    lo, hi = field_bounds(*where)
    return (None if lo is None else int(lo)), (None if hi is None else int(hi))


def language_config(cfg: dict[str, Any], source: str) -> tuple[dict[str, Any], str, bool]:
    """(the language model's config, its model_type, whether it sat under ``text_config``)."""
    outer = cfg.get("model_type")
    if outer is not None and not isinstance(outer, str):
        raise ConfigFieldError(f"{source}: field 'model_type': expected a string, found {_shown(outer)}")
    text = cfg.get("text_config")
    if text is None and outer in FLAT_WRAPPERS:  # Qwen2-VL's text fields sit at the top level
        return cfg, WRAPPERS[outer], True
    if text is None:
        return cfg, outer or "", False
    if not isinstance(text, dict):
        raise ConfigFieldError(f"{source}: field 'text_config': expected an object, found {_shown(text)}")
    inner = text.get("model_type") or WRAPPERS.get(outer or "", "")
    if not isinstance(inner, str):
        raise ConfigFieldError(f"{source}: field 'text_config.model_type': expected a string")
    merged = dict(text)
    if "tie_word_embeddings" not in merged and "tie_word_embeddings" in cfg:
        merged["tie_word_embeddings"] = cfg["tie_word_embeddings"]
    return merged, inner, True


def family_of(model_type: str, source: str) -> tuple[Family, list[str], bool]:
    """The family for a model_type (refused ones raise), the notes it needs, and whether it is known."""
    kind = ALIASES.get(model_type, model_type)
    if kind in REFUSED:
        raise UnsupportedLayerError(
            f"{source}: model_type {model_type!r} has {REFUSED[kind]}, which the engine cannot cost yet")
    family = FAMILIES.get(kind)
    if family is not None:
        alias = [ALIAS_NOTES[model_type]] if model_type in ALIAS_NOTES else []
        return family, [*alias, *family.notes], True
    shown = repr(model_type) if model_type else "none"
    return FAMILIES["llama"], [
        f"model_type {shown} is not one the engine knows: read as a Llama-style decoder (RMSNorm before "
        "attention and MLP, SwiGLU MLP, q/k/v/o without bias unless attention_bias says so, no q/k norm) with "
        "LlamaConfig's defaults for missing fields other than the sizes (transformers 5.24 configuration_llama.py)"
    ], False


def _windows(r: Reader, n: int) -> list[int | None]:
    """Each layer's sliding window (None: full attention), from layer_types or the family's rule."""
    types = r.str_list("layer_types", n)
    window = r.whole("sliding_window", lo=1) if r.has("sliding_window") else None
    if types is not None:
        for i, t in enumerate(types):
            if t in REFUSED_LAYER_TYPES:
                raise UnsupportedLayerError(
                    f"{r.source}: field 'layer_types': layer {i} is {REFUSED_LAYER_TYPES[t]}, "
                    "which the engine cannot cost yet")
            if t not in ATTENTION_LAYER_TYPES:
                raise r.fail("layer_types", f"layer {i} has an unknown kind {t[:40]!r}")
        return [window if t == "sliding_attention" else None for t in types]
    rule = r.family.sliding
    if window is None or rule == "none":
        return [None] * n
    if rule == "all":
        return [window] * n
    if rule == "qwen":
        on = r.flag("use_sliding_window")
        first = r.whole("max_window_layers", default=n, lo=0)
        return [window if on and i >= first else None for i in range(n)]
    period = _period(r) if rule == "pattern" else int(rule)
    return [None if period and (i + 1) % period == 0 else window for i in range(n)]


def _period(r: Reader) -> int:
    """Gemma 3's / EXAONE 4's sliding_window_pattern: a period (6), or a string such as "LLLG"."""
    value = r.raw("sliding_window_pattern")
    if isinstance(value, str) and value and set(value) <= {"L", "G"}:
        return len(value)
    return r.whole("sliding_window_pattern", lo=0)


def _qk_layers(r: Reader, n: int, qk: QkNorm) -> list[QkNorm]:
    """Each layer's q/k norm: Llama 4 applies its L2 norm only where RoPE is (``no_rope_layers[i] == 1``; by
    default every layer but each fourth: Llama4TextConfig ``no_rope_layer_interval``)."""
    if qk is not QkNorm.L2:
        return [qk] * n
    rope = r.int_list("no_rope_layers") or [int((i + 1) % 4 != 0) for i in range(n)]
    if len(rope) != n:
        raise r.fail("no_rope_layers", f"{len(rope)} entries for {n} layers (num_hidden_layers)")
    return [qk if rope[i] else QkNorm.NONE for i in range(n)]


def _routed(r: Reader, n: int) -> list[bool]:
    """Which layers hold routed experts (the family's rule, module docstring)."""
    rule = r.family.moe_layers
    if rule == "none":
        return [False] * n
    if rule == "all":
        return [True] * n
    if rule == "first_k":
        first = r.whole("first_k_dense_replace", default=0, lo=0, layers=n)
        freq = r.whole("moe_layer_freq", default=1, lo=1, layers=n)
        return [i >= first and i % freq == 0 for i in range(n)]
    if rule == "qwen":
        step = r.whole("decoder_sparse_step", default=1, lo=1, layers=n)
        dense = set(r.int_list("mlp_only_layers"))
        return [i not in dense and (i + 1) % step == 0 for i in range(n)]
    step = r.whole("interleave_moe_layer_step", default=1, lo=1, layers=n)  # Llama 4
    moe_layers = r.int_list("moe_layers")
    return [i in moe_layers for i in range(n)] if moe_layers else [(i + 1) % step == 0 for i in range(n)]


def _moe(r: Reader, dense_width: int) -> MoESpec | None:
    f = r.family
    experts_key = next((k for k in ("num_local_experts", "n_routed_experts", "num_experts") if r.has(k)), None)
    if experts_key is None or f.moe_layers == "none":
        return None
    experts = r.whole(experts_key, lo=0)
    if experts == 0:
        return None
    width_key = "moe_intermediate_size" if r.has("moe_intermediate_size") else "intermediate_size"
    width = r.whole(width_key)
    shared: dict[str, Any] = {}
    if f.shared == "deepseek":
        shared = {"shared_experts": r.whole("n_shared_experts", default=0, lo=0)}
    elif f.shared == "qwen2":
        size = r.whole("shared_expert_intermediate_size", default=0, lo=0)
        shared = {"shared_experts": 1, "shared_intermediate_size": size, "shared_expert_gate": True} if size else {}
    elif f.shared == "llama4":
        shared = {"shared_experts": 1, "shared_intermediate_size": dense_width}
    elif f.shared == "granite":
        size = r.whole("shared_intermediate_size", default=0, lo=0)
        shared = {"shared_experts": 1, "shared_intermediate_size": size} if size else {}
    try:
        return MoESpec(
            num_experts=experts, experts_per_token=r.whole("num_experts_per_tok"), expert_intermediate_size=width,
            router_bias=f.router_bias, expert_bias=f.expert_bias, storage=ExpertStorage.FUSED, lora=f.expert_lora,
            dense_dispatch=f.dense_dispatch,
            **shared,
        )
    except ValidationError as err:
        raise r.fail("num_experts_per_tok", first_error(err)[1]) from None


def _mla(r: Reader) -> MLASpec | None:
    if not r.family.mla:
        return None
    q_rank = r.whole("q_lora_rank") if r.has("q_lora_rank") else None  # null: queries projected directly (V2-Lite)
    return MLASpec(kv_lora_rank=r.whole("kv_lora_rank"), qk_rope_head_dim=r.whole("qk_rope_head_dim"),
                   qk_nope_head_dim=r.whole("qk_nope_head_dim"), v_head_dim=r.whole("v_head_dim"), q_lora_rank=q_rank)


def _partial_rotary(r: Reader, head_dim: int) -> bool:
    """RoPE on part of each head: ``partial_rotary_factor`` < 1 (at the top level or in ``rope_parameters`` /
    ``rope_scaling``), or MiniMax-M2's ``rotary_dim`` below the head width (modeling_*: ``q[..., :rotary_dim]``)."""
    factor = r.number("partial_rotary_factor")
    for key in ("rope_parameters", "rope_scaling"):
        inner = r.raw(key)
        if factor is None and isinstance(inner, dict) and inner.get("partial_rotary_factor") is not None:
            factor = Reader(inner, r.family, r.source, prefix=f"{r.prefix}{key}.").number("partial_rotary_factor")
    if factor is None and r.has("rotary_dim"):
        return r.whole("rotary_dim", lo=1) < head_dim
    return factor is not None and factor < 1


def _heads(r: Reader, hidden: int) -> tuple[int, int, int]:
    heads = r.whole("num_attention_heads")
    kv = r.whole("num_key_value_heads") if r.has("num_key_value_heads") else heads
    if heads % kv:
        raise r.fail("num_key_value_heads", f"num_attention_heads ({heads}) is not a multiple of it ({kv})")
    if r.has("head_dim"):
        return heads, kv, r.whole("head_dim")
    if hidden % heads:
        raise r.fail("num_attention_heads", f"hidden_size ({hidden}) is not divisible by it ({heads})")
    return heads, kv, hidden // heads


def layer_list(r: Reader, hidden: int, n: int) -> tuple[list[LayerSpec], dict[str, Any]]:
    """The decoder layers, one entry each, and the flat fields that summarise them."""
    f = r.family
    heads, kv, head_dim = _heads(r, hidden)
    for key, what in f.refused_switches:
        if r.flag(key):
            raise UnsupportedLayerError(
                f"{r.source}: field {r.prefix + key!r} is true: {what}, which the engine cannot cost yet")
    if not r.known:
        hf_unknown.check(r, head_dim)
    bias = r.flag("attention_bias")
    qkv_bias = f.qkv_bias if f.qkv_bias is not None else r.flag(f.qkv_bias_key)
    o_bias = f.o_bias if f.o_bias is not None else bias
    mla = _mla(r)
    qk = f.qk_norm if not f.qk_switch or r.flag("use_qk_norm") else QkNorm.NONE
    dense_width = r.whole("intermediate_size_mlp" if r.has("intermediate_size_mlp") else "intermediate_size")
    notes: list[str] = []
    moe: MoESpec | None
    if not r.known and hf_unknown.is_moe(r):  # never costed as a dense model (engine.hf_unknown)
        moe, routed, note = hf_unknown.moe(r, n)
        notes.append(note)
    else:
        moe = _moe(r, r.whole("intermediate_size") if f.shared == "llama4" else dense_width)
        routed = _routed(r, n) if moe is not None else [False] * n
    if f.shared == "granite" and moe is None:  # Granite 4 dense: the shared MLP is the MLP
        dense_width = r.whole("shared_intermediate_size")
    windows = _windows(r, n)
    qk_layers = _qk_layers(r, n, qk)
    partial = mla is None and _partial_rotary(r, head_dim)
    mlp_bias = r.flag("mlp_bias")
    softcap = r.number("attn_logit_softcapping") is not None
    layers = []
    for i in range(n):
        attention = AttentionSpec(
            num_heads=heads, num_kv_heads=kv, head_dim=head_dim, window=windows[i], qk_norm=qk_layers[i],
            sinks=f.sinks, partial_rotary=partial,
            qkv_bias=qkv_bias, o_bias=o_bias, fused_qkv=f.fused_qkv, softcap=softcap, mla=mla,
        )
        mlp = (MlpSpec(kind=f.mlp, bias=mlp_bias, fused_gate_up=f.fused_gate_up, moe=moe) if routed[i]
               else MlpSpec(kind=f.mlp, intermediate_size=dense_width, bias=mlp_bias, fused_gate_up=f.fused_gate_up))
        layers.append(LayerSpec(attention=attention, mlp=mlp, norms=f.norms))
    sliding = [w for w in windows if w is not None]
    flat = {
        "num_heads": heads, "num_kv_heads": kv, "head_dim": head_dim, "intermediate_size": dense_width,
        "qkv_bias": qkv_bias, "o_bias": o_bias, "mlp_bias": mlp_bias, "moe": moe, "mla": mla,
        "sliding_window": max(sliding) if sliding else None,
        "sliding_layers_fraction": len(sliding) / n if sliding else 1.0,
        "norms_per_layer": max(1, f.norms), "mlp": f.mlp, "attn_softcap": softcap, "fused_qkv": f.fused_qkv,
        "fused_gate_up": f.fused_gate_up, "notes": tuple(notes),
    }
    if moe is not None:
        flat["moe"] = moe.model_copy(update={"first_dense_layers": routed.index(True) if any(routed) else 0})
    return layers, flat


def spec_fields(cfg: dict[str, Any], name: str, source: str = "config.json",
                family: Family | None = None) -> dict[str, Any]:
    """ModelSpec fields (the layer list included) from a config dict (module docstring); ``family``: the one to
    read it with instead of its model_type's (``engine.hf_mixers`` reads a hybrid's attention stack so)."""
    language, model_type, wrapped = language_config(cfg, source)
    outer = cfg.get("model_type")
    if family is None and wrapped and isinstance(outer, str) and outer in REFUSED:
        family_of(outer, source)  # raises: the wrapper names a refused family
    family, notes, known = (family, [*family.notes], True) if family is not None else family_of(model_type, source)
    r = Reader(language, family, source, known, prefix="text_config." if "text_config" in cfg else "")
    gpt2 = model_type == "gpt2"
    hidden = r.whole("n_embd" if gpt2 and r.has("n_embd") else "hidden_size")
    n = r.whole("n_layer" if gpt2 and r.has("n_layer") else "num_hidden_layers")
    if gpt2:  # GPT-2's own names
        r.cfg = {**language, "num_attention_heads": language.get("n_head", language.get("num_attention_heads")),
                 "intermediate_size": language.get("n_inner") or 4 * hidden,
                 "max_position_embeddings": language.get("n_positions", language.get("max_position_embeddings")),
                 "mlp_bias": True}
    layers, flat = layer_list(r, hidden, n)
    notes += flat.pop("notes")
    tie = r.flag("tie_word_embeddings", default=False)
    return {
        "id": name, "name": name, "family": f"imported ({model_type or 'unknown'})",
        "vocab_size": r.whole("vocab_size"), "hidden_size": hidden, "num_layers": n,
        "max_position": r.whole("max_position_embeddings", default=4096),
        "tie_embeddings": tie, "norm": family.norm, "positions": family.positions,
        "logit_softcap": r.number("final_logit_softcapping") is not None,
        **flat,
        "layers": group(layers),
        "notes": tuple(notes),
    }
