"""gui.widgets.chart: every chart is held still (no menu, no pan or zoom, no auto-range button) on the page's
background, and follows the palette."""

from __future__ import annotations

import pyqtgraph as pg
import pytest
from pytestqt.qtbot import QtBot

from gui.look.follows_palette import FollowsPalette
from gui.widgets.chart import Chart, hold_still


def _still(plot: pg.PlotWidget) -> bool:
    item = plot.getPlotItem()
    return (not item.menuEnabled() and item.getViewBox().state["mouseEnabled"] == [False, False]
            and not item.autoBtn.isVisible() and item.buttonsHidden)


def test_a_chart_is_held_still_on_the_pages_background(qtbot: QtBot) -> None:
    chart = Chart()
    qtbot.addWidget(chart)
    assert _still(chart)
    assert chart.backgroundBrush().style().name == "NoBrush"  # background=None: the page shows through
    assert isinstance(chart, FollowsPalette)
    plain = pg.PlotWidget()
    qtbot.addWidget(plain)
    assert not _still(plain)
    hold_still(plain)
    assert _still(plain)


@pytest.mark.parametrize(("module", "name"), [
    ("breakdown_chart", "BreakdownChart"), ("curve_plot", "CurvePlot"), ("bytes_curve_plot", "BytesCurvePlot"),
    ("term_bars", "TermBars"), ("timeline_chart", "TimelineChart"), ("stage_bars", "StageBars"),
    ("matrix_view", "MatrixView")])
def test_the_apps_plots_are_charts(module: str, name: str) -> None:
    import importlib

    assert issubclass(getattr(importlib.import_module(f"gui.widgets.{module}"), name), Chart)


def test_a_widget_holding_a_plot_holds_it_still(qtbot: QtBot) -> None:
    from gui.widgets.capacity_chart import CapacityChart

    chart = CapacityChart()
    qtbot.addWidget(chart)
    assert _still(chart.plot)
