"""gui.widgets.timeline_chart: term bands whose top is the prediction, the peak marked, the measured curves laid
over it, a hover cursor, colours that follow the theme."""

from __future__ import annotations

import numpy as np
import pytest
from pytestqt.qtbot import QtBot

from engine.catalog import get_gpu, get_model
from engine.snapshot.overlay import Alignment, overlay
from engine.snapshot.report import measure
from engine.specs import Checkpointing, TrainingSetup
from engine.training import estimate
from engine.training.timeline import Timeline, timeline
from engine.units import Unit
from gui.look.palette import DARK, LIGHT
from gui.look.theme import ThemeManager, ThemeMode
from gui.widgets.timeline_chart import BAND_ALPHA, TimelineChart, TimelineKey
from tools.snapshot_fixtures import StepShape, training

SETUPS = [TrainingSetup(seq_len=512), TrainingSetup(seq_len=4096, checkpointing=Checkpointing.FULL, batch=2)]


def _predicted(setup: TrainingSetup) -> Timeline:
    return timeline(get_model("llama-3.2-1b"), setup, get_gpu("a100-80gb"))


@pytest.fixture
def chart(qtbot: QtBot) -> TimelineChart:
    widget = TimelineChart()
    qtbot.addWidget(widget)
    return widget


@pytest.mark.parametrize("setup", SETUPS)
def test_the_top_of_the_bands_is_the_prediction_and_its_maximum_the_estimates_peak(
    chart: TimelineChart, setup: TrainingSetup
) -> None:
    t = _predicted(setup)
    e = estimate(get_model("llama-3.2-1b"), setup, get_gpu("a100-80gb"))
    chart.show_prediction(t, Unit.GB, e.reserved_bytes)
    totals = chart.totals()
    assert max(totals) == e.peak_allocated_bytes / Unit.GB.size
    assert totals[t.peak_index] == max(totals)  # where the estimate says (step 1 may tie: the engine picks step 2)
    xs, ys = chart._peak.getData()
    assert (list(xs), list(ys)) == ([t.peak_index], [e.peak_allocated_bytes / Unit.GB.size])
    assert chart.band_names() == [n for n in t.points[0].terms if any(p.terms[n] for p in t.points)]
    top_band = chart._bands[-2]
    assert np.allclose(top_band.curves[1].getData()[1], totals)


def test_phases_are_ticked_and_steps_marked(chart: TimelineChart) -> None:
    t = _predicted(SETUPS[0])
    chart.show_prediction(t, Unit.GIB)
    labels = [text for _, text in chart.getPlotItem().getAxis("bottom")._tickLevels[0]]
    assert labels == ["forward", "backward", "optimizer", "forward", "backward", "optimizer"]
    assert [line.value() for line in chart._steps] == [0, next(p.index for p in t.points if p.step == 2)]
    assert chart.getPlotItem().getAxis("left").labelText == "GiB"


def test_hover_finds_the_nearest_moment(qtbot: QtBot, chart: TimelineChart) -> None:
    t = _predicted(SETUPS[0])
    chart.show_prediction(t, Unit.GB)
    with qtbot.waitSignal(chart.hovered) as got:
        assert chart.hover_at(10.4) == 10
    assert got.args == [10, 10.4]
    assert chart.hover_at(-7) == 0
    assert chart.hover_at(10_000) == len(t.points) - 1


def test_the_pointer_moves_the_cursor(qtbot: QtBot, chart: TimelineChart) -> None:
    chart.resize(600, 400)
    chart.show()
    qtbot.waitExposed(chart)
    chart.show_prediction(_predicted(SETUPS[0]), Unit.GB)
    qtbot.wait(50)  # the new ranges are laid out
    vb = chart.getPlotItem().vb
    target = chart.mapFromScene(vb.mapViewToScene(vb.viewRect().center()))
    with qtbot.waitSignal(chart.hovered) as got:
        qtbot.mouseMove(chart.viewport(), target)
    index, x = got.args
    assert x == pytest.approx(vb.viewRect().center().x(), abs=0.5)  # within a pixel
    assert index == round(x)


def test_measured_curves_are_drawn_and_removed(chart: TimelineChart) -> None:
    t = _predicted(SETUPS[0])
    m = measure(training(StepShape(layers=4), steps=2).snapshot(), "s")
    o = overlay(m, t, Alignment())
    chart.show_prediction(t, Unit.GB, 2**33)
    chart.show_measured(o)
    x, allocated, reserved = chart.measured_curves()
    assert x == list(o.x)
    assert allocated == pytest.approx(list(o.allocated / Unit.GB.size))
    assert reserved == pytest.approx(list(o.reserved / Unit.GB.size))
    chart.show_measured(None)
    assert chart.measured_curves() == ([], [], [])


def test_the_key_names_the_lines(qtbot: QtBot) -> None:
    key = TimelineKey()
    qtbot.addWidget(key)
    key.show_entries(measured=False)
    assert key.entries() == ["reserved (predicted)"]
    key.show_entries(measured=True)
    assert key.entries() == ["reserved (predicted)", "measured: allocated", "measured: reserved"]
    assert LIGHT.foreground in key.text()


def test_bands_follow_the_theme(qtbot: QtBot, theme: ThemeManager) -> None:
    chart = TimelineChart()
    qtbot.addWidget(chart)
    chart.show_prediction(_predicted(SETUPS[0]), Unit.GB)

    def band_colors() -> list[str]:
        return [b.brush().color().name() for b in chart._bands[:-1]]

    assert band_colors() == [LIGHT.term(n) for n in chart.band_names()]
    assert {b.brush().color().alpha() for b in chart._bands[:-1]} == {BAND_ALPHA}
    theme.set_mode(ThemeMode.DARK)
    qtbot.waitUntil(lambda: band_colors() == [DARK.term(n) for n in chart.band_names()])
