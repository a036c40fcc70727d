"""Parameter counts against published checkpoint totals and hand-derived LoRA counts."""

import pytest

from engine.catalog import get_model, models
from engine.params import count_params, lora_params
from engine.specs import LoraTargets


@pytest.mark.parametrize("model", [m for m in models() if m.published_params], ids=lambda m: m.id)
def test_total_matches_published_checkpoint(model):
    assert count_params(model).total == pytest.approx(model.published_params, rel=0.005)


def test_llama2_7b_exact():
    # 32 layers x (4 x 4096^2 + 3 x 4096 x 11008 + 2 x 4096) + 2 x 32000 x 4096 + 4096
    per_layer = 4 * 4096**2 + 3 * 4096 * 11008 + 2 * 4096
    assert count_params(get_model("llama-2-7b")).total == 32 * per_layer + 2 * 32000 * 4096 + 4096 == 6_738_415_616


def test_llama31_8b_exact():
    assert count_params(get_model("llama-3.1-8b")).total == 8_030_261_248


def test_lora_r16_all_linear_llama2_7b_is_seed_figure():
    m = get_model("llama-2-7b")
    n = lora_params(m, 16, LoraTargets.ALL_LINEAR)
    # per layer: 4 x 16 x (4096 + 4096) + 3 x 16 x (4096 + 11008)
    assert n == 32 * (4 * 16 * 8192 + 3 * 16 * 15104) == 39_976_960
    pc = count_params(m)
    assert round(100 * n / (pc.total + n), 2) == 0.59  # share of all parameters
    assert round(100 * n / pc.non_embedding, 2) == 0.62  # the seed's figure: share of non-embedding ones


def test_lora_qv_counts_only_q_and_v():
    m = get_model("llama-3.1-8b")  # GQA: v projects 4096 -> 1024
    assert lora_params(m, 8, LoraTargets.QV) == 32 * 8 * ((4096 + 4096) + (4096 + 1024))


def test_gqa_shrinks_kv_projections():
    pc = count_params(get_model("llama-2-70b"))
    assert pc.attention == 80 * (2 * 8192 * 8192 + 2 * 8192 * 1024)


def test_mla_and_moe_count():
    m = get_model("deepseek-v2-lite")
    assert count_params(m).total == 15_706_484_224


def test_aliases_resolve_to_the_same_model():
    assert get_model("meta-llama/Llama-2-7b-hf") is get_model("llama-2-7b")
    assert get_model("LLAMA-2-7B").id == "llama-2-7b"


def test_catalog_ids_are_lower_case_family_version_size():
    ids = {m.id for m in models()}
    for needed in ["llama-2-7b", "llama-3.1-8b", "llama-3.2-1b", "mistral-7b", "mixtral-8x7b", "qwen2.5-7b",
                   "gemma-2-9b", "deepseek-v2-lite", "gpt2"]:
        assert needed in ids
    assert all(i == i.lower() for i in ids)
