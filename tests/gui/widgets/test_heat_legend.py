"""gui.widgets.heat_legend: the swatches are the heat map's colours, in the current theme."""

from __future__ import annotations

from pytestqt.qtbot import QtBot

from gui.look.palette import colors_for
from gui.look.theme import ThemeManager, ThemeMode
from gui.widgets.heat_colors import heat_colors
from gui.widgets.heat_legend import HeatLegend


def test_swatches_follow_the_theme(qtbot: QtBot, theme: ThemeManager) -> None:
    legend = HeatLegend()
    qtbot.addWidget(legend)
    hc = heat_colors(colors_for(legend))
    assert hc.positive in legend.swatches[0].styleSheet()
    theme.set_mode(ThemeMode.DARK)
    qtbot.wait(1)
    dark = heat_colors(colors_for(legend))
    assert dark.positive != hc.positive
    assert dark.positive in legend.swatches[0].styleSheet()
    assert [n.text() for n in legend.names] == ["positive", "negative", "masked (−∞)"]
