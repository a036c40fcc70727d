"""The step player: builds, holds, advances, pauses, and leaves no timer running."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from pytestqt.qtbot import QtBot

from gui.widgets.step_player import StepPlayer


@pytest.fixture
def player(qtbot: QtBot) -> Iterator[StepPlayer]:
    p = StepPlayer(4, lambda _i: 40)
    yield p
    p.stop()


def test_next_builds_the_step_to_the_end(qtbot: QtBot, player: StepPlayer) -> None:
    frames: list[tuple[int, float]] = []
    player.frame.connect(lambda i, t: frames.append((i, t)))
    player.next()
    assert player.index == 1
    qtbot.waitUntil(lambda: not player.is_building(), timeout=2000)
    assert frames[-1] == (1, 1.0)
    assert all(i == 1 for i, _ in frames)
    assert not player.playing


def test_previous_first_last_show_whole_steps(player: StepPlayer) -> None:
    frames: list[tuple[int, float]] = []
    player.frame.connect(lambda i, t: frames.append((i, t)))
    player.last()
    player.previous()
    player.first()
    player.previous()  # clamped at the first step
    assert frames == [(3, 1.0), (2, 1.0), (0, 1.0), (0, 1.0)]


def test_play_runs_to_the_end_then_stops(qtbot: QtBot, player: StepPlayer, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("gui.widgets.step_player.HOLD_MS", 10)
    player.set_speed(4.0)
    player.toggle()
    assert player.playing
    qtbot.waitUntil(lambda: player.index == 3 and not player.playing, timeout=3000)


def test_pause_and_resume_mid_build(qtbot: QtBot) -> None:
    player = StepPlayer(3, lambda _i: 5_000)
    player.toggle()
    qtbot.wait(30)
    player.toggle()
    assert not player.playing
    assert player.is_building()  # paused, keeps its place
    player.toggle()
    assert player.playing
    player.stop()
    assert not player.is_building()


def test_speed_change_keeps_the_build_going(qtbot: QtBot) -> None:
    player = StepPlayer(3, lambda _i: 5_000)
    player.next()
    player.set_speed(0.5)
    assert player.speed == 0.5
    assert player.is_building()
    player.stop()
