"""gui.widgets.capacity_chart: stacked per-GPU terms in the display unit, the GPU's lines above them."""

from __future__ import annotations

import pytest
from pytestqt.qtbot import QtBot

from engine.catalog import get_gpu, get_model
from engine.serving import ServingSetup, serving_fit
from engine.units import Unit, to_unit
from gui.widgets.capacity_chart import CapacityChart


def test_bars_stack_the_engines_terms(qtbot: QtBot) -> None:
    chart = CapacityChart()
    qtbot.addWidget(chart)
    fit = serving_fit(get_model("llama-2-7b"), get_gpu("a100-80gb"), ServingSetup(sequences=8))
    chart.show_bars([("8 requested", fit.terms), ("none", [])],
                    [("GPU memory", fit.gpu_bytes, False), ("usable", fit.budget_bytes, True)], Unit.GIB)
    assert list(chart.bar_items) == [t.name for t in fit.terms]
    below = 0.0
    for t in fit.terms:
        opts = chart.bar_items[t.name].opts
        assert list(opts["x"]) == [0]
        assert opts["height"][0] == pytest.approx(to_unit(t.bytes, Unit.GIB))
        assert opts["y0"][0] == pytest.approx(below)
        below += to_unit(t.bytes, Unit.GIB)
    top = chart.plot.getPlotItem().viewRange()[1][1]
    assert top == pytest.approx(to_unit(fit.gpu_bytes, Unit.GIB) * 1.08)


def test_key_names_every_term_and_line_under_the_plot_not_on_the_lines(qtbot: QtBot) -> None:
    """Issue 17: a legend and line labels inside the plot sat on the capacity lines (in zh_TW striking through
    權重) and clipped "GPU memory" at the top; the key is now a line of text under the plot."""
    chart = CapacityChart()
    qtbot.addWidget(chart)
    fit = serving_fit(get_model("llama-2-7b"), get_gpu("a100-80gb"), ServingSetup(sequences=8))
    chart.show_bars([("8 requested", fit.terms)],
                    [("GPU memory", fit.gpu_bytes, False), ("usable (90%)", fit.budget_bytes, True)], Unit.GB)
    key = chart.key.text().replace("\u2060", "")  # word joiners keep an entry on one line
    for text in ("weights", "KV&nbsp;cache", "GPU&nbsp;memory", "usable&nbsp;(90%)"):
        assert text in key
    plot = chart.plot.getPlotItem()
    assert plot.legend is None
    texts = [i for i in plot.items if type(i).__name__ in ("TextItem", "LabelItem", "InfLineLabel")]
    assert texts == []
