"""One lesson, as its data file holds it: texts in both languages, a start, a goal, hints, a solution, the facts.

A lesson file (``engine/lessons/data/<id>.json``) is validated by :class:`Lesson`: an unknown field, a missing
or untranslated ``zh_TW`` text, an unknown quantity, a comparison of the wrong kind, a start or a solution the
engine would reject, all fail when the lesson loads (and so fail the test suite), naming the file and the field.

Checking a lesson (:meth:`Lesson.check`) first checks the fields it *keeps* at their starting value (the
question is about that GPU, that model, that length), then its goal; the answer says why in one sentence.
"""

from __future__ import annotations

import re
from enum import StrEnum
from typing import Annotated

from pydantic import AfterValidator, Field, PrivateAttr, model_validator

from engine.lessons.goals import Check, Goal, evaluate
from engine.lessons.quantities import Quantity, Value, quantity
from engine.lessons.situation import Changes, Results, Situation
from engine.lessons.text import Strict, Text, text
from engine.units import Unit

_ID = re.compile(r"^[a-z0-9]+(?:[-.][a-z0-9]+)*$")


class Page(StrEnum):
    """The app's pages, where a lesson's controls are."""

    MEMORY = "memory"
    ATTENTION = "attention"
    LEVERS = "levers"
    ALIGNMENT = "alignment"
    SERVING = "serving"


def _lesson_id(value: str) -> str:
    if not _ID.match(value):
        raise ValueError("an id is lower-case words joined by '-' (fit-7b-24gb)")
    return value


def _input(name: str) -> str:
    if not quantity(name).is_input:
        raise ValueError(f"{name} is a result, not a setting the learner changes: it cannot be kept")
    return name


class Fact(Strict):
    """One fact the explanation rests on, and where it comes from (a paper and section, a seed, an engine file)."""

    text: Text
    source: Annotated[str, Field(min_length=3)]


class Explanation(Strict):
    """Shown when the goal passes: why the answer works, with its facts and their sources."""

    text: Text
    facts: Annotated[list[Fact], Field(min_length=1)]


class Lesson(Strict):
    """A lesson file. ``start`` and ``solution`` are :class:`Changes`: the start from the seed's defaults, the
    solution from the start. ``wrong`` lists plausible answers that must *not* pass (tests check both)."""

    id: Annotated[str, AfterValidator(_lesson_id)]
    order: Annotated[int, Field(ge=0)]
    page: Page
    title: Text
    text: Text
    start: Changes
    keep: list[Annotated[str, AfterValidator(_input)]] = Field(default_factory=list)
    goal: Goal
    hints: Annotated[list[Text], Field(min_length=2, max_length=3)]
    solution: Changes
    wrong: list[Changes] = Field(default_factory=list)
    explanation: Explanation
    _start: Situation | None = PrivateAttr(default=None)

    @model_validator(mode="after")
    def _applicable(self) -> Lesson:
        """The start, the solution and each wrong answer are setups the engine accepts."""
        start = self.start_situation()
        for change in (self.solution, *self.wrong):
            start.changed(change)
        return self

    def start_situation(self) -> Situation:
        """Where the learner begins: the seed's scenario with ``start`` applied (built once)."""
        if self._start is None:
            self._start = Situation.default().changed(self.start)
        return self._start

    def solution_situation(self) -> Situation:
        """A known answer: the start with ``solution`` applied."""
        return self.start_situation().changed(self.solution)

    def check(self, situation: Situation, unit: Unit = Unit.GB) -> Check:
        """The goal against ``situation``: the kept fields first, then the goal (engine results computed once)."""
        results = Results(situation)
        if self.keep:
            begin = Results(self.start_situation())  # the kept fields are inputs: reading them runs no engine
            for name in self.keep:
                q = quantity(name)
                if q.read(results) != q.read(begin):
                    return Check(False, _kept(q, q.read(begin), q.read(results), unit))
        return evaluate(self.goal, results, unit)


def _kept(q: Quantity, start: Value, now: Value, unit: Unit) -> Text:
    was, is_ = q.show(start, unit), q.show(now, unit)
    return text(f"This lesson keeps the {q.label.en} at {was.en}; it is {is_.en} now.",
                f"這一課的{q.label.zh_TW}要維持{was.zh_TW}，現在是{is_.zh_TW}。")
