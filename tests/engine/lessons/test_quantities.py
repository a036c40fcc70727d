"""Every quantity a goal can name reads a value of its kind on a real situation, and is labelled in both
languages; inputs read the situation itself, results the engine's own objects."""

from __future__ import annotations

import re
from pathlib import Path
from xml.etree import ElementTree

import pytest

from engine.alignment import Stage, stage_memory
from engine.attention_sizes import StepKey
from engine.attention_text import STEP_TEXT
from engine.lessons import Kind, Results, Situation, registry
from engine.lessons.quantities import STEP_ZH, TERM_WORDS, TRAINING_TERMS
from engine.terms import TERMS

TS = Path(__file__).resolve().parents[3] / "assets" / "translations" / "vramlab_zh_TW.ts"
SITUATION = Situation.default()
RESULTS = Results(SITUATION)


@pytest.mark.parametrize("name", list(registry()))
def test_each_quantity_reads_a_value_of_its_kind(name: str) -> None:
    q = registry()[name]
    value = q.read(RESULTS)
    if q.kind is Kind.BOOL:
        assert isinstance(value, bool)
    elif q.kind is Kind.CHOICE:
        assert q.choices is not None
        assert value in q.choices()
    else:
        assert isinstance(value, int | float)
        assert not isinstance(value, bool)
    assert q.label.en
    assert q.label.zh_TW
    shown = q.show(value)
    assert shown.en
    assert shown.zh_TW


def test_results_are_the_engines() -> None:
    reg = registry()
    e = RESULTS.estimate
    assert reg["estimate.device_bytes"].read(RESULTS) == e.device_bytes
    assert {t: reg[f"estimate.{t}"].read(RESULTS) for t in TRAINING_TERMS} == dict.fromkeys(TRAINING_TERMS, 0) | {
        t.name: t.bytes for t in e.terms}  # a term the setup has not (a layout's buffers) reads 0
    assert reg["estimate.biggest_term"].read(RESULTS) == "optimizer_states"  # 12 bytes x 6.74B, the seed's bill
    ppo = stage_memory(Stage.PPO, SITUATION.model, SITUATION.setup, SITUATION.gpu, SITUATION.alignment)
    assert reg["alignment.ppo.models"].read(RESULTS) == ppo.models == 4
    assert reg["model.params"].read(RESULTS) == 6_738_415_616
    assert reg["attention.step_bytes"].read(RESULTS) == 4096 * 4096 * 2  # X: b x s x hidden x 2 bytes


def test_inputs_are_the_only_keepable_quantities() -> None:
    inputs = {q.name for q in registry().values() if q.is_input}
    assert {"model", "gpu", "method", "seq_len", "serving.tokens", "alignment.grpo_reward_model",
            "attention.step"} <= inputs
    assert not any(n.startswith(("estimate.", "serving.kv_bytes", "alignment.ppo")) for n in inputs)
    assert set(TERM_WORDS) == set(TRAINING_TERMS)


def ts_translations(context: str) -> dict[str, str]:
    """source -> translation of one context of the zh_TW .ts (read as XML: no Qt needed)."""
    root = ElementTree.parse(TS).getroot()
    found = {}
    for ctx in root.iter("context"):
        if ctx.findtext("name") == context:
            for msg in ctx.iter("message"):
                found[msg.findtext("source") or ""] = msg.findtext("translation") or ""
    return found


def test_terms_and_steps_are_named_as_the_gui_names_them() -> None:
    words, engine_texts = ts_translations("words"), ts_translations("engine")
    assert {n: w.zh_TW for n, w in TERM_WORDS.items()} == {n: words[TERMS[n].label] for n in TERM_WORDS}
    assert {n: w.en for n, w in TERM_WORDS.items()} == {n: TERMS[n].label for n in TERM_WORDS}
    for key in StepKey:
        assert STEP_ZH[key] == engine_texts[STEP_TEXT[key].name]


def test_lessons_chinese_calls_each_term_what_the_gui_calls_it() -> None:
    """A term the GUI translates (activations -> its Chinese) is not left in English in a lesson's Chinese."""
    from engine.lessons import lessons

    words = ts_translations("words")
    translated = [TERMS[n].label for n in TERM_WORDS if words[TERMS[n].label] != TERMS[n].label
                  and not words[TERMS[n].label].startswith(TERMS[n].label)]
    for lesson in lessons():
        texts = [lesson.title, lesson.text, *lesson.hints, lesson.explanation.text,
                 *(f.text for f in lesson.explanation.facts)]
        for t in texts:
            assert not [w for w in translated if re.search(rf"\b{w}\b", t.zh_TW)], (lesson.id, t.zh_TW)
