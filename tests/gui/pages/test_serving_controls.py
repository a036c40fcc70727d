"""gui.pages.serving_controls: model and GPU bound to the shared scenario, the rest to the page's own state."""

from __future__ import annotations

import pytest
from pytestqt.qtbot import QtBot

from engine.catalog import get_gpu
from engine.serving import ServingSetup
from engine.serving.vllm_setup import KvCacheDtype
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
    controls.kv_box.setCurrentIndex(list(KvCacheDtype).index(KvCacheDtype.FP8))
    controls.gpu_box.setCurrentText("H200 141 GB")
    assert controls.state.value.kv_dtype is KvCacheDtype.FP8
    assert controls.scenario.gpu == get_gpu("h200")


def test_every_vllm_flag_has_a_control(controls: ServingControls) -> None:
    """--max-num-batched-tokens, --max-num-seqs, --enforce-eager, -pp, --gpu-memory-utilization, the weights'
    format, the release and the engine: each control writes its own field."""
    from engine.serving import WeightDtype
    from engine.serving.vllm_versions import Engine
    from gui.pages.serving_controls import PP, UTILIZATION

    controls.batched_box.setCurrentIndex(controls.batched_box.findText("4,096"))
    controls.seqs_box.setCurrentIndex(controls.seqs_box.findText("64"))
    controls.eager_box.setChecked(True)
    controls.weight_box.setCurrentIndex(list(WeightDtype).index(WeightDtype.INT4_AWQ))
    controls.pp.setValue(PP.to_position(2))
    controls.utilization.setValue(UTILIZATION.to_position(0.5))
    controls.advanced.engine_box.setCurrentIndex(controls.advanced.engine_box.findText("v0"))
    controls.advanced.version_box.setCurrentIndex(controls.advanced.version_box.findText("0.8.5"))
    controls.flush()
    s = controls.state.value
    assert (s.max_num_batched_tokens, s.max_num_seqs, s.enforce_eager, s.pp) == (4096, 64, True, 2)
    assert s.weight_dtype is WeightDtype.INT4_AWQ
    assert s.gpu_memory_utilization == pytest.approx(0.5)
    assert (s.vllm_version, s.vllm_engine) == ("0.8.5", Engine.V0)
    assert controls.values["pp"].text() == "2 GPUs"
    assert controls.values["gpu_memory_utilization"].text() == "0.50"
    controls.batched_box.setCurrentIndex(0)
    assert controls.state.value.max_num_batched_tokens is None
