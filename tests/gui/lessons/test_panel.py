"""gui.lessons.panel, in the real main window: Start applies a lesson's start and fails its goal; its solution,
set through the real controls or the states they write to, passes it, with the explanation; hints come in order;
progress survives a rebuilt window and resets; the keyboard reaches every button; presentation mode keeps it."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication, QLabel, QPushButton, QWidget
from pytestqt.qtbot import QtBot

from engine.catalog import get_gpu, get_model
from engine.lessons import Changes, Lesson, lessons
from engine.specs import Checkpointing, Method
from gui.lessons.lesson_list import PASSED_MARK
from gui.lessons.panel import LessonsPanel
from gui.lessons.progress import LessonProgress
from gui.look.palette import DARK, LIGHT
from gui.look.theme import ThemeManager, ThemeMode
from gui.shell.main_window import MainWindow
from gui.state.scenario import Scenario
from gui.text import i18n

LESSONS = {x.id: x for x in lessons()}


@pytest.fixture
def window(qtbot: QtBot, theme: ThemeManager, qapp: QApplication) -> Iterator[MainWindow]:
    win = MainWindow(Scenario(), theme)
    qtbot.addWidget(win)
    win.resize(1280, 800)
    win.show()
    win.lessons.set_open(True)
    yield win
    win.presentation.leave()
    i18n.set_language(qapp, "en")


def panel_of(win: MainWindow) -> LessonsPanel:
    panel = win.lessons.panel
    assert isinstance(panel, LessonsPanel)
    return panel


def page(win: MainWindow, page_id: str) -> Any:
    """A page, typed loosely: tests reach into page-specific attributes."""
    return win.pages.page(page_id)


def start(win: MainWindow, lesson_id: str) -> LessonsPanel:
    panel = panel_of(win)
    panel.show_lesson(lesson_id)
    panel.view.start.click()
    panel.flush()
    return panel


def status(panel: LessonsPanel) -> str:
    return panel.view.status.text()


def explained(panel: LessonsPanel) -> bool:
    return panel.view.explanation.isVisibleTo(panel)


def solve(win: MainWindow, lesson: Lesson, changes: Changes) -> None:
    """Apply ``changes`` as the controls do: the scenario's fields, then the page's own state."""
    target = lesson.solution_situation()
    fields: dict[str, Any] = {}
    if changes.model:
        fields["model"] = get_model(changes.model)
    if changes.gpu:
        fields["gpu"] = get_gpu(changes.gpu)
    if changes.setup is not None:
        fields |= {f: getattr(target.setup, f) for f in changes.setup.model_fields_set}
    if fields:
        win.scenario.update(**fields)
    own = page(win, lesson.page.value)
    if changes.serving is not None:
        own.state.update(**{f: getattr(target.serving, f) for f in changes.serving.model_fields_set})
    if changes.alignment is not None:
        own.state.update(**{f"options.{f}": getattr(target.alignment, f) for f in changes.alignment.model_fields_set})
    if changes.attention_step is not None:
        own.player.go([s.key for s in own.steps].index(changes.attention_step))


@pytest.mark.parametrize("lesson_id", list(LESSONS))
def test_start_fails_the_goal_and_the_solution_passes_it(window: MainWindow, lesson_id: str) -> None:
    lesson = LESSONS[lesson_id]
    window.scenario.update(seq_len=2048, batch=3)  # the learner's own setup, before the lesson
    panel = start(window, lesson_id)
    begin = lesson.start_situation()
    assert window.pages.current_page_id() == lesson.page.value
    assert (window.scenario.model, window.scenario.gpu, window.scenario.setup) == (begin.model, begin.gpu, begin.setup)
    assert "✗ Not yet." in status(panel)
    assert lesson.check(begin).why.en in status(panel)
    assert not explained(panel)
    solve(window, lesson, lesson.solution)
    panel.flush()
    assert "✓ Goal met." in status(panel)
    assert explained(panel)
    text = panel.view.explanation_text.text()
    assert all(f"Source: {f.source}".replace("&", "&amp;") in text for f in lesson.explanation.facts)
    assert panel.list.currentItem().text().startswith(PASSED_MARK)
    assert panel.summary.text() == "1 of 12 lessons passed"
    assert LessonProgress(list(LESSONS)).passed == {lesson_id}


def test_a_wrong_answer_does_not_pass(window: MainWindow) -> None:
    lesson = LESSONS["fit-7b-24gb"]
    panel = start(window, lesson.id)
    solve(window, lesson, lesson.wrong[0])  # QLoRA without checkpointing
    panel.flush()
    assert "✗ Not yet." in status(panel)
    assert not explained(panel)
    assert panel.progress.passed == set()


def test_memory_lesson_through_the_real_controls(qtbot: QtBot, window: MainWindow) -> None:
    panel = start(window, "fit-7b-24gb")
    controls = page(window, "memory").controls
    controls.method_buttons[Method.QLORA].click()
    panel.flush()
    assert "✗ Not yet." in status(panel)  # the activations still overflow
    controls.checkpointing.click()
    assert window.scenario.setup.checkpointing is Checkpointing.FULL
    qtbot.waitUntil(lambda: "✓ Goal met." in status(panel))  # live: no flush, no submit


def test_attention_lesson_through_the_keyboard_and_the_size_panel(qtbot: QtBot, window: MainWindow) -> None:
    panel = start(window, "attention-scores-explode")
    attention = page(window, "attention")
    for _ in range(4):  # X -> Q -> K -> V -> scores
        qtbot.keyClick(attention, Qt.Key.Key_Right)
    assert attention.steps[attention.player.index].key == "scores"
    panel.flush()
    assert "✗ Not yet." in status(panel)  # the scores at 4,096 tokens are 1 GB
    attention.size_panel.spin.setValue(32768)
    qtbot.waitUntil(lambda: "✓ Goal met." in status(panel))
    attention.player.stop()


def test_serving_lesson_through_the_model_picker(qtbot: QtBot, window: MainWindow) -> None:
    panel = start(window, "serve-32-users-8k")
    picker = page(window, "serving").controls.model_box
    row = next(r for r in range(picker.count()) if (m := picker.model_at(r)) and m.id == "llama-3.1-8b")
    picker.setCurrentIndex(row)
    picker.activated.emit(row)  # what a pick in its list sends
    qtbot.waitUntil(lambda: "✓ Goal met." in status(panel))


def test_a_lesson_not_started_is_not_checked(window: MainWindow) -> None:
    panel = panel_of(window)
    panel.show_lesson("full-7b-one-80gb")
    window.scenario.update(precision="bf16")  # its solution, but the lesson was never started
    panel.flush()
    assert "Press Start" in status(panel)
    assert panel.progress.passed == set()


def test_hidden_it_checks_nothing_until_shown_again(window: MainWindow) -> None:
    panel = start(window, "full-7b-one-80gb")
    window.lessons.set_open(False)
    window.scenario.update(precision="bf16")
    assert panel.recompute.pending()
    assert "✗ Not yet." in status(panel)
    window.lessons.set_open(True)
    assert "✓ Goal met." in status(panel)


def test_hints_come_one_at_a_time_in_order(qtbot: QtBot, window: MainWindow) -> None:
    lesson = LESSONS["gqa-70b-kv-cache"]
    panel = panel_of(window)
    panel.show_lesson(lesson.id)
    view = panel.view
    assert view.hint_labels == []
    for n, hint in enumerate(lesson.hints, 1):
        assert view.hint_button.text() == f"Show a hint ({n} of {len(lesson.hints)})"
        view.hint_button.click()
        assert [h.text() for h in view.hint_labels][-1] == f"Hint {n}: {hint.en}"
        assert len(view.hint_labels) == n
    assert not view.hint_button.isEnabled()
    assert view.hint_button.text() == "Every hint is shown"
    assert LessonProgress(list(LESSONS)).hints(lesson.id) == len(lesson.hints)
    panel.next.click()  # another lesson: its own hints, none shown
    assert view.hint_labels == []
    panel.previous.click()
    assert len(view.hint_labels) == len(lesson.hints)


def test_next_and_previous_walk_the_course(window: MainWindow) -> None:
    panel = panel_of(window)
    ids = list(LESSONS)
    assert panel.progress.current == ids[0]
    assert not panel.previous.isEnabled()
    for expected in ids[1:]:
        panel.next.click()
        assert (panel.progress.current, panel.list.current_id()) == (expected, expected)
        assert panel.view.title.text() == LESSONS[expected].title.en
    assert not panel.next.isEnabled()
    panel.list.setCurrentRow(2)  # picking a row in the list
    assert panel.progress.current == ids[2]


def test_progress_survives_a_language_switch_and_resets(window: MainWindow) -> None:
    lesson = LESSONS["full-7b-one-80gb"]
    panel = start(window, lesson.id)
    panel.view.hint_button.click()
    solve(window, lesson, lesson.solution)
    panel.flush()
    window.actions_by_id["lang:zh_TW"].trigger()
    new = panel_of(window)
    assert new is not panel
    new.flush()
    assert new.view.title.text() == lesson.title.zh_TW
    assert new.list.currentItem().text().startswith(f"{PASSED_MARK} 3. {lesson.title.zh_TW}")
    assert len(new.view.hint_labels) == 1
    assert lesson.hints[0].zh_TW in new.view.hint_labels[0].text()
    assert lesson.check(lesson.solution_situation()).why.zh_TW in status(new)  # still started, checked in Chinese
    assert new.summary.text() == "已完成 1 課，共 12 課"
    new.confirm_reset = lambda: True  # type: ignore[method-assign]
    new.reset.click()
    assert new.progress.passed == set()
    assert new.list.currentRow() == 0
    assert not any(new.list.item(r).text().startswith(PASSED_MARK) for r in range(new.list.count()))
    assert "按下" in status(new)  # not started any more: "press Start"
    assert LessonProgress(list(LESSONS)).passed == set()


def test_reset_asks_first(window: MainWindow) -> None:
    panel = start(window, "full-7b-one-80gb")
    window.scenario.update(precision="bf16")
    panel.flush()
    panel.confirm_reset = lambda: False  # type: ignore[method-assign]
    panel.reset.click()
    assert panel.progress.passed == {"full-7b-one-80gb"}


def tabbable(widget: QWidget) -> bool:
    return bool(widget.focusPolicy() & Qt.FocusPolicy.TabFocus) and widget.isEnabled() and widget.isVisibleTo(
        widget.window())


def focus_chain(start_at: QWidget, count: int) -> list[QWidget]:
    """The next ``count`` widgets Tab reaches after ``start_at``."""
    chain: list[QWidget] = []
    widget: QWidget | None = start_at
    while len(chain) < count and widget is not None:
        widget = widget.nextInFocusChain()
        if widget is not None and tabbable(widget):
            chain.append(widget)
    return chain


def test_the_keyboard_reaches_every_button_and_presses_it(qtbot: QtBot, window: MainWindow) -> None:
    panel = panel_of(window)
    panel.show_lesson("full-7b-one-80gb")
    view = panel.view
    chain = focus_chain(panel.list, 6)
    assert chain.index(view.start) < chain.index(view.hint_button) < chain.index(panel.previous)
    assert chain.index(panel.previous) < chain.index(panel.next) < chain.index(panel.reset)
    window.activateWindow()
    qtbot.waitUntil(lambda: QApplication.activeWindow() is window)
    panel.list.setFocus()
    qtbot.keyClick(panel.list, Qt.Key.Key_Down)
    assert panel.progress.current == "lora-8b-8k-4090"
    qtbot.keyClick(view.hint_button, Qt.Key.Key_Space)
    qtbot.keyClick(view.hint_button, Qt.Key.Key_Return)
    assert len(view.hint_labels) == 2
    qtbot.keyClick(view.start, Qt.Key.Key_Enter)
    assert window.scenario.model.id == "llama-3.1-8b"
    assert panel.progress.started == "lora-8b-8k-4090"


def test_ctrl_l_and_the_view_menu_toggle_the_drawer_and_it_is_remembered(
    qtbot: QtBot, window: MainWindow, theme: ThemeManager
) -> None:
    action = window.actions_by_id["lessons"]
    assert action.isChecked()
    assert window.lessons.isVisible()
    window.activateWindow()
    qtbot.waitUntil(lambda: QApplication.activeWindow() is window)
    qtbot.keyClick(window.pages.currentWidget(), Qt.Key.Key_L, Qt.KeyboardModifier.ControlModifier)
    assert not window.lessons.isVisible()
    assert not action.isChecked()
    again = MainWindow(Scenario(), theme)
    qtbot.addWidget(again)
    again.show()
    assert not again.lessons.isVisible()
    assert again.lessons.panel is None
    action.trigger()
    assert window.lessons.isVisible()
    assert action.isChecked()
    window.lessons.close()  # its own close button
    assert not action.isChecked()
    assert not window.lessons.saved_open()


def visible_labels(panel: LessonsPanel) -> list[QLabel]:
    return [w for w in panel.findChildren(QLabel) if w.isVisibleTo(panel) and w.text()]


@pytest.mark.parametrize("scale", [150, 200])
def test_presentation_mode_keeps_the_panel_readable(qtbot: QtBot, window: MainWindow, scale: int) -> None:
    panel = start(window, "serve-32-users-8k")
    panel.view.hint_button.click()
    normal = panel.font().pointSizeF()
    window.actions_by_id[f"scale:{scale}"].trigger()
    window.actions_by_id["present"].trigger()
    big = panel_of(window)
    assert window.lessons.isVisible()
    assert big.font().pointSizeF() == pytest.approx(normal * scale / 100)
    big.flush()
    assert "✗ Not yet." in status(big)
    assert len(big.view.hint_labels) == 1
    qtbot.waitUntil(lambda: big.width() > 0)
    for button in big.findChildren(QPushButton):
        if button.isVisibleTo(big):
            assert button.width() >= button.fontMetrics().horizontalAdvance(button.text()), button.text()
    for label in visible_labels(big):
        assert label.width() <= big.width()
    window.presentation.leave()
    assert panel_of(window).font().pointSizeF() == pytest.approx(normal)


def test_the_verdict_takes_the_theme_colours(window: MainWindow, theme: ThemeManager) -> None:
    panel = start(window, "full-7b-one-80gb")
    assert LIGHT.over in status(panel)
    theme.set_mode(ThemeMode.DARK)
    QApplication.sendPostedEvents()
    assert DARK.over in status(panel_of(window))


def test_during_a_drag_the_verdict_is_live_and_the_sentence_waits_for_a_pause(qtbot: QtBot, window: MainWindow) -> None:
    panel = start(window, "full-7b-one-80gb")
    before = status(panel)
    window.scenario.update(seq_len=16384)  # one step of a drag: the verdict stays "not yet"
    QApplication.processEvents()  # one event-loop turn
    assert status(panel) == before
    assert panel.recompute.pending()  # the sentence, once the input pauses
    qtbot.waitUntil(lambda: not panel.recompute.pending())
    assert status(panel) != before
    assert "213.22 GB" in status(panel)
    window.scenario.update(seq_len=4096, precision="bf16")  # a verdict that changes is drawn in the same turn
    QApplication.processEvents()
    assert panel.view.verdict() is True
    assert "✓ Goal met." in status(panel)


def test_in_presentation_mode_the_arrow_keys_stay_in_the_list(qtbot: QtBot, window: MainWindow) -> None:
    window.activateWindow()
    qtbot.waitUntil(lambda: QApplication.activeWindow() is window)
    window.actions_by_id["present"].trigger()
    panel = panel_of(window)
    panel.list.setFocus()
    qtbot.waitUntil(lambda: QApplication.focusWidget() is panel.list)
    qtbot.keyClick(panel.list, Qt.Key.Key_Down)
    assert (panel.progress.current, window.pages.current_page_id()) == (list(LESSONS)[1], "memory")
    qtbot.keyClick(panel.list, Qt.Key.Key_PageDown)  # the clicker's key still turns the page
    assert window.pages.current_page_id() == "attention"


def test_the_drawer_gives_width_back_when_the_window_narrows(window: MainWindow) -> None:
    window.resize(700, 700)
    QApplication.processEvents()
    assert window.lessons.width() <= max(0.42 * window.width(), window.lessons.minimumSizeHint().width())
    assert window.pages.width() > 0.4 * window.width()


def test_start_is_one_undoable_step(window: MainWindow) -> None:
    window.scenario.update(seq_len=2048, batch=3)
    mine = window.scenario.value
    start(window, "fit-7b-24gb")
    assert window.scenario.gpu.id == "rtx-4090"
    undo = window.actions_by_id["undo"]
    assert undo.isEnabled()
    assert undo.text() == "&Undo the start of lesson 2"
    undo.trigger()
    assert window.scenario.value == mine
