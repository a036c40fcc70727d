"""gui.lessons.progress: the learner's progress is written through to the settings, read back, and reset."""

from __future__ import annotations

import pytest

from gui.lessons.progress import PASSED, LessonProgress
from gui.settings import LESSONS_OPEN_KEY, settings

IDS = ["first", "second", "third"]


def test_a_fresh_learner_starts_at_the_first_lesson() -> None:
    p = LessonProgress(IDS)
    assert (p.current, p.started, p.passed, p.hints("second")) == ("first", None, frozenset(), 0)


def test_progress_is_read_back_by_a_new_reader() -> None:
    p = LessonProgress(IDS)
    p.set_current("second")
    p.start("second")
    assert p.mark_passed("third")
    assert not p.mark_passed("third")  # not new
    assert p.mark_passed("first")
    assert [p.reveal_hint("second", total=2) for _ in range(3)] == [1, 2, 2]  # never past the last hint
    again = LessonProgress(IDS)
    assert (again.current, again.started, again.passed) == ("second", "second", frozenset({"first", "third"}))
    assert (again.hints("second"), again.hints("first")) == (2, 0)
    assert settings().value(PASSED) == "first third"  # course order, one string


def test_a_single_passed_lesson_reads_back_as_a_set_of_one() -> None:
    LessonProgress(IDS).mark_passed("second")
    assert LessonProgress(IDS).passed == {"second"}


def test_ids_of_lessons_that_no_longer_exist_are_dropped() -> None:
    p = LessonProgress([*IDS, "gone"])
    p.mark_passed("gone")
    p.set_current("gone")
    p.start("gone")
    again = LessonProgress(IDS)
    assert (again.current, again.started, again.passed) == ("first", None, frozenset())


def test_reset_forgets_everything_but_the_drawer() -> None:
    settings().setValue(LESSONS_OPEN_KEY, True)
    p = LessonProgress(IDS)
    p.set_current("third")
    p.start("third")
    p.mark_passed("third")
    p.reveal_hint("third", 3)
    p.reset()
    for reader in (p, LessonProgress(IDS)):
        assert (reader.current, reader.started, reader.passed, reader.hints("third")) == ("first", None, frozenset(), 0)
    assert settings().value(LESSONS_OPEN_KEY) in (True, "true")


def test_an_unknown_id_is_refused() -> None:
    with pytest.raises(KeyError):
        LessonProgress(IDS).start("nope")
    with pytest.raises(ValueError, match="no lessons"):
        LessonProgress([])


def test_a_bad_hint_count_in_the_settings_reads_as_none_shown() -> None:
    settings().setValue("lessons/hints/first", "many")
    assert LessonProgress(IDS).hints("first") == 0
