"""gui.pages.memory_controls: one owner per field. The FlashAttention and 8-bit switches are views of the
Attention and Optimizer pickers: every combination of picks and ticks keeps every value."""

from __future__ import annotations

import itertools
from typing import Any

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QCheckBox, QComboBox
from pytestqt.qtbot import QtBot

from engine.specs import Attention, Method, Optimizer, Sharding
from gui.pages.memory_controls import EIGHT_BIT, NO_SCORES, MemoryControls
from gui.state import ranges
from gui.state.scenario import Scenario

TOGGLE = "toggle"


@pytest.fixture
def controls(qtbot: QtBot) -> MemoryControls:
    c = MemoryControls(Scenario())
    qtbot.addWidget(c)
    return c


def _pairs(c: MemoryControls, field: str) -> tuple[QComboBox, QCheckBox, tuple[Any, ...], tuple[Any, ...]]:
    if field == "attention":
        return c.attention, c.flash, tuple(Attention), NO_SCORES
    return c.optimizer, c.eight_bit, tuple(Optimizer), EIGHT_BIT


def _check_views(c: MemoryControls, field: str) -> None:
    picker, switch, values, on = _pairs(c, field)
    value = c.scenario.get(field)
    assert picker.currentIndex() == values.index(value)
    assert switch.isChecked() == (value in on)


@pytest.mark.parametrize("field", ["attention", "optimizer"])
def test_every_pick_and_tick_sequence_keeps_every_value(qtbot: QtBot, controls: MemoryControls, field: str) -> None:
    picker, switch, values, on = _pairs(controls, field)
    for start, *ops in itertools.product(values, *[(*values, TOGGLE)] * 3):
        picker.setCurrentIndex(values.index(start))
        history = [start]
        previous_op: Any = None
        for op in ops:
            if op == TOGGLE:
                qtbot.mouseClick(switch, Qt.MouseButton.LeftButton)
                now = controls.scenario.get(field)
                assert (now in on) != (history[-1] in on), f"{start}, {ops}: the tick did not switch"
                if previous_op == TOGGLE:
                    assert now == history[-2], f"{start}, {ops}: ticking twice lost {history[-2]}"
            else:
                picker.setCurrentIndex(values.index(op))
                assert controls.scenario.get(field) == op
            history.append(controls.scenario.get(field))
            previous_op = op
            _check_views(controls, field)


def test_sdpa_survives_flash_off_and_on(qtbot: QtBot, controls: MemoryControls) -> None:
    assert controls.scenario.get("attention") is Attention.SDPA
    qtbot.mouseClick(controls.flash, Qt.MouseButton.LeftButton)
    assert controls.scenario.get("attention") is Attention.EAGER
    assert controls.attention.currentIndex() == list(Attention).index(Attention.EAGER)
    qtbot.mouseClick(controls.flash, Qt.MouseButton.LeftButton)
    assert controls.scenario.get("attention") is Attention.SDPA


def test_eager_ticked_on_becomes_flash(qtbot: QtBot, controls: MemoryControls) -> None:
    controls.scenario.update(attention=Attention.EAGER)
    fresh = MemoryControls(controls.scenario)
    qtbot.addWidget(fresh)
    qtbot.mouseClick(fresh.flash, Qt.MouseButton.LeftButton)
    assert fresh.scenario.setup.attention is Attention.FLASH


@pytest.mark.parametrize("optimizer", [Optimizer.PAGED_ADAMW_8BIT, Optimizer.ADAMW_8BIT])
def test_an_8bit_optimizer_survives_8bit_off_and_on(qtbot: QtBot, controls: MemoryControls,
                                                     optimizer: Optimizer) -> None:
    controls.optimizer.setCurrentIndex(list(Optimizer).index(optimizer))
    qtbot.mouseClick(controls.eight_bit, Qt.MouseButton.LeftButton)
    assert controls.scenario.setup.optimizer is Optimizer.ADAMW
    qtbot.mouseClick(controls.eight_bit, Qt.MouseButton.LeftButton)
    assert controls.scenario.setup.optimizer is optimizer


