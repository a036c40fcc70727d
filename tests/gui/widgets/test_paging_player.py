"""gui.widgets.paging_player: both allocations stepped together, the engine's frames shown, play and reset."""

from __future__ import annotations

import pytest
from pytestqt.qtbot import QtBot

from engine.serving import Allocation, Frame, PoolSpec, simulate
from engine.serving.trace import SHAREGPT, request_stream
from gui.widgets.paging_player import SPEEDS, PagingPlayer

REQUESTS = request_stream(SHAREGPT, 20, 0)


def _key(f: Frame | None) -> tuple[int, int, int, int, list[int]]:
    assert f is not None
    return f.step, f.used, f.reserved, f.running, f.owner.tolist()


@pytest.fixture
def player(qtbot: QtBot) -> PagingPlayer:
    p = PagingPlayer(REQUESTS, PoolSpec())
    qtbot.addWidget(p)
    return p


def test_frames_are_the_engines(player: PagingPlayer) -> None:
    player.step(9)  # ten steps in all: reset showed the first
    for allocation in Allocation:
        frames = list(simulate(REQUESTS, allocation, PoolSpec()))
        assert _key(player.lane_frame(allocation)) == _key(frames[9])
    assert player.speed_label.text() == f"{SPEEDS[player.speed.value()]} steps per tick"


def test_runs_to_the_end_then_stops(qtbot: QtBot, player: PagingPlayer) -> None:
    with qtbot.waitSignal(player.finished, timeout=5000):
        player.step(100_000)
    assert not player.is_playing()
    player.reset()
    first = next(iter(simulate(REQUESTS, Allocation.PAGED, PoolSpec())))
    assert _key(player.lane_frame(Allocation.PAGED)) == _key(first)


def test_play_pause_and_hide(player: PagingPlayer) -> None:
    player.play()
    assert player.is_playing()
    assert player.play_button.text() == "Pause"
    player.pause()
    assert player.play_button.text() == "Play"
    player.show()
    player.play()
    player.hide()
    assert not player.is_playing()
