"""Lessons: a self-paced course through the app's story, each goal checked by the engine as the learner changes
the setup (issue 18).

The course follows the seed guide: the memory bill, attention's eight steps, the three levers, alignment's models
in memory, serving's KV cache. Each lesson is one data file (``data/<id>.json``, no code): titles and texts in
English and Traditional Chinese, the page it lives on, a starting setup, a goal, two or three hints, a known
solution and an explanation with its facts and sources.

For a front end (the GUI, the command line):

* :func:`lessons` lists them in course order (``lesson.id``, ``.title.en`` / ``.title.zh_TW``, ``.page``);
* ``lesson.start_situation()`` is the scenario and page settings to apply (model, GPU, training setup, the
  serving page's ``ServingSetup``, the alignment page's ``AlignmentOptions``, the attention page's step);
* ``lesson.check(situation)`` checks the goal against the learner's current :class:`Situation` and returns
  :class:`Check` (``passed``, ``why`` in both languages); it runs only the engine results the goal reads
  (one training estimate is about 40 µs), so it can run on every slider move.
"""

from engine.lessons.goals import Check, FitTarget, Op
from engine.lessons.lesson import Explanation, Fact, Lesson, Page
from engine.lessons.loader import LessonError, get_lesson, lessons, parse_lesson
from engine.lessons.quantities import Kind, Quantity, quantity, registry
from engine.lessons.situation import Changes, Results, Situation
from engine.lessons.text import Lang, Text

__all__ = [
    "Changes",
    "Check",
    "Explanation",
    "Fact",
    "FitTarget",
    "Kind",
    "Lang",
    "Lesson",
    "LessonError",
    "Op",
    "Page",
    "Quantity",
    "Results",
    "Situation",
    "Text",
    "get_lesson",
    "lessons",
    "parse_lesson",
    "quantity",
    "registry",
]
