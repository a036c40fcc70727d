"""Lesson files are validated strictly: a missing or untranslated zh_TW text, an unknown field, an unknown
quantity, a comparison of the wrong kind or a setup the engine rejects fails, naming the file and the field."""

from __future__ import annotations

import copy
import json
from collections.abc import Callable
from importlib import resources
from typing import Any

import pytest

from engine.lessons import LessonError, parse_lesson

NAME = "data/fit-7b-24gb.json"


def good() -> dict[str, Any]:
    text = resources.files("engine.lessons").joinpath(NAME).read_text(encoding="utf-8")
    data: dict[str, Any] = json.loads(text)
    return data


def rejected(change: Callable[[dict[str, Any]], None], name: str = NAME) -> str:
    data = copy.deepcopy(good())
    change(data)
    with pytest.raises(LessonError) as err:
        parse_lesson(json.dumps(data), name)
    message = str(err.value)
    assert message.startswith(name)
    assert "\n" not in message
    return message


def test_the_bundled_file_parses() -> None:
    assert parse_lesson(json.dumps(good()), NAME).id == "fit-7b-24gb"


def test_a_missing_translation_fails() -> None:
    assert "title.zh_TW" in rejected(lambda d: d["title"].pop("zh_TW"))
    assert "hints.1.zh_TW" in rejected(lambda d: d["hints"][1].pop("zh_TW"))
    assert "explanation.facts.0.text.zh_TW" in rejected(lambda d: d["explanation"]["facts"][0]["text"].pop("zh_TW"))


def test_an_untranslated_or_empty_text_fails() -> None:
    assert "translate" in rejected(lambda d: d["text"].update(zh_TW=d["text"]["en"]))
    assert "title.en" in rejected(lambda d: d["title"].update(en=""))


def test_an_unknown_field_fails_anywhere() -> None:
    assert "extra" in rejected(lambda d: d.update(difficulty="easy")).lower()
    assert "title.fr" in rejected(lambda d: d["title"].update(fr="Adapter"))
    assert "start.setup.sequence_length" in rejected(lambda d: d["start"].update(setup={"sequence_length": 8192}))
    assert "goal" in rejected(lambda d: d["goal"]["all"][0].update(note="x"))


def test_a_goal_must_be_one_of_the_four_forms() -> None:
    assert "a goal is one of" in rejected(lambda d: d.update(goal={"expression": "fits and gpus == 1"}))


def test_quantities_and_kinds_are_checked() -> None:
    def goal(compare: dict[str, Any]) -> Callable[[dict[str, Any]], None]:
        return lambda d: d.update(goal={"compare": compare})

    assert "did you mean estimate.device_bytes" in rejected(goal({"left": "estimate.device_byte", "op": "<",
                                                                  "value": 1}))
    assert "compare it with == or !=" in rejected(goal({"left": "method", "op": "<", "value": "full"}))
    assert "one of full, lora, qlora" in rejected(goal({"left": "method", "op": "==", "value": "dora"}))
    assert "give a number" in rejected(goal({"left": "estimate.device_bytes", "op": "<", "value": "24GB"}))
    assert "give true or false" in rejected(goal({"left": "estimate.fits", "op": "==", "value": 1}))
    assert "exactly one of" in rejected(goal({"left": "estimate.device_bytes", "op": "<"}))
    assert "differ" in rejected(goal({"left": "estimate.device_bytes", "op": "<", "quantity": "model.params"}))
    assert "factor goes with quantity" in rejected(goal({"left": "estimate.device_bytes", "op": "<", "value": 1,
                                                         "factor": 2}))


def test_starts_solutions_and_kept_fields_are_checked() -> None:
    assert "start.setup.seq_len" in rejected(lambda d: d["start"].update(setup={"seq_len": 0}))
    assert "unknown model" in rejected(lambda d: d["solution"].update(model="llama-9-7b"))
    assert "cannot be kept" in rejected(lambda d: d.update(keep=["estimate.device_bytes"]))
    assert "offload_params needs sharding zero3" in rejected(lambda d: d["solution"].update(
        setup={"offload_params": True}))
    assert "hints" in rejected(lambda d: d.update(hints=d["hints"][:1]))


def test_the_id_must_match_the_file_name() -> None:
    assert "must match the file name" in rejected(lambda d: None, name="data/fit-7b.json")


def test_malformed_json_is_one_line() -> None:
    with pytest.raises(ValueError, match=r"^data/x\.json: not valid JSON"):
        parse_lesson("{", "data/x.json")
