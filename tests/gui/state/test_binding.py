"""gui.state.binding: model -> widget without feedback, widget -> model, coalesced slider storms, rejections."""

from __future__ import annotations

import pytest
from PySide6.QtWidgets import QCheckBox, QComboBox, QSlider, QSpinBox, QWidget
from pytestqt.qtbot import QtBot

from engine.serving import ServingSetup
from engine.specs import Checkpointing, Method, Precision
from gui.state import ranges
from gui.state.binding import PICKER_CHARS, Binder
from gui.state.page_state import PageState
from gui.state.scenario import Scenario
from gui.state.slider_scale import ScaleKind, SliderScale

METHODS = [("Full", Method.FULL), ("LoRA", Method.LORA), ("QLoRA", Method.QLORA)]
SEQ = SliderScale.for_field("seq_len", ScaleKind.POW2, ranges.SEQ_LEN)


@pytest.fixture
def host(qtbot: QtBot) -> QWidget:
    widget = QWidget()
    qtbot.addWidget(widget)
    return widget


@pytest.fixture
def scenario() -> Scenario:
    return Scenario()


def emits(scenario: Scenario) -> list[int]:
    seen: list[int] = []
    scenario.changed.connect(lambda: seen.append(1))
    return seen


def test_combo_shows_and_writes(host: QWidget, scenario: Scenario) -> None:
    box = QComboBox(host)
    Binder(scenario, host).combo(box, "method", METHODS)
    assert box.currentText() == "Full"
    box.setCurrentIndex(1)
    assert scenario.setup.method is Method.LORA
    scenario.update(method=Method.QLORA)
    assert box.currentText() == "QLoRA"


def test_a_picker_is_made_narrow_and_bound(host: QWidget, scenario: Scenario) -> None:
    box = Binder(scenario, host).picker(host, "method", [("Full fine-tuning of every weight", Method.FULL),
                                                         ("LoRA", Method.LORA)])
    assert box.parent() is host
    assert box.sizeAdjustPolicy() is QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon
    assert box.minimumContentsLength() == PICKER_CHARS == 10
    box.setCurrentIndex(1)
    assert scenario.setup.method is Method.LORA
    scenario.update(method=Method.FULL)
    assert box.currentIndex() == 0


def test_model_to_widget_push_does_not_echo_back(host: QWidget, scenario: Scenario) -> None:
    box = QComboBox(host)
    Binder(scenario, host).combo(box, "method", METHODS)
    seen = emits(scenario)
    echoed: list[int] = []
    box.currentIndexChanged.connect(lambda _i: echoed.append(1))
    scenario.update(method=Method.LORA)
    assert (seen, echoed) == ([1], [])


def test_slider_storm_makes_one_update_with_the_last_value(qtbot: QtBot, host: QWidget, scenario: Scenario) -> None:
    slider = QSlider(host)
    Binder(scenario, host).slider(slider, "seq_len", SEQ)
    assert slider.value() == SEQ.to_position(scenario.setup.seq_len)
    seen = emits(scenario)
    for position in range(SEQ.positions + 1):
        slider.setValue(position)
    slider.setValue(3)
    assert seen == []  # nothing computed during the storm
    qtbot.waitUntil(lambda: seen == [1], timeout=1000)
    assert scenario.setup.seq_len == 1024


def test_slider_follows_the_model_without_writing(qtbot: QtBot, host: QWidget, scenario: Scenario) -> None:
    slider = QSlider(host)
    binder = Binder(scenario, host)
    binder.slider(slider, "seq_len", SEQ)
    scenario.update(seq_len=32_768)
    assert slider.value() == SEQ.to_position(32_768)
    seen = emits(scenario)
    qtbot.wait(5)
    assert seen == []


def test_spin_box_writes_coalesced(qtbot: QtBot, host: QWidget, scenario: Scenario) -> None:
    spin = QSpinBox(host)
    spin.setRange(1, 128)
    binder = Binder(scenario, host)
    binder.spin(spin, "batch")
    for value in (2, 3, 4, 5):
        spin.setValue(value)
    binder.flush()
    assert scenario.setup.batch == 5


def test_toggle_maps_to_a_two_valued_field(host: QWidget, scenario: Scenario) -> None:
    box = QCheckBox(host)
    Binder(scenario, host).toggle(box, "checkpointing", on=Checkpointing.FULL, off=Checkpointing.NONE)
    assert not box.isChecked()
    box.setChecked(True)
    assert scenario.setup.checkpointing is Checkpointing.FULL
    scenario.update(checkpointing=Checkpointing.NONE)
    assert not box.isChecked()


