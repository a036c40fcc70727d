"""The attention page: eight steps driven by keys and buttons, every shown number checked against the engine."""

from __future__ import annotations

import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest
from PySide6.QtCore import Qt
from pytestqt.qtbot import QtBot

from engine.attention import StepKey, attention_steps
from engine.attention_sizes import flash_kept
from engine.units import format_bytes
from gui.pages.attention import AttentionPage
from gui.state.scenario import Scenario
from gui.widgets.cell_text import cell_label
from gui.widgets.matrix_view import MatrixView


@pytest.fixture
def page(qtbot: QtBot, monkeypatch: pytest.MonkeyPatch) -> Iterator[AttentionPage]:
    monkeypatch.setattr("gui.pages.attention.build_ms", lambda _step: 40)  # quick builds
    widget = AttentionPage(Scenario())
    qtbot.addWidget(widget)
    widget.resize(1280, 800)
    widget.show()
    widget.setFocus()
    yield widget
    widget.close()


def visible_views(page: AttentionPage) -> list[MatrixView]:
    return [v for v in page.stage.views if v.isVisibleTo(page)]


def assert_shows(view: MatrixView, matrix: np.ndarray) -> None:
    assert view.matrix_shape() == matrix.shape
    for (r, c), value in np.ndenumerate(matrix):
        assert view.cell_text(r, c) == cell_label(value), (view.title(), r, c)


def assert_shows_step(page: AttentionPage, index: int) -> None:
    """The stage, the step text and the size panel show the engine's step ``index``, whole."""
    step = attention_steps(model=page._scenario.model)[index]
    assert page.player.index == index
    assert_shows(visible_views(page)[-1], step.matrix)
    assert page.caption.formula.text() == step.formula
    assert step.name in page.caption.name.text()
    unit = page._scenario.unit
    assert page.size_panel.per_layer.text() == format_bytes(step.sizes.per_layer_bytes, unit)
    assert format_bytes(step.sizes.all_layers_bytes, unit) in page.size_panel.all_layers.text()
    assert page.bar.position.text() == f"Step {index + 1} / 8"


def test_right_arrow_walks_all_eight_steps(qtbot: QtBot, page: AttentionPage) -> None:
    assert_shows_step(page, 0)
    for index in range(1, 8):
        qtbot.keyClick(page, Qt.Key.Key_Right)
        qtbot.waitUntil(lambda: not page.player.is_building(), timeout=3000)
        assert_shows_step(page, index)
    qtbot.keyClick(page, Qt.Key.Key_Right)  # past the end: stays
    assert page.player.index == 7


def test_operands_are_the_engine_matrices(page: AttentionPage) -> None:
    steps = {s.key: s for s in attention_steps()}
    page.player.go(steps[StepKey.SCORES].index)
    left, right, result = visible_views(page)
    assert_shows(left, steps[StepKey.Q].matrix)
    assert_shows(right, steps[StepKey.K].matrix.T)
    assert_shows(result, steps[StepKey.SCORES].matrix)
    assert result.labels() == (steps[StepKey.Q].row_labels, steps[StepKey.K].row_labels)  # queries x keys


def test_a_product_builds_cell_by_cell(page: AttentionPage) -> None:
    q = attention_steps()[1]
    page.show_frame(1, 0.5)
    result = visible_views(page)[-1]
    shown = [result.cell_text(r, c) != "" for r in range(6) for c in range(4)]
    assert shown == [True] * 12 + [False] * 12
    assert result.cell_text(0, 0) == cell_label(q.matrix[0, 0])
    assert result.highlight_rect() is not None


def test_masked_cells_and_softmax_zeros(page: AttentionPage) -> None:
    page.player.go(5)
    assert visible_views(page)[-1].cell_text(0, 1) == "−∞"
    page.player.go(6)
    assert visible_views(page)[-1].cell_text(0, 1) == "0.00"


def test_keys_home_end_left_space(qtbot: QtBot, page: AttentionPage) -> None:
    qtbot.keyClick(page, Qt.Key.Key_End)
    assert_shows_step(page, 7)
    qtbot.keyClick(page, Qt.Key.Key_Left)
    assert_shows_step(page, 6)
    qtbot.keyClick(page, Qt.Key.Key_Home)
    assert_shows_step(page, 0)
    qtbot.keyClick(page, Qt.Key.Key_Space)
    assert page.player.playing
    qtbot.keyClick(page, Qt.Key.Key_Space)
    assert not page.player.playing


def test_buttons_and_scrubber(qtbot: QtBot, page: AttentionPage) -> None:
    bar = page.bar
    qtbot.mouseClick(bar.last, Qt.MouseButton.LeftButton)
    assert_shows_step(page, 7)
    qtbot.mouseClick(bar.previous, Qt.MouseButton.LeftButton)
    assert_shows_step(page, 6)
    qtbot.mouseClick(bar.first, Qt.MouseButton.LeftButton)
    assert_shows_step(page, 0)
    qtbot.mouseClick(bar.next, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: not page.player.is_building(), timeout=3000)
    assert_shows_step(page, 1)
    bar.scrubber.setValue(5)
    assert_shows_step(page, 4)
    bar.speed.setCurrentIndex(3)
    assert page.player.speed == 4.0


