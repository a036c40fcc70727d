"""gui.widgets.attention_size_panel: a step's real sizes for the scenario, its length bound to the scenario."""

from __future__ import annotations

import pytest
from pytestqt.qtbot import QtBot

from engine.attention import attention_steps, flash_kept
from engine.units import Unit, format_bytes
from gui.state import ranges
from gui.state.scenario import Scenario
from gui.widgets.attention_size_panel import AttentionSizePanel


@pytest.fixture
def panel(qtbot: QtBot) -> AttentionSizePanel:
    p = AttentionSizePanel(Scenario())
    qtbot.addWidget(p)
    return p


def test_sizes_are_the_engines(panel: AttentionSizePanel) -> None:
    step = attention_steps(seq_len=4096)[4]  # the scores
    panel.show_step(step)
    assert panel.heading.text() == "<b>Llama 2 7B</b> at 4,096 tokens, batch 1, bf16"
    assert panel.per_layer.text() == format_bytes(step.sizes.per_layer_bytes, Unit.GB)
    assert panel.all_layers.text() == f"{format_bytes(step.sizes.all_layers_bytes, Unit.GB)} over 32 layers"
    kept = flash_kept(panel._scenario.model, 4096)
    assert format_bytes(kept.per_layer_bytes, Unit.GB) in panel.flash.text()
    assert panel.plot.curve_names() == ["scores, P (s × s)", "FlashAttention keeps"]


def test_the_length_is_the_scenarios_within_the_walk_throughs_window(panel: AttentionSizePanel) -> None:
    assert (panel.spin.minimum(), panel.spin.maximum()) == ranges.ATTENTION_SEQ_LEN
    panel.spin.setValue(8192)
    panel.binder.flush()
    assert panel._scenario.setup.seq_len == 8192
    panel._scenario.update(seq_len=512)
    assert panel.spin.value() == 512
