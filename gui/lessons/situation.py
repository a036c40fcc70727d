"""What a lesson's goal is checked against in the GUI, and how a lesson's start is applied to it.

The engine checks a goal against a ``Situation`` (``engine.lessons``): the model, the GPU and the training setup,
which the GUI holds in the shared ``Scenario``, and the settings of one page each (the serving page's setup, the
alignment page's variants, the attention page's step), which each page holds in its own state and exposes as a
``HoldsLessonPart`` (``gui.pages.contract``).

A lesson's controls are on its page (``Lesson.page``), so its situation is the scenario and that page's part; the
other pages' parts are the lesson's start, whatever another page shows (``tests/gui/lessons/test_situation.py``
checks that no lesson starts, solves, keeps or reads a part that another page holds). Starting a lesson sets the
scenario's model, GPU and whole training setup (the unit stays) and the lesson page's part; nothing else changes.

No Qt widget is created here; the engine is imported only by the caller (a lesson is already loaded).
"""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING

from gui.pages.contract import HoldsLessonPart
from gui.state.scenario import Scenario

if TYPE_CHECKING:
    from PySide6.QtWidgets import QWidget

    from engine.lessons import Lesson, Situation


def part_of(page: QWidget) -> HoldsLessonPart | None:
    """The page, if it holds a part of a lesson's situation."""
    return page if isinstance(page, HoldsLessonPart) else None


def situation_of(lesson: Lesson, scenario: Scenario, part: HoldsLessonPart | None) -> Situation:
    """The learner's situation for ``lesson``: the scenario, and the part its page holds (``part_of``), if any."""
    base = replace(lesson.start_situation(), model=scenario.model, gpu=scenario.gpu, setup=scenario.setup)
    return base if part is None else part.lesson_part(base)


def apply_start(lesson: Lesson, scenario: Scenario, part: HoldsLessonPart | None) -> None:
    """Set the scenario (one ``changed``) and the part its page holds, if any, to the lesson's start."""
    start = lesson.start_situation()
    scenario.update(model=start.model, gpu=start.gpu, setup=start.setup)
    if part is not None:
        part.set_lesson_part(start)
