"""The block map and its player: frames from the engine shown as they are, timers that stop."""

from __future__ import annotations

import numpy as np
import pytest
from PySide6.QtWidgets import QLabel, QWidget
from pytestqt.qtbot import QtBot

from engine.serving import Allocation, PoolSpec, TraceShape, request_stream, simulate
from gui.widgets.block_map import BlockMap
from gui.widgets.paging_player import PagingPlayer

POOL = PoolSpec()
REQUESTS = request_stream(TraceShape(), 12, 1)


def _step(player: PagingPlayer) -> int:
    frame = player.lane_frame(Allocation.PAGED)
    return -1 if frame is None else frame.step


def test_block_map_shows_the_frame(qtbot: QtBot) -> None:
    bmap = BlockMap(POOL.blocks)
    qtbot.addWidget(bmap)
    frame = next(f for f in simulate(REQUESTS, Allocation.PAGED, POOL) if f.running >= 2)
    bmap.show_frame(frame.owner, frame.fill, POOL.block_size)
    assert np.array_equal(bmap.owners(), frame.owner)
    bmap.resize(640, 320)
    image = bmap.grab().toImage()
    assert image.width() == 640


def test_block_map_rejects_a_wrong_size(qtbot: QtBot) -> None:
    bmap = BlockMap(8)
    qtbot.addWidget(bmap)
    with pytest.raises(ValueError, match="expected 8 blocks"):
        bmap.show_frame(np.zeros(9, dtype=np.int32), np.zeros(9, dtype=np.int32), 16)


def test_player_steps_match_the_engine(qtbot: QtBot) -> None:
    player = PagingPlayer(REQUESTS, POOL)
    qtbot.addWidget(player)
    player.step(199)  # reset showed step 0
    for allocation in Allocation:
        expected = list(simulate(REQUESTS, allocation, POOL))[199]
        shown = player.lane_frame(allocation)
        assert shown is not None
        assert shown.step == 199
        assert np.array_equal(shown.owner, expected.owner)
        label = player.findChild(QLabel, f"waste-{allocation.value}")
        assert label is not None
        assert f"{expected.waste:.1%}" in label.text()


def test_play_pause_reset_and_hide_stop_the_timer(qtbot: QtBot) -> None:
    host = QWidget()
    qtbot.addWidget(host)
    player = PagingPlayer(REQUESTS, POOL, host)
    host.show()
    player.play_button.click()
    assert player.is_playing()
    qtbot.waitUntil(lambda: _step(player) > 5)
    player.play_button.click()
    assert not player.is_playing()
    player.play()
    host.hide()
    assert not player.is_playing()
    player.reset_button.click()
    frame = player.lane_frame(Allocation.CONTIGUOUS)
    assert frame is not None
    assert frame.step == 0


def test_runs_to_the_end_and_stops(qtbot: QtBot) -> None:
    host = QWidget()
    qtbot.addWidget(host)
    player = PagingPlayer(request_stream(TraceShape(mean_prompt=8, mean_output=8), 3, 0), POOL, host)
    host.show()
    with qtbot.waitSignal(player.finished, timeout=5000):
        player.speed.setValue(6)
        player.play()
    assert not player.is_playing()
