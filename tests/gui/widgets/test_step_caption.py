"""gui.widgets.step_caption: the step's number and name, its formula, its explanation."""

from __future__ import annotations

from pytestqt.qtbot import QtBot

from gui.widgets.step_caption import StepCaption


def test_shows_a_step(qtbot: QtBot) -> None:
    caption = StepCaption()
    qtbot.addWidget(caption)
    caption.show_step(3, "Keys", "K = X Wk", "Each token's key.")
    assert caption.name.text() == "3. Keys"
    assert caption.formula.text() == "K = X Wk"
    assert caption.explanation.text() == "Each token's key."
