"""A model_type the engine does not know (engine/hf_unknown.py): no MoE is costed as a dense model (issue 27), layers a
Llama-style reading would miss are refused by the field that holds them, and experts are counted from their fields.

Checked over the three models issue 27 found costed as dense (tests/engine/data/configs/SOURCES.md) and over every
MoE of the catalog, written as a config of a model type the engine does not know."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from engine.catalog import models
from engine.hf_config import Reader
from engine.hf_families import FAMILIES
from engine.hf_import import ConfigImportError, RefusedLayerError, load_config, spec_from_config
from engine.hf_unknown import moe
from engine.layers import expand, runs
from engine.params import count_params, mlp_linears
from engine.specs import MlpKind, ModelSpec

CONFIGS = Path(__file__).parent / "data" / "configs"


def _config(name: str) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((CONFIGS / f"{name}.json").read_text(encoding="utf-8"))
    return data


def _unknown(cfg: dict[str, Any]) -> dict[str, Any]:
    """The language model's fields under a model_type nobody knows."""
    text = dict(cfg.get("text_config", cfg))
    return {**text, "model_type": "not_a_known_type"}


def _routed_expert_params(cfg: dict[str, Any]) -> int:
    """The routed experts' parameters as the engine reads them from the fields (engine.hf_unknown.moe)."""
    n = cfg["num_hidden_layers"]
    spec, routed, _ = moe(Reader(cfg, FAMILIES["llama"], "config.json", known=False), n)
    return int(sum(routed) * spec.num_experts * 3 * cfg["hidden_size"] * spec.expert_intermediate_size)


@pytest.mark.parametrize(("name", "why"), [
    ("mimo_v2_flash", "value heads narrower"),
    ("step_3_7_flash", "per-head attention gate"),
    ("minimax_m3", "MiniMax Sparse Attention"),
    ("deepseek_v4_flash", "compressed sparse attention"),  # stopped on 'num_key_value_heads'-style fields before
])
def test_the_models_once_costed_as_dense_are_refused_by_name(tmp_path: Path, name: str, why: str) -> None:
    folder = tmp_path / name
    folder.mkdir()
    (folder / "config.json").write_text(json.dumps(_config(name)), encoding="utf-8")
    with pytest.raises(RefusedLayerError, match=why):
        load_config(folder)


def test_nemotron_h_56b_is_costed_layer_by_layer(tmp_path: Path) -> None:
    """Nemotron-H-56B-Base-8K (stopped on time_step_limit's Infinity, then refused for its Mamba-2 layers): 118 layers
    of Mamba-2, ReLU^2 MLPs and attention (issue 27), 56.3B parameters (the model's name says 56B)."""
    folder = tmp_path / "n"
    folder.mkdir()
    (folder / "config.json").write_text(json.dumps(_config("nemotron_h_56b")), encoding="utf-8")
    m = load_config(folder)
    kinds = {r.mixer_kind for r in runs(m)}
    assert kinds == {"mamba2", "attention", "none"}
    assert 56.0e9 < count_params(m).total < 56.6e9


@pytest.mark.parametrize(("name", "field"), [
    ("mimo_v2_flash", "hybrid_layer_pattern"),
    ("minimax_m3", "sparse_attention_config"),
    ("deepseek_v4_flash", "index_topk"),
])
def test_under_an_unknown_model_type_they_are_refused_by_the_field_of_their_layers(name: str, field: str) -> None:
    with pytest.raises(ConfigImportError, match=f"field '{field}'"):
        spec_from_config(_unknown(_config(name)), name)


def test_under_an_unknown_model_type_step_is_costed_with_its_experts_not_as_dense() -> None:
    """The Step copy keeps no field of its sliding-window layers' own heads (its model_type refuses it by name):
    under an unknown type it is read as a Llama-style decoder, its experts counted, with the note saying so."""
    spec = spec_from_config(_unknown(_config("step_3_7_flash")), "step")
    assert spec.moe is not None
    assert count_params(spec).total > 190e9
    assert any("experts are counted from num_experts, num_experts_per_tok" in note for note in spec.notes)