def test_rejected_value_resets_the_widget_and_says_why(qtbot: QtBot, host: QWidget, scenario: Scenario) -> None:
    box = QCheckBox(host)
    binder = Binder(scenario, host)
    binder.toggle(box, "offload_params")
    with qtbot.waitSignal(binder.rejected, timeout=1000) as signal:
        box.setChecked(True)
    assert signal.args is not None
    assert signal.args[0] == "offload_params"
    assert "zero3" in signal.args[1]
    assert not box.isChecked()
    assert not scenario.setup.offload_params


def test_one_scenario_drives_two_views(host: QWidget, scenario: Scenario) -> None:
    a, b = QComboBox(host), QComboBox(host)
    binder = Binder(scenario, host)
    binder.combo(a, "method", METHODS)
    binder.combo(b, "method", METHODS)
    a.setCurrentIndex(2)
    assert b.currentText() == "QLoRA"


def test_a_switch_is_a_view_of_a_many_valued_field(host: QWidget, scenario: Scenario) -> None:
    box = QCheckBox(host)
    Binder(scenario, host).switch(box, "precision", on=(Precision.BF16_MIXED, Precision.FP16_MIXED),
                                  default_on=Precision.BF16_MIXED, default_off=Precision.FP32)
    assert box.isChecked()
    scenario.update(precision=Precision.FP16_MIXED)
    assert box.isChecked()
    box.setChecked(False)
    assert scenario.get("precision") is Precision.FP32  # no "off" value seen yet: the default
    scenario.update(precision=Precision.AMP_BF16)
    assert not box.isChecked()
    box.setChecked(True)
    assert scenario.get("precision") is Precision.FP16_MIXED  # the last "on" value, not the default
    box.setChecked(False)
    assert scenario.get("precision") is Precision.AMP_BF16  # the last "off" value


def test_only_widgets_of_the_changed_fields_are_refreshed(host: QWidget, scenario: Scenario) -> None:
    shown: list[object] = []
    box = QComboBox(host)
    binder = Binder(scenario, host)
    binder.combo(box, "method", METHODS)
    binder.custom(box, "lora.rank", read=lambda: None, show=shown.append, changed=box.activated)
    shown.clear()
    scenario.update(method=Method.LORA)
    assert shown == []
    scenario.update(**{"lora.rank": 8})
    assert shown == [8]


def test_binds_a_page_state_too(host: QWidget) -> None:
    state = PageState(ServingSetup())
    spin = QSpinBox(host)
    spin.setRange(1, 8)
    binder = Binder(state, host)
    binder.spin(spin, "tp")
    spin.setValue(4)
    binder.flush()
    assert state.value.tp == 4
    state.update(tp=2)
    assert spin.value() == 2


def test_a_value_beyond_a_spin_boxs_range_widens_it(host: QWidget, scenario: Scenario) -> None:
    """Issue 17: a scenario of 1,048,576 tokens loaded while the spin box showed 131,072; the box now shows the
    state's value, and the slider sits at its end without writing."""
    spin, slider = QSpinBox(host), QSlider(host)
    spin.setRange(*ranges.SEQ_LEN)
    binder = Binder(scenario, host)
    binder.slider(slider, "seq_len", SEQ)
    binder.spin(spin, "seq_len")
    seen = emits(scenario)
    scenario.update(seq_len=1_048_576)
    assert spin.value() == 1_048_576 == scenario.setup.seq_len
    assert slider.value() == SEQ.positions
    binder.flush()
    assert scenario.setup.seq_len == 1_048_576
    assert seen == [1]  # nothing echoed back
    scenario.update(seq_len=6)
    assert spin.value() == 6


def test_a_value_that_is_none_of_the_pickers_choices_becomes_one_more_item(host: QWidget, scenario: Scenario) -> None:
    """Issue 17: a saved scenario with its own GPU (``"gpu": {"spec": {...}}``) made every refresh raise in
    ``values.index``."""
    from engine.catalog import gpus

    box = QComboBox(host)
    Binder(scenario, host).combo(box, "gpu", [(g.name, g) for g in gpus()])
    mine = scenario.gpu.model_copy(update={"id": "my-gpu", "name": "My GPU " + "x" * 150})
    scenario.update(gpu=mine)
    assert box.count() == len(gpus()) + 1
    assert box.currentText() == ("My GPU " + "x" * 150)[:79] + "…"
    other = mine.model_copy(update={"id": "other", "name": "Other"})
    scenario.update(gpu=other)
    assert (box.count(), box.currentText()) == (len(gpus()) + 1, "Other")  # one extra item, not one per GPU
    box.setCurrentIndex(0)
    assert scenario.gpu == gpus()[0]
