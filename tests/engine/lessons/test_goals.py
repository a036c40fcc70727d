"""The goal language's meaning, checked on hand-derived numbers: comparisons, factors, all / any, fits of
training, serving and alignment stages, kept fields, and the why-sentence in both languages."""

from __future__ import annotations

from typing import Any

import pytest
from pydantic import TypeAdapter

from engine.catalog import get_gpu, get_model
from engine.lessons import Changes, Results, Situation, get_lesson
from engine.lessons.goals import Goal, evaluate
from engine.lessons.text import spaced
from engine.serving import ServingSetup
from engine.units import Unit

GOAL: TypeAdapter[Any] = TypeAdapter(Goal)
#: Llama 2 70B, 4,096 tokens, fp16: 2 x 80 layers x 8 KV heads x 128 x 4,096 x 2 bytes (arXiv:2307.09288, Table 1)
KV_70B = 2 * 80 * 8 * 128 * 4096 * 2


def check(goal: dict[str, Any], situation: Situation) -> Any:
    return evaluate(GOAL.validate_python(goal), Results(situation))


def seventy() -> Situation:
    return Situation(get_model("llama-2-70b"), get_gpu("h200"), serving=ServingSetup(tokens=4096))


def test_a_comparison_is_exact_at_the_boundary() -> None:
    assert KV_70B == 1_342_177_280
    below = {"compare": {"left": "serving.kv_bytes_per_sequence", "op": "<", "value": KV_70B + 1}}
    at = {"compare": {"left": "serving.kv_bytes_per_sequence", "op": "<", "value": KV_70B}}
    assert check(below, seventy()).passed
    result = check(at, seventy())
    assert not result.passed
    assert result.why.en == "KV cache per sequence: 1.34 GB, not below 1.34 GB."
    assert result.why.zh_TW == "每條序列的 KV cache：1.34 GB，沒有低於 1.34 GB。"


def test_a_factor_scales_the_other_quantity() -> None:
    # Llama 2 13B: 40 layers x 40 heads x 128: 2.5 times 70B's cache per token (40 x 40 / (80 x 8))
    s = Situation(get_model("llama-2-13b"), get_gpu("h200"), serving=ServingSetup(tokens=4096))
    r13, r70 = Results(s).serving.kv.bytes_per_sequence, KV_70B
    assert r13 == 2.5 * r70
    twice = {"compare": {"left": "serving.kv_bytes_per_sequence", "op": ">", "quantity": "serving.weights_bytes",
                         "factor": 0.1}}
    # 13B weights in bf16: 13,015,864,320 x 2 bytes; a tenth is 2.60 GB, below the 3.36 GB cache
    result = check(twice, s)
    assert result.passed
    assert "0.1 × serving weights (2.60 GB)" in result.why.en


def test_all_stops_at_the_first_failure_and_any_at_the_first_success() -> None:
    s = Situation.default()  # 130 GB on an 85.9 GB A100: does not fit
    fits, gpus = {"fits": True}, {"compare": {"left": "gpus", "op": "==", "value": 1}}
    result = check({"all": [gpus, fits]}, s)
    assert not result.passed
    assert result.why.en.startswith("Does not fit")
    result = check({"any": [fits, gpus]}, s)
    assert result.passed
    assert result.why.en == "GPU count: 1, as asked."
    result = check({"all": [gpus, {"fits": False}]}, s)
    assert result.passed
    assert result.why.en.startswith("GPU count: 1, as asked; does not fit: ")


def test_fits_of_serving_and_of_a_stage() -> None:
    s = Situation(get_model("llama-2-7b"), get_gpu("a100-80gb"), serving=ServingSetup(tokens=8192, sequences=32))
    serving = check({"fits": True, "of": "serving"}, s)
    assert not serving.passed
    assert "room for only" in serving.why.en
    ppo = check({"fits": True, "of": "ppo"}, s)
    assert not ppo.passed
    assert ppo.why.en.endswith("4 models in memory (policy, critic, reference, reward).")
    assert ppo.why.zh_TW.endswith("記憶體裡有 4 個模型（policy、critic、reference、獎勵）。")
    assert check({"fits": False, "of": "ppo"}, s).passed


def test_bytes_follow_the_unit() -> None:
    goal = GOAL.validate_python({"compare": {"left": "gpu.memory_bytes", "op": "<=", "value": 25769803776}})
    r = Results(Situation(get_model("llama-2-7b"), get_gpu("rtx-3090")))
    assert evaluate(goal, r, Unit.GIB).why.en == "GPU memory: 23.58 GiB, within 24.00 GiB."


def test_a_kept_field_is_checked_first_and_named() -> None:
    lesson = get_lesson("fit-7b-24gb")
    moved = lesson.start_situation().changed(Changes.model_validate({"setup": {"seq_len": 512}}))
    result = lesson.check(moved)
    assert not result.passed
    assert result.why.en == "This lesson keeps the sequence length at 4,096; it is 512 now."
    assert result.why.zh_TW == "這一課的序列長度要維持 4,096，現在是 512。"


def test_changes_touch_only_the_fields_they_name() -> None:
    base = Situation.default().changed(Changes.model_validate({"setup": {"method": "lora", "lora": {"rank": 64}}}))
    after = base.changed(Changes.model_validate({"setup": {"lora": {"targets": "qv"}}}))
    assert (after.setup.method.value, after.setup.lora.rank, after.setup.lora.targets.value) == ("lora", 64, "qv")
    assert after.serving == base.serving
    assert after.model is base.model


@pytest.mark.parametrize(("zh", "spaced_zh"), [("放得下：裝置總量8.10 GB", "放得下：裝置總量 8.10 GB"),
                                               ("用GQA時", "用 GQA 時"), ("已經 8 GB", "已經 8 GB")])
def test_chinese_is_spaced_around_latin_words(zh: str, spaced_zh: str) -> None:
    assert spaced(zh) == spaced_zh
