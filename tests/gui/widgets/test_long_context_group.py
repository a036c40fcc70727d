"""gui.widgets.long_context_group: loss, loss chunks, activation offload and checkpointing round-trip through the
shared scenario; the memory switches' checkpointing box is a view of the picker."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt
from pytestqt.qtbot import QtBot

from engine.specs import Checkpointing, Loss, Sharding, Stack, TrainingSetup
from engine.training import estimate
from gui.pages.memory import MemoryPage
from gui.pages.memory_controls import MemoryControls
from gui.state import ranges
from gui.state.scenario import Scenario
from gui.widgets.long_context_group import TOOLS_OWN, LongContextGroup

LOSSES = list(Loss)  # the picker's order
CHECKPOINTING = list(Checkpointing)


@pytest.fixture
def group(qtbot: QtBot) -> LongContextGroup:
    g = LongContextGroup(Scenario())
    qtbot.addWidget(g)
    return g


def test_each_control_writes_its_field(qtbot: QtBot, group: LongContextGroup) -> None:
    sc = group.scenario
    seen: list[frozenset[str]] = []
    sc.changed.connect(seen.append)
    group.loss.setCurrentIndex(LOSSES.index(Loss.CHUNKED))
    group.chunks.setValue(16)
    group.flush()
    qtbot.mouseClick(group.offload, Qt.MouseButton.LeftButton)
    group.checkpointing.setCurrentIndex(CHECKPOINTING.index(Checkpointing.SELECTIVE))
    assert sc.setup == TrainingSetup(loss=Loss.CHUNKED, loss_chunks=16, activation_offload=True,
                                     checkpointing=Checkpointing.SELECTIVE)
    assert seen == [frozenset({"setup.loss"}), frozenset({"setup.loss_chunks"}),
                    frozenset({"setup.activation_offload"}), frozenset({"setup.checkpointing"})]


def test_the_scenario_shows_in_the_controls(group: LongContextGroup) -> None:
    group.scenario.update(loss=Loss.CHUNKED_OUTPUT, loss_chunks=4, activation_offload=True,
                          checkpointing=Checkpointing.SELECTIVE)
    assert group.loss.currentIndex() == LOSSES.index(Loss.CHUNKED_OUTPUT)
    assert group.chunks.value() == 4
    assert group.offload.isChecked()
    assert group.checkpointing.currentText() == "Selective (attention only)"
    group.scenario.replace(group.scenario.value.model_copy(update={"setup": TrainingSetup()}))
    assert (group.loss.currentIndex(), group.chunks.value(), group.offload.isChecked()) == (0, TOOLS_OWN, False)
    assert group.checkpointing.currentIndex() == CHECKPOINTING.index(Checkpointing.NONE)


def test_the_tools_own_chunks_are_none(group: LongContextGroup) -> None:
    group.scenario.update(loss=Loss.CHUNKED, loss_chunks=8)
    group.chunks.setValue(TOOLS_OWN)
    group.flush()
    assert group.scenario.setup.loss_chunks is None
    assert group.chunks.text() == "the tool's own"
    assert (TOOLS_OWN + 1, group.chunks.maximum()) == ranges.LOSS_CHUNKS


def test_chunks_count_only_for_the_chunked_losses(group: LongContextGroup) -> None:
    for loss in Loss:
        if loss is Loss.CHUNKED_BACKWARD:  # torchtitan's, under FSDP2: below
            continue
        group.loss.setCurrentIndex(LOSSES.index(loss))
        assert group.chunks.isEnabled() == (loss in (Loss.CHUNKED, Loss.CHUNKED_OUTPUT)), loss
    group.scenario.update(loss=Loss.STANDARD, stack=Stack.TORCHTITAN, gpus=8, sharding=Sharding.ZERO3)
    group.loss.setCurrentIndex(LOSSES.index(Loss.CHUNKED_BACKWARD))
    assert (group.scenario.setup.loss, group.chunks.isEnabled()) == (Loss.CHUNKED_BACKWARD, True)


def test_a_loss_the_stack_does_not_run_is_put_back(group: LongContextGroup) -> None:
    # torchtitan's ChunkedLossWrapper under the Trainer: refused by the engine (engine.training.stacks.check)
    group.loss.setCurrentIndex(LOSSES.index(Loss.CHUNKED_BACKWARD))
    assert group.scenario.setup.loss is Loss.STANDARD
    assert group.loss.currentIndex() == LOSSES.index(Loss.STANDARD)


def test_the_checkpointing_box_is_a_view_of_the_picker(qtbot: QtBot) -> None:
    controls = MemoryControls(Scenario())
    qtbot.addWidget(controls)
    group = controls.findChild(LongContextGroup)
    assert group is not None
    picker, box, sc = group.checkpointing, controls.checkpointing, controls.scenario
    picker.setCurrentIndex(CHECKPOINTING.index(Checkpointing.SELECTIVE))
    assert box.isChecked()
    qtbot.mouseClick(box, Qt.MouseButton.LeftButton)
    assert sc.setup.checkpointing is Checkpointing.NONE
    assert picker.currentIndex() == CHECKPOINTING.index(Checkpointing.NONE)
    qtbot.mouseClick(box, Qt.MouseButton.LeftButton)
    assert sc.get("checkpointing") is Checkpointing.SELECTIVE  # ticking twice gives the picker's value back
    picker.setCurrentIndex(CHECKPOINTING.index(Checkpointing.FULL))
    assert box.isChecked()


def test_the_memory_page_counts_what_they_set(qtbot: QtBot) -> None:
    page = MemoryPage(Scenario())
    qtbot.addWidget(page)
    group = page.controls.findChild(LongContextGroup)
    assert group is not None
    group.loss.setCurrentIndex(LOSSES.index(Loss.FUSED_LINEAR_CE))
    qtbot.mouseClick(group.offload, Qt.MouseButton.LeftButton)
    page.flush()
    sc = page.scenario
    assert page.current == estimate(sc.model, TrainingSetup(loss=Loss.FUSED_LINEAR_CE, activation_offload=True),
                                    sc.gpu)
