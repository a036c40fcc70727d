"""gui.widgets.plan_table: the planner's rows as the engine gave them, sorted by their numbers, worded."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt
from pytestqt.qtbot import QtBot

from engine.catalog import get_gpu, get_model
from engine.specs import TrainingSetup
from engine.training.planner import Cost, PlanRow, costs, plan
from engine.units import Unit, format_bytes
from gui.widgets.plan_table import COLUMNS, COSTS, PlanTable, PlanTableModel, communication


@pytest.fixture(scope="module")
def rows() -> list[PlanRow]:
    return plan(get_model("llama-2-13b"), TrainingSetup(), get_gpu("h100-80gb"), 16)


@pytest.fixture
def table(qtbot: QtBot, rows: list[PlanRow]) -> PlanTable:
    view = PlanTable(PlanTableModel())
    qtbot.addWidget(view)
    view.plan_model.set_rows(rows, Unit.GB, rows[1].setup)
    return view


def test_every_cost_is_worded() -> None:
    assert set(COSTS) == set(Cost)


def test_cells_are_the_engines_numbers(table: PlanTable, rows: list[PlanRow]) -> None:
    model = table.plan_model
    assert model.rows() == rows
    headers = [model.headerData(c, Qt.Orientation.Horizontal) for c in range(model.columnCount())]
    assert headers[:2] == ["GPUs", "DP"]
    for i, r in enumerate(rows):
        cells = [model.data(model.index(i, c)) for c in range(model.columnCount())]
        assert cells[0] == str(r.setup.gpus)
        assert cells[headers.index("Device")] == format_bytes(r.estimate.device_bytes, Unit.GB, 1)
        assert cells[headers.index("Allocated")] == format_bytes(r.estimate.peak_allocated_bytes, Unit.GB, 1)
        assert cells[-1] == communication(r)
    assert model.data(model.index(1, 0), Qt.ItemDataRole.FontRole).bold()  # the scenario's own setup
    assert model.data(model.index(0, 0), Qt.ItemDataRole.FontRole) is None


def test_sorting_is_numeric_and_keeps_the_engines_rows(table: PlanTable, rows: list[PlanRow]) -> None:
    assert table.shown() == rows  # GPUs ascending, then the engine's order (the lowest device total)
    device = [c.header for c in COLUMNS].index("Device")
    table.sortByColumn(device, Qt.SortOrder.DescendingOrder)
    shown = [r.estimate.device_bytes for r in table.shown()]
    assert shown == sorted(shown, reverse=True)
    table.selectRow(0)
    assert table.selected() == table.shown()[0]


def test_the_communication_words_carry_the_engines_numbers(rows: list[PlanRow]) -> None:
    piped = next(r for r in rows if r.setup.parallel.pp > 1)
    bubble = dict(costs(piped.estimate))[Cost.PP_BUBBLE]
    assert f"pipeline bubble {bubble:.0%}" in communication(piped)


def test_time_columns_show_each_rows_speed_and_run_hours(table: PlanTable, rows: list[PlanRow]) -> None:
    """Issue 29: tokens/s over the row's GPUs and the run's hours (dataset x epochs), before the communication
    column; a row that cannot be timed shows a dash with its reason as the tooltip."""
    from engine.catalog import get_gpu, get_model
    from engine.timing import step_time

    model = table.plan_model
    headers = [model.headerData(c, Qt.Orientation.Horizontal) for c in range(model.columnCount())]
    assert headers[-3:] == ["Tokens/s", "Run hours", "Communication"]
    m, gpu = get_model("llama-2-13b"), get_gpu("h100-80gb")
    times = {r.setup: step_time(m, r.setup, gpu) for r in rows[1:]}
    model.set_times({**times, rows[0].setup: "cannot time it"}, run_tokens=3.6e9)
    speed, hours = headers.index("Tokens/s"), headers.index("Run hours")
    t = times[rows[1].setup]
    per_run = t.tokens_per_second_per_gpu * rows[1].setup.gpus
    assert model.data(model.index(1, speed)) == f"{per_run:,.0f}"
    assert model.data(model.index(1, hours)) == f"{3.6e9 / per_run / 3600:,.1f}"
    assert model.data(model.index(0, speed)) == "—"
    assert model.data(model.index(0, speed), Qt.ItemDataRole.ToolTipRole) == "cannot time it"
    table.sort_fastest(True)
    shown = table.shown()
    assert [model.tokens_per_second(r) for r in shown] == sorted((model.tokens_per_second(r) for r in rows),
                                                                  reverse=True)
    table.sort_fastest(False)
    assert [r.setup.gpus for r in table.shown()] == sorted(r.setup.gpus for r in rows)