def test_lion_comes_back_after_an_8bit_detour(qtbot: QtBot, controls: MemoryControls) -> None:
    controls.optimizer.setCurrentIndex(list(Optimizer).index(Optimizer.LION))
    qtbot.mouseClick(controls.eight_bit, Qt.MouseButton.LeftButton)
    assert controls.scenario.get("optimizer") is Optimizer.ADAMW_8BIT
    qtbot.mouseClick(controls.eight_bit, Qt.MouseButton.LeftButton)
    assert controls.scenario.get("optimizer") is Optimizer.LION


def test_lora_controls_and_offload_follow_the_method_and_sharding(controls: MemoryControls) -> None:
    assert not controls.rank.isEnabled()
    assert not controls.offload_params.isEnabled()
    controls.scenario.update(method=Method.QLORA, sharding=Sharding.ZERO3)
    assert controls.rank.isEnabled()
    assert controls.targets.isEnabled()
    assert controls.offload_params.isEnabled()


def test_ranges_are_the_guis_windows(controls: MemoryControls) -> None:
    assert (controls.rank.minimum(), controls.rank.maximum()) == ranges.LORA_RANK
    assert (controls.seq_spin.minimum(), controls.seq_spin.maximum()) == ranges.SEQ_LEN
    assert (controls.gpus_spin.minimum(), controls.gpus_spin.maximum()) == ranges.GPU_COUNT  # a planned layout's
    assert (controls.gpus_slider.minimum(), controls.gpus_slider.maximum()) == (0, ranges.GPUS[1] - ranges.GPUS[0])
    assert (controls.grad_accum.minimum(), controls.grad_accum.maximum()) == ranges.GRAD_ACCUM


def test_method_buttons_read_the_shared_labels(controls: MemoryControls) -> None:
    assert [b.text() for b in controls.method_buttons.values()] == ["Full", "LoRA", "QLoRA", "LoRA 8-bit", "Freeze",
                                                                     "BAdam", "OFT"]


def test_the_stack_picker_and_the_adamw_implementation_beside_it(controls: MemoryControls) -> None:
    """Issue 25: the stack writes setup.stack; the implementation picker's first entry is the stack's own, named
    (hf-trainer fused, litgpt foreach); it is off for an optimizer that is not torch's AdamW."""
    from engine.specs import OptimizerImpl, Stack

    assert controls.stack.currentIndex() == list(Stack).index(Stack.HF_TRAINER)
    assert controls.optimizer_impl.itemText(0).endswith("(fused)")
    controls.stack.setCurrentIndex(list(Stack).index(Stack.LITGPT))
    assert controls.scenario.setup.stack is Stack.LITGPT
    assert controls.optimizer_impl.itemText(0).endswith("(foreach)")
    controls.optimizer_impl.setCurrentIndex(1 + list(OptimizerImpl).index(OptimizerImpl.FORLOOP))
    assert controls.scenario.setup.optimizer_impl is OptimizerImpl.FORLOOP
    controls.optimizer_impl.setCurrentIndex(0)
    assert controls.scenario.setup.optimizer_impl is None
    controls.optimizer.setCurrentIndex(list(Optimizer).index(Optimizer.PAGED_ADAMW_8BIT))
    assert not controls.optimizer_impl.isEnabled()


def test_fsdps_version_is_a_choice_of_a_sharded_setup(controls: MemoryControls) -> None:
    assert not controls.fsdp_version.isEnabled()
    controls.scenario.update(gpus=8, sharding=Sharding.ZERO3)
    assert controls.fsdp_version.isEnabled()
    controls.fsdp_version.setCurrentIndex(2)
    assert controls.scenario.setup.fsdp_version == 2
