"""gui.lessons.situation: a lesson's situation is the scenario and its page's own part; its start sets both.

The GUI reads only the lesson page's part (``HoldsLessonPart``), so these tests also hold every lesson file to
it: a lesson starts, solves, keeps and reads no part that another page holds.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pytest
from PySide6.QtWidgets import QWidget
from pytestqt.qtbot import QtBot

from engine.alignment import AlignmentOptions
from engine.attention_sizes import StepKey
from engine.lessons import Lesson, Situation, lessons
from engine.serving import ServingSetup
from engine.specs import KvDtype, Method
from gui.lessons.situation import apply_start, part_of, situation_of
from gui.pages import PAGE_IDS, create_page
from gui.pages.contract import HoldsLessonPart
from gui.state.scenario import Scenario

PARTS = ("serving", "alignment", "attention_step")
#: each part set to something no page starts with
ELSEWHERE: dict[str, Any] = {"serving": ServingSetup(tokens=1024, sequences=3, kv_dtype=KvDtype.FP8),
             "alignment": AlignmentOptions(grpo_reward_model=True, dpo_precomputed_reference=True),
             "attention_step": StepKey.MASKED}
#: which page holds which part (checked against the pages themselves below)
HELD_BY = {"serving": "serving", "alignment": "alignment", "attention": "attention_step"}


def elsewhere(situation: Situation, page: str) -> Situation:
    """``situation`` with every part that ``page`` does not hold changed."""
    return replace(situation, **{p: v for p, v in ELSEWHERE.items() if HELD_BY.get(page) != p})


@pytest.mark.parametrize("page_id", PAGE_IDS)
def test_each_part_is_held_by_the_page_named_here(qtbot: QtBot, page_id: str) -> None:
    page = create_page(page_id, Scenario())
    qtbot.addWidget(page)
    base = Situation.default()
    if not isinstance(page, HoldsLessonPart):
        assert page_id not in HELD_BY
        return
    with qtbot.waitSignal(page.lesson_part_changed()):
        page.set_lesson_part(replace(base, **ELSEWHERE))
    read = page.lesson_part(base)
    held = [p for p in PARTS if getattr(read, p) != getattr(base, p)]
    assert held == [HELD_BY[page_id]]
    assert getattr(read, held[0]) == ELSEWHERE[held[0]]


@pytest.mark.parametrize("lesson", lessons(), ids=lambda x: x.id)
def test_no_lesson_reaches_a_part_another_page_holds(lesson: Lesson) -> None:
    page = lesson.page.value
    assert page in PAGE_IDS
    for changes in (lesson.start, lesson.solution, *lesson.wrong):
        named = {p for p in PARTS if getattr(changes, p) is not None}
        assert named <= {HELD_BY.get(page)}, f"{lesson.id} changes {named} off its {page} page"
    start, solved = lesson.start_situation(), lesson.solution_situation()
    assert not lesson.check(elsewhere(start, page)).passed
    assert lesson.check(elsewhere(solved, page)).passed, f"{lesson.id}'s goal reads another page's settings"


def page_for(qtbot: QtBot, page_id: str, scenario: Scenario) -> QWidget:
    page = create_page(page_id, scenario)
    qtbot.addWidget(page)
    return page


def test_start_sets_the_scenario_and_the_page_part(qtbot: QtBot) -> None:
    lesson = next(x for x in lessons() if x.id == "serve-32-users-8k")
    scenario = Scenario()
    scenario.update(method=Method.LORA, unit="GiB")
    page = page_for(qtbot, "serving", scenario)
    part = part_of(page)
    assert part is not None
    with qtbot.waitSignal(scenario.changed) as seen:
        apply_start(lesson, scenario, part)
    assert "setup.method" in seen.args[0]
    assert situation_of(lesson, scenario, part) == lesson.start_situation()
    assert scenario.unit == "GiB"  # the unit is the learner's
    page.state.update(sequences=5)  # type: ignore[attr-defined]
    assert situation_of(lesson, scenario, part).serving.sequences == 5


def test_a_page_without_a_part_reads_the_scenario_only(qtbot: QtBot) -> None:
    lesson = next(x for x in lessons() if x.id == "fit-7b-24gb")
    scenario = Scenario()
    assert part_of(page_for(qtbot, "memory", scenario)) is None
    apply_start(lesson, scenario, None)
    assert situation_of(lesson, scenario, None) == lesson.start_situation()
    scenario.update(seq_len=1024)
    assert situation_of(lesson, scenario, None).setup.seq_len == 1024
