"""The memory page's controls for issue 27's options: each writes its setup field, and is enabled where the
engine costs it."""

from __future__ import annotations

import pytest
from pytestqt.qtbot import QtBot

from engine.specs import CpCommType, Method, OffloadDevice, Optimizer, SavedModule, Sharding
from gui.pages.memory_controls import MemoryControls
from gui.pages.memory_parallel import ParallelControls
from gui.state.scenario import Scenario


@pytest.fixture
def controls(qtbot: QtBot) -> MemoryControls:
    c = MemoryControls(Scenario())
    qtbot.addWidget(c)
    return c


def test_the_new_methods_have_buttons(controls: MemoryControls) -> None:
    for method in (Method.LORA_8BIT, Method.FREEZE, Method.BADAM, Method.OFT):
        controls.method_buttons[method].click()
        assert controls.scenario.setup.method is method
    assert controls.oft_block.isEnabled()
    assert not controls.freeze_layers.isEnabled()
    controls.method_buttons[Method.FREEZE].click()
    assert controls.freeze_layers.isEnabled()
    controls.freeze_layers.setValue(-4)
    controls.binder.flush()
    assert controls.scenario.setup.freeze_layers == -4


def test_dora_and_the_modules_trained_in_full(controls: MemoryControls) -> None:
    controls.method_buttons[Method.LORA].click()
    controls.dora.click()
    assert controls.scenario.setup.dora
    controls.dora.click()
    controls.save_embeddings.click()
    controls.save_head.click()
    assert controls.scenario.setup.modules_to_save == (SavedModule.EMBED_TOKENS, SavedModule.LM_HEAD)
    controls.save_embeddings.click()
    saved: tuple[SavedModule, ...] = controls.scenario.setup.modules_to_save
    assert saved == (SavedModule.LM_HEAD,)
    controls.method_buttons[Method.FULL].click()  # refused: they train beside LoRA; the method stays
    assert controls.scenario.setup.method is Method.LORA
    assert "LoRA method" in controls.reason.text()


def test_nvme_switches_follow_the_offload(controls: MemoryControls) -> None:
    assert not controls.nvme_optimizer.isEnabled()
    controls.scenario.update(gpus=2, sharding=Sharding.ZERO3, offload_optimizer=True)
    assert controls.nvme_optimizer.isEnabled()
    controls.nvme_optimizer.click()
    assert controls.scenario.setup.offload_optimizer_device is OffloadDevice.NVME


def test_the_projection_rank_is_for_galore_and_apollo(controls: MemoryControls) -> None:
    assert not controls.optimizer_rank.isEnabled()
    controls.scenario.update(optimizer=Optimizer.GALORE_ADAMW)
    assert controls.optimizer_rank.isEnabled()
    controls.optimizer_rank.setValue(16)
    controls.binder.flush()
    assert controls.scenario.setup.optimizer_rank == 16


def test_the_cp_exchange_picker(qtbot: QtBot) -> None:
    scenario = Scenario()
    p = ParallelControls(scenario)
    qtbot.addWidget(p)
    scenario.update(gpus=4, **{"parallel.cp": 4})
    p.cp_comm.setCurrentIndex(1)
    assert scenario.setup.parallel.cp_comm_type is CpCommType.A2A
