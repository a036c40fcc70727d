"""gui.widgets.live_blocks_table: the engine's live blocks, one a row, with their frames."""

from __future__ import annotations

from PySide6.QtWidgets import QTableWidgetItem
from pytestqt.qtbot import QtBot

from engine.snapshot.attribution import LiveBlock
from engine.units import Unit
from gui.widgets.live_blocks_table import SHOWN_FRAMES, LiveBlocksTable

BLOCKS = [
    LiveBlock(2_100_000_000, "logits", "forward", 337, 400, ("a.py:1:f", "b.py:2:g", "c.py:3:h", "d.py:4:i"),
              "frames"),
    LiveBlock(1_000_000, "weights", "unknown", -1, 999, (), "before_recording"),
    LiveBlock(512, "unattributed", "other", 12, 13, ("train.py:38:train_step",), "none"),
]


def cell(table: LiveBlocksTable, row: int, column: int) -> QTableWidgetItem:
    item = table.item(row, column)
    assert item is not None
    return item


def test_one_row_per_block_with_its_frames(qtbot: QtBot) -> None:
    table = LiveBlocksTable()
    qtbot.addWidget(table)
    table.show_blocks(BLOCKS, Unit.GB)
    assert table.rowCount() == 3
    rows = [[cell(table, r, c).text() for c in range(5)] for r in range(3)]
    assert rows[0] == ["2.10 GB", "Logits", "forward", "event 337", " ← ".join(BLOCKS[0].frames[:SHOWN_FRAMES])]
    assert rows[1][1:4] == ["Weights", "unknown", "before recording"]
    assert rows[1][4] == "(no frames recorded)"
    assert rows[2][1:3] == ["Unattributed", "outside the step"]
    assert cell(table, 0, 4).toolTip() == "\n".join(BLOCKS[0].frames)
    table.show_blocks([], Unit.GB)
    assert table.rowCount() == 0
