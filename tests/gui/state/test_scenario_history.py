"""gui.state.scenario_history: whole-scenario steps are undone and redone exactly; edits in between are kept for
Redo."""

from __future__ import annotations

from PySide6.QtGui import QAction
from pytestqt.qtbot import QtBot

from engine.catalog import get_gpu, get_model
from gui.state import scenario_data
from gui.state.scenario import Scenario
from gui.state.scenario_history import ScenarioHistory, Step


def test_replace_undo_redo_round_trip(qtbot: QtBot) -> None:
    sc = Scenario()
    history = ScenarioHistory(sc)
    start = sc.value
    other = start.model_copy(update={"model": get_model("llama-3-8b"), "gpu": get_gpu("h100-80gb")})
    with qtbot.waitSignal(history.changed):
        assert history.replace(other, Step.IMPORT, "a.yml")
    assert sc.value == other
    assert history.undo()
    assert sc.value == start
    assert history.redo()
    assert sc.value == other
    assert not history.redo()
    assert history.undo()
    assert not history.undo()


def test_nothing_changed_is_no_step() -> None:
    sc = Scenario()
    history = ScenarioHistory(sc)
    assert not history.replace(sc.value, Step.RESET)
    with history.recording(Step.MODEL, "config.json"):
        pass
    assert not history.can_undo()


def test_edits_after_a_step_come_back_with_redo() -> None:
    sc = Scenario()
    history = ScenarioHistory(sc)
    history.replace(scenario_data.defaults().model_copy(update={"model": get_model("llama-3-8b")}), Step.OPEN, "x")
    sc.update(seq_len=1024)
    edited = sc.value
    history.undo()
    history.redo()
    assert sc.value == edited


def test_a_new_step_clears_redo_and_the_stack_is_bounded() -> None:
    sc = Scenario()
    history = ScenarioHistory(sc, limit=3)
    for n in (1024, 2048, 4096 * 2, 512, 256):
        history.replace(sc.value.model_copy(update={"setup": sc.setup.with_(seq_len=n)}), Step.IMPORT, str(n))
    history.undo()
    assert history.can_redo()
    history.replace(scenario_data.defaults(), Step.RESET)
    assert not history.can_redo()
    undone = 0
    while history.undo():
        undone += 1
    assert undone == 3


def test_a_failed_block_still_records_what_it_changed() -> None:
    sc = Scenario()
    history = ScenarioHistory(sc)
    try:
        with history.recording(Step.MODEL, "config.json"):
            sc.update(seq_len=1024)
            raise ValueError("late failure")
    except ValueError:
        pass
    assert history.can_undo()


def test_the_menu_actions_follow(qtbot: QtBot) -> None:
    sc = Scenario()
    history = ScenarioHistory(sc)
    undo, redo = QAction("u"), QAction("r")
    history.attach(undo, redo)
    assert (undo.isEnabled(), redo.isEnabled()) == (False, False)
    assert undo.text() == "&Undo"
    history.replace(scenario_data.defaults().model_copy(update={"gpu": get_gpu("h100-80gb")}), Step.OPEN, "R&D.json")
    assert undo.isEnabled()
    assert undo.text() == "&Undo opening R&&D.json"
    history.undo()
    assert redo.isEnabled()
    assert redo.text() == "&Redo opening R&&D.json"
    assert not undo.isEnabled()
    history.redo()
    history.replace(scenario_data.defaults(), Step.RESET)
    assert undo.text() == "&Undo reset to defaults"
