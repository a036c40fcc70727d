"""gui.widgets.reason_note: a refused value's rule, on one line beside the controls, until the next change."""

from __future__ import annotations

from pytestqt.qtbot import QtBot

from gui.look.palette import LIGHT
from gui.widgets.reason_note import ReasonNote, reason_of


def test_the_engines_rule_without_its_paths() -> None:
    assert reason_of("setup.parallel.tp, setup.gpus: Value error, tp (3) must divide the attention heads (32)") == (
        "tp (3) must divide the attention heads (32)")
    assert reason_of("setup.gpus: Input should be greater than or equal to 1") == (
        "setup.gpus: Input should be greater than or equal to 1")


def test_shown_on_refusal_hidden_on_the_next_change(qtbot: QtBot) -> None:
    note = ReasonNote()
    qtbot.addWidget(note)
    assert note.isHidden()
    note.show_reason("parallel.tp", "setup.parallel.tp: Value error, tp (3) must divide the attention heads (32)")
    assert not note.isHidden()
    assert "tp (3) must divide the attention heads (32)" in note.text()
    assert LIGHT.over in note.text()
    note.clear_reason(frozenset({"setup.gpus"}))
    assert note.isHidden()
    assert note.reason == ""
