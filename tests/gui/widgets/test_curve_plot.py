"""gui.widgets.curve_plot: bytes in the display unit against x, an axis range that stays put."""

from __future__ import annotations

import pytest
from pytestqt.qtbot import QtBot

from engine.units import Unit
from gui.widgets.chart import nice_ceiling
from gui.widgets.curve_plot import CurvePlot
from tests.gui.widgets.axis_labels import label_calls


@pytest.mark.parametrize(("x", "ceiling"), [(0.0, 1.0), (-3.0, 1.0), (1.0, 1.0), (1.1, 1.25), (7.0, 8.0),
                                             (83.0, 100.0), (0.026, 0.03), (250.0, 250.0)])
def test_nice_ceiling(x: float, ceiling: float) -> None:
    assert nice_ceiling(x) == pytest.approx(ceiling)


def test_the_curve_is_shown_in_the_unit(qtbot: QtBot) -> None:
    plot = CurvePlot("GPUs")
    qtbot.addWidget(plot)
    plot.show_curve([1, 2, 4], [80e9, 40e9, 20e9], 24e9, (2, 40e9), Unit.GB)
    x, y = plot.data()
    assert list(x) == [1, 2, 4]
    assert list(y) == [80.0, 40.0, 20.0]
    top = plot.getPlotItem().viewRange()[1][1]
    assert top == nice_ceiling(min(80.0, max(48.0, 52.0)) * 1.05)  # the current point stays legible
    plot.show_curve([1], [2**30], 2**30, (1, 2**30), Unit.GIB)
    assert list(plot.data()[1]) == [1.0]


def test_the_axis_is_labelled_again_only_when_the_unit_changes(qtbot: QtBot, monkeypatch: pytest.MonkeyPatch) -> None:
    """A new label makes pyqtgraph draw the axis from scratch: on every frame of a drag that was most of its cost."""
    plot = CurvePlot("GPUs")
    qtbot.addWidget(plot)
    axis = plot.getPlotItem().getAxis("left")
    labels = label_calls(axis, monkeypatch)
    for y in (80e9, 81e9, 82e9):
        plot.show_curve([1, 2], [y, y / 2], 24e9, (1, y), Unit.GB)
    assert labels == ["GB"]
    plot.show_curve([1, 2], [2**36, 2**35], 2**34, (1, 2**36), Unit.GIB)
    assert labels == ["GB", "GiB"]
    assert axis.labelText == "GiB"


def test_a_log_axis_labels_every_power_of_ten_and_nothing_else() -> None:
    """Issue 17: at 1920 wide pyqtgraph labelled 2x-9x each power and the labels ran into each other; at other
    widths its major level was half a decade and the powers lost their labels."""
    from gui.widgets.curve_plot import DecadeAxis

    axis = DecadeAxis("bottom")
    axis.setLogMode(True)
    levels = axis.tickValues(2.1, 5.2, 1800)
    assert levels[0] == (1.0, [3.0, 4.0, 5.0])
    assert levels[1][0] is None
    assert axis.tickStrings(levels[0][1], 1.0, levels[0][0]) == ["10³", "10⁴", "10⁵"]
    assert set(axis.tickStrings(levels[1][1], 1.0, levels[1][0])) == {""}
