"""gui.state.page_state: a validated pydantic model, observable field by field."""

from __future__ import annotations

import pytest
from pydantic import BaseModel, ConfigDict, Field
from pytestqt.qtbot import QtBot

from engine.serving import ServingSetup
from engine.specs import LoraSpec, TrainingSetup
from gui.state.page_state import PageState, StateError, diff, touches


class Inner(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")
    a: int = Field(1, ge=0)
    b: str = "x"


class Outer(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")
    inner: Inner = Inner()
    whole: Inner = Inner()
    n: int = 0


class OuterState(PageState[Outer]):
    atomic = frozenset({"whole"})


def record(state: PageState[Outer] | PageState[ServingSetup]) -> list[frozenset[str]]:
    seen: list[frozenset[str]] = []
    state.changed.connect(seen.append)
    return seen


def test_changed_names_the_leaves_that_changed(qtbot: QtBot) -> None:
    state = OuterState(Outer())
    seen = record(state)
    assert state.update(n=3, **{"inner.a": 5})
    assert seen == [frozenset({"n", "inner.a"})]
    assert state.get("inner.a") == 5
    assert state.value.inner.b == "x"


def test_an_atomic_field_is_named_whole(qtbot: QtBot) -> None:
    state = OuterState(Outer())
    seen = record(state)
    state.update(whole=Inner(a=2, b="y"), inner=Inner(a=2, b="y"))
    assert seen == [frozenset({"whole", "inner.a", "inner.b"})]


def test_no_change_no_signal(qtbot: QtBot) -> None:
    state = PageState(ServingSetup())
    seen = record(state)
    assert not state.update(tokens=state.value.tokens)
    assert not state.replace(ServingSetup())
    assert seen == []


@pytest.mark.parametrize(("fields", "named"), [({"tokens": 0}, "tokens"), ({"nope": 1}, "nope"),
                                                ({"tp": "many"}, "tp")])
def test_a_rejected_write_names_the_field_and_changes_nothing(fields: dict[str, object], named: str) -> None:
    state = PageState(ServingSetup())
    seen = record(state)
    with pytest.raises(StateError, match=f"^{named}"):
        state.update(sequences=4, **fields)
    assert state.value == ServingSetup()
    assert seen == []


def test_nested_paths_are_validated_with_their_model() -> None:
    state = OuterState(Outer())
    with pytest.raises(StateError, match=r"^inner\.a: Input should be greater than or equal to 0"):
        state.update(**{"inner.a": -1})
    with pytest.raises(StateError, match=r"^n\.x: no such field"):
        state.get("n.x")


def test_batch_makes_one_signal_with_every_path(qtbot: QtBot) -> None:
    state = PageState(ServingSetup())
    seen = record(state)
    with state.batch():
        state.update(tokens=8192)
        state.update(tp=2)
        with state.batch():
            state.update(sequences=3)
        assert seen == []
    assert seen == [frozenset({"tokens", "tp", "sequences"})]


def test_nested_instances_not_written_are_kept_as_they_are() -> None:
    state = PageState(TrainingSetup())
    lora = state.value.lora
    state.update(batch=2)
    assert state.value.lora is lora


def test_diff_recurses_into_nested_models() -> None:
    assert diff(TrainingSetup(), TrainingSetup(lora=LoraSpec(rank=8), batch=2)) == {"lora.rank", "batch"}
    assert diff(TrainingSetup(), TrainingSetup(lora=LoraSpec(rank=8)), frozenset({"lora"})) == {"lora"}


@pytest.mark.parametrize(("changed", "reads", "expected"), [
    ({"setup.lora.rank"}, {"setup"}, True),
    ({"setup"}, {"setup.seq_len"}, True),
    ({"setup.lora.rank"}, {"model", "gpu", "unit"}, False),
    ({"setup.lora.rank"}, {"setup.lora.alpha"}, False),
    ({"setup.seq_len"}, {"setup.seq"}, False),
])
def test_touches(changed: set[str], reads: set[str], expected: bool) -> None:
    assert touches(changed, reads) is expected
