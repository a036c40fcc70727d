"""gui.widgets.player_bar: buttons and a scrubber that drive one ``StepPlayer`` and show its state."""

from __future__ import annotations

from pytestqt.qtbot import QtBot

from gui.widgets.player_bar import PlayerBar
from gui.widgets.step_player import SPEEDS, StepPlayer


def test_buttons_and_scrubber_drive_the_player(qtbot: QtBot) -> None:
    player = StepPlayer(8, lambda _i: 0)
    bar = PlayerBar(player)
    qtbot.addWidget(bar)
    assert bar.position.text() == "Step 1 / 8"
    assert not bar.previous.isEnabled()
    assert not bar.first.isEnabled()
    bar.last.click()
    assert player.index == 7
    assert bar.position.text() == "Step 8 / 8"
    assert not bar.next.isEnabled()
    bar.scrubber.setValue(3)
    assert player.index == 2
    bar.first.click()
    assert bar.scrubber.value() == 1
    bar.speed.setCurrentIndex(SPEEDS.index(2.0))
    assert player.speed == 2.0
    player.set_speed(0.5)
    assert bar.speed.currentText() == "0.5×"
    player.stop()
