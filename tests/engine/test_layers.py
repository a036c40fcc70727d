"""Layers as data: heterogeneous stacks are one list of runs, and old flat specs derive the same list."""

import json
from pathlib import Path

import pytest

from engine.catalog import get_model, models
from engine.hf_import import spec_from_config
from engine.layers import expand, group, runs, sliding_layers
from engine.specs import ModelSpec, QkNorm, TrainingSetup
from engine.training.estimate import estimate

#: the configs we wrote (calibration's catalog, probes); a published config's row has none
CONFIGS = {r["id"]: r["config"] for r in json.loads(
    (Path(__file__).parent / "data" / "transformers_counts.json").read_text())["models"] if "config" in r}


def _kinds(m: ModelSpec) -> list[tuple[int, bool, int | None]]:
    """(count, routed, window) per run."""
    return [(r.count, r.ffn.moe is not None, r.attn.window) for r in runs(m)]


def test_deepseek_v3_starts_with_its_dense_layers():
    m = spec_from_config(CONFIGS["deepseek-v3-5l"], "d")
    assert _kinds(m) == [(3, False, None), (2, True, None)]
    moe = runs(m)[1].ffn.moe
    assert moe is not None
    assert moe.shared_width == 2048
    assert runs(m)[0].attn.kind == "MLA"


def test_gemma3_is_five_local_layers_to_one_global():
    m = spec_from_config(CONFIGS["gemma-3-1b"], "g")
    windows = [layer.attn.window for layer in expand(runs(m))]
    assert windows[:12] == [512] * 5 + [None] + [512] * 5 + [None]
    assert len(runs(m)) == 9
    assert m.sliding_window == 512
    assert m.sliding_layers_fraction == pytest.approx(22 / 26)


def test_llama4_interleaves_dense_and_moe_and_puts_its_l2_norm_where_rope_is():
    m = spec_from_config(CONFIGS["llama-4-maverick-4l"], "l")
    layers = expand(runs(m))
    assert [layer.ffn.moe is not None for layer in layers] == [False, True, False, True]
    assert [layer.attn.qk_norm for layer in layers] == [QkNorm.L2] * 3 + [QkNorm.NONE]
    moe = layers[1].ffn.moe
    assert layers[0].ffn.intermediate_size == 16384
    assert moe is not None
    assert moe.shared_width == 8192


def test_gpt_oss_alternates_windows_with_sinks_and_biases():
    m = spec_from_config(CONFIGS["gpt-oss-20b"], "o")
    assert _kinds(m)[:2] == [(1, True, 128), (1, True, None)]
    assert len(runs(m)) == 24
    a, moe = runs(m)[0].attn, runs(m)[0].ffn.moe
    assert a.sinks
    assert a.qkv_bias
    assert a.o_bias
    assert moe is not None
    assert moe.router_bias


def test_group_and_expand_are_inverse():
    m = spec_from_config(CONFIGS["qwen3-30b-a3b"], "q")
    assert group(expand(runs(m))) == runs(m)


def test_sliding_layers_spread_evenly_with_the_last_of_a_group_full():
    assert sliding_layers(4, 0.5) == [True, False, True, False]  # Gemma 2
    assert sliding_layers(12, 5 / 6) == ([True] * 5 + [False]) * 2  # Gemma 3
    assert sliding_layers(3, 0.0) == [False] * 3
    assert sliding_layers(3, 1.0) == [True] * 3


FLAT = [m for m in models() if m.layers is None]


@pytest.mark.parametrize("model", FLAT, ids=lambda m: m.id)
def test_flat_specs_derive_their_layer_list(model):
    """A model written field by field (models.json, and every scenario file saved before the layer list) keeps its
    meaning: the derived runs hold num_layers layers, routed after the dense ones, sliding as the fraction says."""
    layers = expand(runs(model))
    assert model.layers is None
    assert len(layers) == model.num_layers
    dense = model.moe.first_dense_layers if model.moe else model.num_layers
    assert [layer.ffn.moe is not None for layer in layers] == [i >= dense for i in range(model.num_layers)]
    sliding = sum(layer.attn.window is not None for layer in layers)
    assert sliding == (round(model.num_layers * model.sliding_layers_fraction) if model.sliding_window else 0)
    assert group(layers) == runs(model)  # folded as group() folds a layer list: no two equal runs in a row


def test_an_old_scenario_dump_without_layers_loads_and_costs_the_same():
    m = get_model("mixtral-8x7b")
    old = {k: v for k, v in m.model_dump(mode="json").items() if k not in ("layers", "vision_params", "notes")}
    again = ModelSpec.model_validate(old)
    assert again == m
    s = TrainingSetup()
    assert estimate(again, s, _gpu()).peak_allocated_bytes == estimate(m, s, _gpu()).peak_allocated_bytes


def test_an_imported_model_round_trips_with_its_layer_list():
    m = spec_from_config(CONFIGS["gemma-3-1b"], "g")
    again = ModelSpec.model_validate(json.loads(json.dumps(m.model_dump(mode="json"))))
    assert again == m
    assert again.layers == m.layers


def test_a_layer_list_must_hold_num_layers():
    m = spec_from_config(CONFIGS["qwen3-0.6b"], "q")
    with pytest.raises(ValueError, match="the runs hold 28 layers, num_layers is 27"):
        ModelSpec.model_validate({**m.model_dump(), "num_layers": 27})


def _gpu():
    from engine.catalog import get_gpu

    return get_gpu("h200")
