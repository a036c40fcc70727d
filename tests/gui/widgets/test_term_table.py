"""gui.widgets.term_table: terms with their bytes in one or two columns, a dash where a column has none."""

from __future__ import annotations

from pytestqt.qtbot import QtBot

from engine.units import Unit
from gui.look.palette import LIGHT
from gui.widgets.term_table import Row, TermTable


def test_rows_columns_and_swatches(qtbot: QtBot) -> None:
    table = TermTable()
    qtbot.addWidget(table)
    rows: list[Row] = [("weights", [2_500_000_000, 2_500_000_000]), ("gradients", [0, 0]),
            ("unattributed", [None, 512_000])]
    table.show_rows(["predicted", "measured"], rows, Unit.GB)
    assert table.cells() == [["Weights", "2.5 GB", "2.5 GB"], ["Unattributed", "—", "0.5 MB"]]  # no empty row
    assert LIGHT.term("weights") in table.text()
    assert "predicted" in table.text()
    table.show_rows(["predicted"], [("weights", [2**30])], Unit.GIB)
    assert table.cells() == [["Weights", "1.0 GiB"]]