@pytest.mark.parametrize(("name", "routed", "floor", "total"), [
    ("mimo_v2_flash", 47 * 256 * 3 * 4096 * 2048, 165e9, 309e9),
    ("step_3_7_flash", 42 * 288 * 3 * 4096 * 1280, 101e9, None),
    ("minimax_m3", 57 * 128 * 3 * 6144 * 3072, 220e9, 428e9),
])
def test_their_expert_fields_alone_hold_what_the_published_sizes_say(name: str, routed: int, floor: float,
                                                                      total: float | None) -> None:
    """Issue 27: read as dense, MiMo-V2-Flash came out at 16.1B, MiniMax-M3 at 12.3B and Step-3.7-Flash at 10.7B,
    where their experts alone hold over 165B, 220B and 101B: routed layers x experts x 3 x hidden x expert width
    (the layers after first_k_dense_replace, or the 1s of moe_layer_freq), under the published total."""
    count = _routed_expert_params(_unknown(_config(name)))
    assert count == routed
    assert count > floor
    assert total is None or count < total


def _as_unknown_config(m: ModelSpec) -> dict[str, Any]:
    """A catalog MoE written as a config of an unknown model type, with DeepSeek's expert fields and a per-layer
    ``moe_layer_freq``; its attention and shared experts as their own fields say them."""
    layers = expand(runs(m))
    routed = [layer for layer in layers if layer.ffn.moe is not None]
    e = routed[0].ffn.moe
    assert e is not None
    a = layers[0].attn
    cfg: dict[str, Any] = {
        "model_type": "not_a_known_type", "vocab_size": m.vocab_size, "hidden_size": m.hidden_size,
        "num_hidden_layers": m.num_layers, "num_attention_heads": a.num_heads, "num_key_value_heads": a.num_kv_heads,
        "head_dim": a.head_dim, "intermediate_size": m.intermediate_size, "tie_word_embeddings": m.tie_embeddings,
        "max_position_embeddings": m.max_position, "n_routed_experts": e.num_experts,
        "num_experts_per_tok": e.experts_per_token, "moe_intermediate_size": e.expert_intermediate_size,
        "moe_layer_freq": [int(layer.ffn.moe is not None) for layer in layers],
    }
    if e.shared_intermediate_size is not None:
        cfg["shared_expert_intermediate_size"] = e.shared_intermediate_size
    elif e.shared_experts:
        cfg["n_shared_experts"] = e.shared_experts
    if a.mla is not None:
        cfg["kv_lora_rank"] = a.mla.kv_lora_rank
    return cfg


def _routed_of(m: ModelSpec) -> int:
    return sum(x.params for layer in expand(runs(m)) for x in mlp_linears(layer.ffn, m.hidden_size)
               if x.role.startswith("experts_"))


#: the catalog's MoEs of attention layers (a hybrid's gated DeltaNet, KDA or Mamba layers are no Llama-style
#: decoder's: an unknown model_type cannot hold them)
CATALOG_MOE = [m for m in models() if m.moe is not None and all(r.mixer is None for r in runs(m))]


@pytest.mark.parametrize("m", CATALOG_MOE, ids=[m.id for m in CATALOG_MOE])
def test_every_catalog_moe_under_an_unknown_type_is_counted_exactly_or_refused_never_dense(m: ModelSpec) -> None:
    """Its routed experts counted to the parameter, or (MLA, a gated shared expert: fields whose meaning differs
    between families) refused by name: never a dense model."""
    e = m.moe
    assert e is not None
    if e.expert_bias or e.router_bias or e.dense_dispatch or m.mlp is not MlpKind.GATED:
        pytest.skip("its experts hold what no config field says (biases, every expert on every token, a clamped "
                    "SwiGLU): its modeling file fixes it")
    cfg = _as_unknown_config(m)
    if "shared_expert_intermediate_size" in cfg or "kv_lora_rank" in cfg:
        with pytest.raises(RefusedLayerError, match=r"refused rather than costed as a dense model|latent attention"):
            spec_from_config(cfg, m.id)
        return
    spec = spec_from_config(cfg, m.id)
    assert spec.moe is not None
    assert _routed_of(spec) == _routed_of(m)
    assert any("experts are counted from" in note for note in spec.notes)
    assert count_params(spec).total > count_params(m).total - m.num_layers * 2 * 4 * m.hidden_size  # q/k norms
    assert len(CATALOG_MOE) >= 20
