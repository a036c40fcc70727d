"""gui.pages.serving_controls: model and GPU bound to the shared scenario, the rest to the page's own state."""

from __future__ import annotations

import pytest
from pytestqt.qtbot import QtBot

from engine.catalog import get_gpu
from engine.serving import ServingSetup
from engine.specs import KvDtype
from gui.pages.serving_controls import SEQUENCES, TOKENS, TP, ServingControls
from gui.state import ranges
from gui.state.page_state import PageState
from gui.state.scenario import Scenario


@pytest.fixture
def controls(qtbot: QtBot) -> ServingControls:
    c = ServingControls(Scenario(), PageState(ServingSetup(sequences=16)))
    qtbot.addWidget(c)
    return c


def test_scales_are_the_guis_windows_on_the_engines_fields() -> None:
    assert (TOKENS.lo, TOKENS.hi) == ranges.SERVING_TOKENS
    assert (SEQUENCES.lo, SEQUENCES.hi) == ranges.SEQUENCES
    assert (TP.lo, TP.hi) == ranges.TP


def test_sliders_write_the_page_state_and_the_labels_follow(controls: ServingControls) -> None:
    controls.tokens.setValue(TOKENS.to_position(16_384))
    controls.tp.setValue(TP.to_position(1))
    controls.sequences.setValue(SEQUENCES.to_position(1))
    controls.flush()
    assert (controls.state.value.tokens, controls.state.value.sequences) == (16_384, 1)
    assert controls.values["tokens"].text() == "16,384 tokens"
    assert controls.values["sequences"].text() == "1 sequence"
    assert controls.values["tp"].text() == "1 GPU"
    controls.state.update(tp=4, sequences=40)
    assert controls.values["tp"].text() == "4 GPUs"
    assert controls.values["sequences"].text() == "40 sequences"


def test_pickers_write_where_their_field_lives(controls: ServingControls) -> None:
    controls.kv_box.setCurrentIndex(list(KvDtype).index(KvDtype.FP8))
    controls.gpu_box.setCurrentText("H200 141 GB")
    assert controls.state.value.kv_dtype is KvDtype.FP8
    assert controls.scenario.gpu == get_gpu("h200")
