"""The Timeline page: the predicted curve is the engine's (its maximum the estimate's peak), a snapshot loads in
the worker and is laid over it, a refused file changes nothing, the alignment controls move the curves, and the
page keeps its snapshot across a rebuild, a theme and presentation mode."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication
from pytestqt.qtbot import QtBot

from engine.allocator.total import with_device_total
from engine.catalog import get_model
from engine.snapshot import read_report
from engine.snapshot.compare import compare
from engine.snapshot.overlay import Alignment, default_alignment, overlay
from engine.specs import Method, TrainingSetup
from engine.training import estimate
from engine.training.timeline import timeline
from engine.units import Unit, format_bytes
from gui.look.palette import HIGH_CONTRAST, colors_for
from gui.look.theme import ThemeManager
from gui.pages.timeline import TimelinePage
from gui.shell.main_window import MainWindow
from gui.state.scenario import Scenario
from gui.text.words import term_title
from tests.gui.snapshot_files import PYTORCH_MADE, hostile, small, truncated


@pytest.fixture
def page(qtbot: QtBot) -> TimelinePage:
    widget = TimelinePage(Scenario(model=get_model("llama-3.2-1b"), setup=TrainingSetup(seq_len=1024)))
    qtbot.addWidget(widget)
    return widget


def load(qtbot: QtBot, page: TimelinePage, path: Path) -> None:
    with qtbot.waitSignal(page.loader.loaded, timeout=30_000):
        page.open_snapshot(path)
    page.flush()


def warnings_shown(monkeypatch: pytest.MonkeyPatch) -> list[tuple[str, str]]:
    shown: list[tuple[str, str]] = []
    monkeypatch.setattr("gui.pages.timeline.QMessageBox.warning", lambda _p, title, text: shown.append((title, text)))
    return shown


def test_the_reserved_curve_is_the_allocators_replay(page: TimelinePage) -> None:
    """Issue 26: the predicted reserved memory is the caching allocator's replay of the same moments, its top the
    reserved figure the key gives (``estimate --json``'s), never under the allocated curve."""
    sc = page.scenario
    e = with_device_total(estimate(sc.model, sc.setup, sc.gpu))
    curve = page.chart.reserved_curve()
    assert len(curve) == len(page.chart.totals())
    assert max(curve) == e.reserved_bytes / sc.unit.size
    assert all(r >= a for r, a in zip(curve, page.chart.totals(), strict=True))
    assert any(format_bytes(e.reserved_bytes, sc.unit) in entry for entry in page.key.entries())


def test_the_curves_maximum_is_the_estimates_peak(page: TimelinePage) -> None:
    for update in ({}, {"seq_len": 4096, "batch": 2}, {"method": Method.LORA}):
        page.scenario.update(**update)
        page.flush()
        sc = page.scenario
        e = estimate(sc.model, sc.setup, sc.gpu)
        assert max(page.chart.totals()) == e.peak_allocated_bytes / sc.unit.size
        assert page.controls.peak_value.text() == format_bytes(e.peak_allocated_bytes, sc.unit)
        assert page.controls.terms.cells() == [[term_title(t.name), format_bytes(t.bytes, sc.unit, 1)]
                                               for t in e.terms if t.bytes]
        assert page.export_breakdown().terms == e.terms  # the peak's breakdown, as the engine gives it


def test_the_readout_says_step_phase_layer_and_bytes(page: TimelinePage) -> None:
    sc = page.scenario
    t = timeline(sc.model, sc.setup, sc.gpu)
    point = next(p for p in t.points if p.step == 2 and p.phase == "backward" and p.layer == 3)
    page.chart.hover_at(point.index)
    text = page.readout.text()
    assert "Step 2 · backward · layer 4 of 16" in text
    assert format_bytes(point.allocated_bytes, Unit.GB) + " allocated (predicted)" in text
    for name, n_bytes in point.terms.items():
        if n_bytes:
            assert format_bytes(n_bytes, Unit.GB) in text, name


def test_a_fixture_snapshot_loads_in_the_worker_and_is_laid_over(
    qtbot: QtBot, page: TimelinePage, tmp_path: Path
) -> None:
    path = small(tmp_path)
    assert page.controls.progress.isHidden()
    with qtbot.waitSignal(page.loader.started):
        page.open_snapshot(path)
    assert page.controls.progress.isVisibleTo(page)  # a progress bar and Cancel while it reads
    assert not page.controls.open_button.isEnabled()
    qtbot.waitSignal(page.loader.loaded, timeout=30_000).wait()
    page.flush()
    report = read_report(path)
    assert page.measurement is not None
    assert page.measurement.report == report
    assert page.state.value == default_alignment(report)
    sc = page.scenario
    expected = overlay(page.measurement, timeline(sc.model, sc.setup, sc.gpu), page.state.value)
    x, allocated, _ = page.chart.measured_curves()
    assert x == list(expected.x)
    assert allocated == pytest.approx(list(expected.allocated / Unit.GB.size))
    d = expected.difference
    assert d.percent is not None
    assert f"−{format_bytes(-d.bytes, Unit.GB)} (−{-d.percent:.1f}%)" in page.controls.difference.text()
    by_term = compare(report, estimate(sc.model, sc.setup, sc.gpu))["by_term"]
    shown = {row[0]: row[1:] for row in page.controls.terms.cells()}
    assert shown["Weights"] == [format_bytes(by_term["weights"][k], Unit.GB, 1)
                                for k in ("estimated_bytes", "measured_bytes")]
    assert shown["Unattributed"][0] == "—"  # no prediction has it
    assert page.blocks.rowCount() == len(report.peak_blocks)
    first = page.blocks.item(0, 0)
    assert first is not None
    assert first.text() == format_bytes(report.peak_blocks[0].bytes, Unit.GB)
    assert page.controls.progress.isHidden()
    assert "Measured: " in page.readout.text()


def test_a_snapshot_pytorch_made_is_laid_over(qtbot: QtBot, page: TimelinePage) -> None:
    load(qtbot, page, PYTORCH_MADE)
    assert page.measurement is not None
    assert page.measurement.report.peak_allocated_bytes == 4_107_644
    assert page.chart.measured_curves()[0]


def test_alignment_controls_move_the_measured_curves(qtbot: QtBot, page: TimelinePage, tmp_path: Path) -> None:
    load(qtbot, page, small(tmp_path))
    before, drawn = page.chart.measured_curves(), page.overlay
    t = page.current[0]
    width = len(t.points) - next(p.index for p in t.points if p.step == 2)
    page.controls.shift.setValue(0.5)
    page.controls.binder.flush()
    page.flush()
    assert page.state.value.shift == 0.5
    assert drawn is not None
    assert page.overlay is not None
    moved = dict(zip(page.overlay.events.tolist(), page.chart.measured_curves()[0], strict=True))
    common = [(e, x) for e, x in zip(drawn.events.tolist(), before[0], strict=True) if e in moved]
    assert len(common) > 10
    assert all(moved[e] == pytest.approx(x + 0.5 * width) for e, x in common)  # half a step to the right
    page.controls.first_step.setValue(2)
    page.controls.binder.flush()
    page.flush()
    assert page.overlay is not None
    assert page.overlay.drawn_steps == (2, 3)
    page.controls.reset_button.click()
    page.flush()
    assert page.state.value == default_alignment(page.measurement.report)  # type: ignore[union-attr]
    assert page.chart.measured_curves() == before


@pytest.mark.parametrize("kind", ["hostile", "truncated"])
def test_a_refused_file_says_why_and_changes_nothing(
    qtbot: QtBot, page: TimelinePage, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, kind: str
) -> None:
    load(qtbot, page, small(tmp_path))
    kept, curves, alignment = page.measurement, page.chart.measured_curves(), page.state.value
    shown = warnings_shown(monkeypatch)
    marker = tmp_path / "ran"
    bad = hostile(tmp_path, marker) if kind == "hostile" else truncated(tmp_path)
    with qtbot.waitSignal(page.loader.failed, timeout=30_000) as got:
        page.open_snapshot(bad)
    page.flush()
    reason = got.args[0]
    assert reason.startswith(bad.name + ": ")
    assert ("refused: not a plain-data pickle" if kind == "hostile" else "truncated") in reason
    assert shown == [("Could not open the snapshot", f"{reason}\n\nThe page keeps what it showed.")]
    assert not marker.exists()  # nothing in the pickle ran
    assert page.measurement is kept
    assert page.chart.measured_curves() == curves
    assert page.state.value == alignment
    assert page.controls.open_button.isEnabled()


def test_cancel_keeps_the_page_as_it_was(qtbot: QtBot, page: TimelinePage, tmp_path: Path) -> None:
    from tests.gui.snapshot_files import big

    path = big(tmp_path)
    with qtbot.waitSignal(page.loader.progressed, timeout=30_000):
        page.open_snapshot(path)
    with qtbot.waitSignal(page.loader.cancelled, timeout=30_000):
        page.controls.cancel_button.click()
        assert not page.controls.cancel_button.isEnabled()
    assert page.measurement is None
    assert page.controls.progress.isHidden()
    assert page.controls.open_button.isEnabled()


def test_the_snapshot_survives_a_rebuild(qtbot: QtBot, page: TimelinePage, tmp_path: Path) -> None:
    load(qtbot, page, small(tmp_path))
    page.state.update(scale=1.5)
    page.flush()
    state: dict[str, Any] = page.view_state()
    again = TimelinePage(page.scenario)
    qtbot.addWidget(again)
    again.restore_view_state(state)
    again.flush()
    assert again.measurement is page.measurement
    assert again.state.value == Alignment(first_step=1, scale=1.5)
    assert again.chart.measured_curves() == page.chart.measured_curves()


def test_a_read_in_progress_is_started_again_after_a_rebuild(qtbot: QtBot, page: TimelinePage,
                                                              tmp_path: Path) -> None:
    path = small(tmp_path)
    page.open_snapshot(path)
    state = page.view_state()
    assert state["loading"] == str(path)
    qtbot.waitSignal(page.loader.loaded, timeout=30_000).wait()
    again = TimelinePage(page.scenario)
    qtbot.addWidget(again)
    with qtbot.waitSignal(again.loader.loaded, timeout=30_000):
        again.restore_view_state(state)


def test_presentation_mode_pages_to_it_in_high_contrast(qtbot: QtBot, theme: ThemeManager, tmp_path: Path) -> None:
    window = MainWindow(Scenario(), theme, initial_page="serving")
    qtbot.addWidget(window)
    window.resize(1100, 700)
    window.show()
    window.activateWindow()
    qtbot.waitUntil(lambda: QApplication.activeWindow() is window)
    window.presentation.enter()
    qtbot.keyClick(QApplication.focusWidget() or window, Qt.Key.Key_PageDown)
    assert window.pages.current_page_id() == "timeline"
    page = window.pages.currentWidget()
    assert isinstance(page, TimelinePage)
    assert colors_for(page.chart) is HIGH_CONTRAST
    assert page.chart._measured[0].opts["pen"].widthF() == HIGH_CONTRAST.pen(1.6)
    qtbot.keyClick(QApplication.focusWidget() or window, Qt.Key.Key_PageUp)
    assert window.pages.current_page_id() == "serving"
    window.presentation.leave()


def test_the_page_exports_its_chart_with_its_key(page: TimelinePage, tmp_path: Path) -> None:
    from gui.files.chart_export import save_png

    page.resize(1100, 700)  # laid out as on screen (File > Export writes a shown page's chart)
    page.setAttribute(Qt.WidgetAttribute.WA_DontShowOnScreen, True)
    page.show()
    page.flush()
    box = page.export_chart()
    assert box.isAncestorOf(page.chart)
    assert box.isAncestorOf(page.key)
    size = save_png(box, tmp_path / "timeline.png", 2)
    assert size.width() > 0
    assert (tmp_path / "timeline.png").stat().st_size > 10_000

