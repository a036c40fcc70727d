"""gui.pages.alignment_controls: the variants are the page's own state, bound like every other control."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt
from pytestqt.qtbot import QtBot

from engine.alignment import AlignmentOptions
from engine.specs import Method
from gui import ranges
from gui.page_state import PageState
from gui.pages.alignment_controls import DEFAULTS, AlignmentChoices, AlignmentControls
from gui.scenario import Scenario


@pytest.fixture
def controls(qtbot: QtBot) -> AlignmentControls:
    c = AlignmentControls(Scenario(), PageState(AlignmentChoices()))
    qtbot.addWidget(c)
    return c


def test_boxes_write_the_options(qtbot: QtBot, controls: AlignmentControls) -> None:
    seen: list[frozenset[str]] = []
    controls.state.changed.connect(seen.append)
    qtbot.mouseClick(controls.precomputed, Qt.MouseButton.LeftButton)
    qtbot.mouseClick(controls.reward_model, Qt.MouseButton.LeftButton)
    controls.rollout.setValue(0.5)
    controls.flush()
    assert controls.state.value.options == AlignmentOptions(dpo_precomputed_reference=True,
                                                             grpo_reward_model=True, rollout_share=0.5)
    assert seen == [frozenset({"options.dpo_precomputed_reference"}), frozenset({"options.grpo_reward_model"}),
                    frozenset({"options.rollout_share"})]


def test_the_kl_box_keeps_a_coefficient_it_did_not_set(qtbot: QtBot, controls: AlignmentControls) -> None:
    controls.state.update(**{"options.grpo_kl_coef": 0.1})
    assert not controls.kl_zero.isChecked()
    qtbot.mouseClick(controls.kl_zero, Qt.MouseButton.LeftButton)
    assert controls.state.value.options.grpo_kl_coef == 0.0
    qtbot.mouseClick(controls.kl_zero, Qt.MouseButton.LeftButton)
    assert controls.state.value.options.grpo_kl_coef == 0.1
    assert DEFAULTS.grpo_kl_coef != 0.1


def test_a_new_state_shows_in_the_boxes(controls: AlignmentControls) -> None:
    controls.state.replace(AlignmentChoices(options=AlignmentOptions(grpo_kl_coef=0.0, rollout_share=0.2,
                                                                      reference_shares_base=False)))
    assert controls.kl_zero.isChecked()
    assert controls.rollout.value() == 0.2
    assert not controls.shared_base.isChecked()


def test_method_and_gpus_are_the_shared_scenarios(controls: AlignmentControls) -> None:
    scenario = controls.scenario
    assert not controls.shared_base.isEnabled()
    controls.method.setCurrentIndex(2)
    assert scenario.get("method") is Method.QLORA
    assert controls.shared_base.isEnabled()
    assert controls.method.itemText(0) == "Full"
    assert (controls.gpus.minimum(), controls.gpus.maximum()) == ranges.GPUS
    assert (controls.rollout.minimum(), controls.rollout.maximum()) == ranges.ROLLOUT_SHARE
