"""gui.widgets.reflow_grid: two columns while each cell gets its lines of width, one column below that."""

from __future__ import annotations

from PySide6.QtWidgets import QLabel
from pytestqt.qtbot import QtBot

from gui.widgets.reflow_grid import ReflowGrid


def test_cells_reflow_to_one_column_when_narrow(qtbot: QtBot) -> None:
    cells = [QLabel(f"cell {i}") for i in range(4)]
    grid = ReflowGrid(cells, columns=2, cell_lines=10)
    qtbot.addWidget(grid)
    line = grid.fontMetrics().height()
    grid.resize(25 * line, 200)
    grid.show()
    assert grid.columns == 2
    grid.resize(15 * line, 200)
    qtbot.waitUntil(lambda: grid.columns == 1)
    assert grid.minimumSizeHint().width() < 2 * cells[0].minimumSizeHint().width() + 20  # narrow enough to reflow
