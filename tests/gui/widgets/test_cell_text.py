"""gui.widgets.cell_text: how a cell writes its number, and the item's extent in data units."""

from __future__ import annotations

import math

import pytest
from pytestqt.qtbot import QtBot

from gui.widgets.cell_text import MINUS_INF, CellTextItem, cell_label


@pytest.mark.parametrize(("value", "text"), [(1.234, "1.23"), (-0.5, "−0.50"), (-0.001, "0.00"),
                                             (-math.inf, MINUS_INF), (math.inf, "∞")])
def test_cell_label(value: float, text: str) -> None:
    assert cell_label(value) == text


def test_bounding_rect_is_the_grid(qtbot: QtBot) -> None:
    item = CellTextItem()
    item.set_cells([["1", "2", "3"], ["4", "5", "6"]], [["#000000"] * 3] * 2)
    rect = item.boundingRect()
    assert (rect.width(), rect.height()) == (3, 2)
    item.set_cells([], [])
    assert item.boundingRect().isEmpty()
