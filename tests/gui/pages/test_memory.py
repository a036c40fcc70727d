"""The memory page, driven through its real controls; every number shown is checked against the engine."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QAbstractButton, QComboBox, QSlider, QSpinBox, QWidget
from pytestqt.qtbot import QtBot

from engine.catalog import get_gpu, get_model
from engine.specs import Attention, Checkpointing, Method, Optimizer, Sharding
from engine.training import estimate
from engine.training.advisor import roadmap
from engine.units import Unit, format_bytes
from gui.pages.memory import MemoryPage
from gui.state.scenario import Scenario


@pytest.fixture
def page(qtbot: QtBot) -> MemoryPage:
    p = MemoryPage(Scenario())
    qtbot.addWidget(p)
    p.resize(1280, 800)
    return p


def _settle(qtbot: QtBot, page: MemoryPage) -> None:
    page.controls.binder.flush()
    page.flush()


def _expected(page: MemoryPage):
    sc = page.scenario
    return estimate(sc.model, sc.setup, sc.gpu)


def test_shows_the_engine_numbers_for_the_seed_defaults(page: MemoryPage) -> None:
    e = _expected(page)
    assert page.summary.big.text() == format_bytes(e.device_bytes, Unit.GB, 1)
    assert page.summary.allocated.text() == format_bytes(e.peak_allocated_bytes, Unit.GB)
    assert page.summary.reserved.text() == format_bytes(e.reserved_bytes, Unit.GB)
    assert "Does not fit on A100 80 GB" in page.summary.verdict.text()
    (row,) = page.breakdown.rows()
    assert [t.bytes for t in row.terms] == [t.bytes for t in e.device_terms]


def test_method_buttons_switch_and_compare(qtbot: QtBot, page: MemoryPage) -> None:
    qtbot.mouseClick(page.controls.method_buttons[Method.QLORA], Qt.MouseButton.LeftButton)
    _settle(qtbot, page)
    assert page.scenario.setup.method is Method.QLORA
    e = _expected(page)
    assert page.summary.big.text() == format_bytes(e.device_bytes, Unit.GB, 1)
    rows = page.overview.compare.rows()
    assert [r.highlight for r in rows] == [False, False, True]
    lora = estimate(page.scenario.model, page.scenario.setup.with_(method=Method.LORA), page.scenario.gpu)
    assert sum(t.bytes for t in rows[1].terms) == lora.device_bytes
    assert page.controls.rank.isEnabled()


def test_sequence_spin_and_slider_keyboard(qtbot: QtBot, page: MemoryPage) -> None:
    page.controls.seq_spin.setValue(2048)
    _settle(qtbot, page)
    assert page.scenario.setup.seq_len == 2048
    x, y = page.overview.seq_curve.data()
    assert len(x) == len(y) > 10
    page.controls.seq_slider.setFocus()
    before = page.scenario.setup.seq_len
    qtbot.keyClick(page.controls.seq_slider, Qt.Key.Key_End)
    _settle(qtbot, page)
    assert page.scenario.setup.seq_len == 131_072 > before
    assert page.controls.seq_spin.value() == 131_072


def test_switches_write_the_scenario(qtbot: QtBot, page: MemoryPage) -> None:
    c = page.controls
    qtbot.mouseClick(c.checkpointing, Qt.MouseButton.LeftButton)
    qtbot.mouseClick(c.eight_bit, Qt.MouseButton.LeftButton)
    qtbot.mouseClick(c.flash, Qt.MouseButton.LeftButton)
    _settle(qtbot, page)
    s = page.scenario.setup
    assert s.checkpointing is Checkpointing.FULL
    assert s.optimizer is Optimizer.ADAMW_8BIT
    assert s.attention is Attention.EAGER  # it was on (SDPA); unticking means eager
    assert c.optimizer.currentText() == "AdamW 8-bit"
    assert page.summary.big.text() == format_bytes(_expected(page).device_bytes, Unit.GB, 1)


def test_gpus_and_sharding(qtbot: QtBot, page: MemoryPage) -> None:
    c = page.controls
    c.sharding.setCurrentIndex(3)
    c.gpus_spin.setValue(8)
    _settle(qtbot, page)
    s = page.scenario.setup
    assert (s.sharding, s.gpus) == (Sharding.ZERO3, 8)
    assert c.offload_params.isEnabled()
    x, _ = page.overview.gpu_curve.data()
    assert 8 in list(x)


def test_roadmap_lists_the_engine_steps(page: MemoryPage) -> None:
    sc = page.scenario
    steps = roadmap(sc.model, sc.setup, sc.gpu)
    text = page.overview.roadmap.table.text()
    assert steps
    for step in steps:
        assert format_bytes(step.estimate.device_bytes, Unit.GB, 1) in text


def test_units_switch_to_gib(qtbot: QtBot, page: MemoryPage) -> None:
    page.controls.unit.setCurrentIndex(1)
    _settle(qtbot, page)
    assert page.summary.big.text() == format_bytes(_expected(page).device_bytes, Unit.GIB, 1)


def test_gpu_type_changes_the_verdict(qtbot: QtBot, page: MemoryPage) -> None:
    page.scenario.update(method=Method.QLORA, seq_len=512)
    _settle(qtbot, page)
    assert page.summary.verdict.text().startswith("Fits")


def _write_config(folder: Path, cfg: dict[str, object]) -> Path:
    folder.mkdir()
    (folder / "config.json").write_text(json.dumps(cfg))
    return folder


def test_import_a_config(qtbot: QtBot, page: MemoryPage, tmp_path: Path) -> None:
    cfg = {"model_type": "llama", "vocab_size": 32000, "hidden_size": 2048, "intermediate_size": 5632,
           "num_hidden_layers": 22, "num_attention_heads": 32, "num_key_value_heads": 4}
    assert page.controls.import_config(str(_write_config(tmp_path / "TinyLlama", cfg)))
    _settle(qtbot, page)
    assert page.scenario.model.id == "TinyLlama"
    assert page.controls.model_picker.current_model() == page.scenario.model


@pytest.mark.parametrize("name", ["qwen3_5_35b_a3b", "nemotron_3_nano_30b_a3b"])
def test_a_hybrid_config_imports_and_shows_the_engine_numbers(
    qtbot: QtBot, page: MemoryPage, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, name: str
) -> None:
    """Issue 27: a published hybrid config (gated DeltaNet / Mamba-2 layers beside attention) is costed on the page
    as the engine costs it; its notes (the multi-token-prediction layers left out) go to a message box."""
    monkeypatch.setattr("gui.pages.memory.QMessageBox.information", lambda *_: None)
    monkeypatch.setattr("gui.pages.memory.QMessageBox.warning", lambda *_: pytest.fail("import refused"))
    cfg = json.loads((Path("tests/engine/data/configs") / f"{name}.json").read_text())
    assert page.controls.import_config(str(_write_config(tmp_path / name, cfg)))
    _settle(qtbot, page)
    assert any(r.mixer is not None for r in page.scenario.model.layers or ())
    assert page.summary.big.text() == format_bytes(_expected(page).device_bytes, Unit.GB, 1)


def test_a_bad_config_is_reported_and_changes_nothing(
    qtbot: QtBot, page: MemoryPage, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    shown: list[tuple[str, str]] = []
    monkeypatch.setattr("gui.pages.memory.QMessageBox.warning", lambda _p, title, text: shown.append((title, text)))
    folder = tmp_path / "bad"
    folder.mkdir()
    (folder / "config.json").write_text('{"model_type": "llama", "hidden_size": ')
    with qtbot.waitSignal(page.controls.import_failed) as blocker:
        assert not page.controls.import_config(str(folder))
    assert "not valid JSON" in blocker.args[0]
    assert shown == [("Could not import the config", blocker.args[0])]
    assert page.scenario.model == get_model("llama-2-7b")


def test_an_unknown_model_type_is_imported_with_its_notes_shown(
    qtbot: QtBot, page: MemoryPage, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    shown: list[tuple[str, str]] = []
    monkeypatch.setattr("gui.pages.memory.QMessageBox.information",
                        lambda _p, title, text: shown.append((title, text)))
    cfg = {"model_type": "brand-new", "vocab_size": 512, "hidden_size": 64, "intermediate_size": 176,
           "num_hidden_layers": 2, "num_attention_heads": 4}
    with qtbot.waitSignal(page.controls.import_noted):
        assert page.controls.import_config(str(_write_config(tmp_path / "New", cfg)))
    assert shown
    assert shown[0][0] == "Import notes"
    assert "'brand-new' is not one the engine knows" in shown[0][1]
    assert page.scenario.model.id == "New"


def test_model_picker_is_grouped_and_searchable(qtbot: QtBot, page: MemoryPage) -> None:
    picker = page.controls.model_picker
    assert picker.model_at(0) is None  # a family heading
    completer = picker.completer()
    assert completer is not None
    assert completer.filterMode() == Qt.MatchFlag.MatchContains
    row = next(r for r in range(picker.count()) if (m := picker.model_at(r)) and m.id == "mistral-7b")
    picker.setCurrentIndex(row)
    picker.activated.emit(row)
    _settle(qtbot, page)
    assert page.scenario.model.id == "mistral-7b"
    assert "7.24B" in picker.currentText()


def test_every_control_is_reachable_by_keyboard(page: MemoryPage) -> None:
    kinds = (QAbstractButton, QComboBox, QSlider, QSpinBox)
    controls = [w for w in page.controls.findChildren(QWidget) if isinstance(w, kinds)]
    assert len(controls) > 15
    for w in controls:
        assert w.focusPolicy() & Qt.FocusPolicy.TabFocus, w


def test_the_verdict_for_a_tight_fit(qtbot: QtBot, page: MemoryPage) -> None:
    h100 = get_gpu("h100-80gb")
    page.scenario.update(gpu=h100, method=Method.LORA, seq_len=6144)
    _settle(qtbot, page)
    e = _expected(page)
    assert e.verdict.value in page.summary.verdict.text().lower() or e.verdict.value == "over"


def test_gradient_accumulation_keeps_gradients(qtbot: QtBot, page: MemoryPage) -> None:
    page.scenario.update(method=Method.LORA)
    _settle(qtbot, page)
    before = page.current.peak_allocated_bytes
    page.controls.grad_accum.setValue(4)
    _settle(qtbot, page)
    assert page.scenario.setup.grad_accum == 4
    assert page.current.peak_allocated_bytes > before
    assert page.summary.big.text() == format_bytes(_expected(page).device_bytes, Unit.GB, 1)


def test_the_legend_keeps_its_lines_while_input_goes_on(page: MemoryPage, monkeypatch: pytest.MonkeyPatch) -> None:
    """A change that wraps the legend to a line fewer does not shrink it while input goes on (the tabs under it
    would move up, and every chart in them be laid out and drawn again: bench/gui_latency.py); once input pauses
    (the views that wait for it; page.flush runs them) it takes its own height again."""
    line = page.legend.fontMetrics().height()
    wrapped = {"lines": 2}
    monkeypatch.setattr(page.legend, "heightForWidth", lambda _width: wrapped["lines"] * line)
    page._show_headline()  # the part recomputed in the change's own turn
    assert page.legend.minimumHeight() == 2 * line
    wrapped["lines"] = 1
    page._show_headline()
    assert page.legend.minimumHeight() == 2 * line  # held
    page.scenario.update(seq_len=2048)
    page.flush()  # the headline, then the views that wait for a pause
    assert page.legend.minimumHeight() == 0
