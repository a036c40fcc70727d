"""gui.lessons.lesson_view: a lesson's texts in one language, the verdict it is given, hints, the explanation."""

from __future__ import annotations

from PySide6.QtWidgets import QLabel
from pytestqt.qtbot import QtBot

from engine.lessons import Check, get_lesson
from engine.lessons.text import text
from gui.lessons.lesson_view import LessonView

LESSON = get_lesson("fit-7b-24gb")


def make(qtbot: QtBot, lang: str = "en", hints: int = 0, started: bool = True) -> LessonView:
    view = LessonView()
    qtbot.addWidget(view)
    view.show_lesson(LESSON, lang, hints, started, passed_ever=False)
    return view


def shown_hints(view: LessonView) -> list[str]:
    return [w.text() for w in view.findChildren(QLabel) if w.objectName().startswith("lessonHint") and
            w.isVisibleTo(view)]


def test_texts_in_the_language_asked(qtbot: QtBot) -> None:
    view = make(qtbot, "zh_TW", hints=1)
    assert view.title.text() == LESSON.title.zh_TW
    assert view.text.text() == LESSON.text.zh_TW
    assert LESSON.hints[0].zh_TW in view.hint_labels[0].text()
    assert view.verdict() is None


def test_not_started_asks_for_start_and_checks_nothing(qtbot: QtBot) -> None:
    view = make(qtbot, started=False)
    assert "Press Start" in view.status.text()
    assert view.start.text() == "Start this lesson"
    assert not view.explanation.isVisibleTo(view)


def test_a_verdict_and_the_explanation_once_met(qtbot: QtBot) -> None:
    view = make(qtbot)
    view.show_check(Check(False, text("Does not fit <yet> & so on.", "放不下。")), passed_ever=False)
    assert view.verdict() is False
    assert "Does not fit &lt;yet&gt; &amp; so on." in view.status.text()
    assert not view.explanation.isVisibleTo(view)
    view.show_check(Check(True, text("Fits.", "放得下。")), passed_ever=True)
    assert view.verdict() is True
    assert view.explanation.isVisibleTo(view)
    assert LESSON.explanation.facts[0].source in view.explanation_text.text()
    view.show_check(Check(False, text("No.", "不行。")), passed_ever=True)  # met once: the explanation stays
    assert view.explanation.isVisibleTo(view)


def test_fewer_hints_leave_no_stale_label_before_the_event_loop_runs(qtbot: QtBot) -> None:
    view = make(qtbot, hints=3)
    assert len(shown_hints(view)) == 3
    assert not view.hint_button.isEnabled()
    view.show_hints(1)
    assert shown_hints(view) == [f"Hint 1: {LESSON.hints[0].en}"]
    assert view.hint_button.isEnabled()