def test_play_runs_through_to_the_last_step(qtbot: QtBot, page: AttentionPage, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("gui.widgets.step_player.HOLD_MS", 10)
    qtbot.mouseClick(page.bar.play, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: page.player.index == 7 and not page.player.playing, timeout=5000)
    assert_shows_step(page, 7)


def test_own_sentence(qtbot: QtBot, page: AttentionPage) -> None:
    page.sentence.line.clear()
    qtbot.keyClicks(page.sentence.line, "GPU memory is finite")
    qtbot.keyClick(page.sentence.line, Qt.Key.Key_Return)
    mine = attention_steps("GPU memory is finite")
    assert visible_views(page)[-1].labels()[0] == ("GPU", "memory", "is", "finite")
    assert_shows(visible_views(page)[-1], mine[page.player.index].matrix)
    assert page.sentence.error.text() == ""


def test_too_long_a_sentence_is_refused_and_the_old_one_kept(qtbot: QtBot, page: AttentionPage) -> None:
    page.sentence.line.setText("one two three four five six seven eight nine")
    qtbot.mouseClick(page.sentence.apply, Qt.MouseButton.LeftButton)
    assert "at most 8" in page.sentence.error.text()
    assert visible_views(page)[-1].labels()[0] == ("The", "cat", "sat", "on", "the", "mat")


def test_sequence_length_drives_the_real_sizes(page: AttentionPage) -> None:
    page.player.go(4)
    page.size_panel.spin.setValue(8192)
    page.size_panel.binder.flush()
    page.flush()
    scenario = page._scenario
    assert scenario.setup.seq_len == 8192
    step = attention_steps(seq_len=8192)[4]
    assert page.size_panel.per_layer.text() == format_bytes(step.sizes.per_layer_bytes, scenario.unit)
    kept = flash_kept(scenario.model, 8192)
    assert format_bytes(kept.per_layer_bytes, scenario.unit) in page.size_panel.flash.text()


def test_slider_is_log_scaled_from_6_to_131072(page: AttentionPage) -> None:
    slider = page.size_panel.slider
    slider.setValue(slider.minimum())
    page.size_panel.binder.flush()
    assert page._scenario.setup.seq_len == 6
    slider.setValue(slider.maximum())
    page.size_panel.binder.flush()
    assert page._scenario.setup.seq_len == 131_072
    slider.setValue(slider.maximum() // 2)
    page.size_panel.binder.flush()
    assert 800 < page._scenario.setup.seq_len < 1000  # geometric middle: sqrt(6 x 131072) = 887


def test_hiding_the_page_stops_the_animation(qtbot: QtBot, page: AttentionPage) -> None:
    page.player.set_speed(0.5)
    qtbot.keyClick(page, Qt.Key.Key_Space)
    assert page.player.is_building()
    page.hide()
    assert not page.player.is_building()
    assert not page.player.playing


LUPDATE = shutil.which("pyside6-lupdate", path=str(Path(sys.executable).parent)) or shutil.which("pyside6-lupdate")


@pytest.mark.skipif(LUPDATE is None, reason="pyside6-lupdate not found")
def test_page_and_engine_texts_are_extractable(tmp_path: Path) -> None:
    repo = Path(__file__).resolve().parents[3]
    sources = [str(p) for p in (repo / "gui").rglob("*.py")] + [str(repo / "engine" / "attention_text.py")]
    ts = tmp_path / "x.ts"
    subprocess.run([str(LUPDATE), *sources, "-ts", str(ts)], check=True, capture_output=True, timeout=120)
    text = ts.read_text(encoding="utf-8")
    for source in ("Attention, one step at a time", "Rows are queries, columns are keys.", "Softmax by row"):
        assert f"<source>{source}</source>" in text, source
    for step in attention_steps():
        assert f"<source>{step.explanation.replace(chr(39), '&apos;')}</source>" in text, step.key


def test_a_click_on_the_stage_gives_the_keys_to_the_page(qtbot: QtBot, page: AttentionPage) -> None:
    page.sentence.line.setFocus()
    qtbot.mouseClick(page.stage.views[0].viewport(), Qt.MouseButton.LeftButton)
    assert page.hasFocus()
    qtbot.keyClick(page, Qt.Key.Key_End)
    assert page.player.index == 7


def test_the_page_takes_the_keys_when_shown(qtbot: QtBot) -> None:
    page = AttentionPage(Scenario())
    qtbot.addWidget(page)
    page.show()
    qtbot.waitUntil(page.hasFocus, timeout=1000)
    qtbot.keyClick(page, Qt.Key.Key_End)
    assert page.player.index == 7
    page.close()


def test_rows_are_queries_only_under_the_query_by_key_matrices(page: AttentionPage) -> None:
    """Issue 17: "Rows are queries, columns are keys" stood under the X matrix of step 1 (rows are tokens there)."""
    shown = {}
    for i, step in enumerate(page.steps):
        page.player.go(i)
        shown[step.key] = page.legend.convention.isVisibleTo(page)
    assert shown == {key: key in (StepKey.SCORES, StepKey.MASKED, StepKey.SOFTMAX) for key in StepKey}
