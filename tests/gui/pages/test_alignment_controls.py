"""gui.pages.alignment_controls: the variants and the rollout settings are the page's own state, bound like every
other control."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt
from pytestqt.qtbot import QtBot

from engine.alignment import AlignmentOptions, RolloutEngine, Stage
from engine.specs import Method
from gui.pages.alignment_controls import DEFAULTS, AlignmentChoices, AlignmentControls
from gui.state import ranges
from gui.state.page_state import PageState
from gui.state.scenario import Scenario


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


def test_sample_completions_switches_the_rl_shape_as_a_whole(qtbot: QtBot, controls: AlignmentControls) -> None:
    rl = controls.rl
    assert not rl.sample.isChecked()
    assert not rl.spins["num_generations"].isEnabled()
    qtbot.mouseClick(rl.sample, Qt.MouseButton.LeftButton)
    o = controls.state.value.options
    assert (o.num_generations, o.max_prompt_length, o.max_completion_length) == (8, 512, 512)  # TRL's defaults
    assert o.rollout_engine is RolloutEngine.VLLM_COLOCATE  # a share is set: colocated
    assert rl.spins["num_generations"].isEnabled()
    rl.spins["num_generations"].setValue(16)
    rl.spins["max_completion_length"].setValue(1024)
    rl.engine.setCurrentIndex(2)
    controls.flush()
    set_before = AlignmentOptions(num_generations=16, max_prompt_length=512, max_completion_length=1024,
                                  rollout_engine=RolloutEngine.VLLM_SERVER)
    assert controls.state.value.options == set_before
    assert not rl.share.isEnabled()  # a server's share is not on the training GPUs
    qtbot.mouseClick(rl.sample, Qt.MouseButton.LeftButton)
    assert controls.state.value.options == DEFAULTS
    assert not controls.state.value.options.rl
    qtbot.mouseClick(rl.sample, Qt.MouseButton.LeftButton)
    assert controls.state.value.options == set_before  # unticking and ticking again loses nothing


def test_rl_options_show_in_the_boxes(controls: AlignmentControls) -> None:
    rl = controls.rl
    controls.state.replace(AlignmentChoices(options=AlignmentOptions(num_generations=4, rollout_share=0.5)))
    assert rl.sample.isChecked()
    assert rl.spins["num_generations"].value() == 4
    assert rl.spins["max_completion_length"].value() == 512  # unset: TRL's default, as the engine counts it
    assert rl.engine.currentText() == "vLLM colocated"
    assert rl.share.value() == 0.5
    controls.state.update(**{"options.rollout_share": 0.0})
    assert rl.engine.currentText() == "model.generate (in training)"  # unset: the engine follows the share
    assert [(s.minimum(), s.maximum()) for s in rl.spins.values()] == [
        ranges.GENERATIONS, ranges.PROMPT_TOKENS, ranges.COMPLETION_TOKENS]


def test_a_colocated_engine_without_a_share_is_refused(qtbot: QtBot, controls: AlignmentControls) -> None:
    rl = controls.rl
    controls.state.update(**{"options.rollout_share": 0.0, "options.rollout_engine": RolloutEngine.HF_GENERATE})
    with qtbot.waitSignal(controls.own.rejected):
        rl.engine.setCurrentIndex(1)  # vLLM colocated
    assert controls.state.value.options.rollout_engine is RolloutEngine.HF_GENERATE
    assert rl.engine.currentIndex() == 0  # put back
    assert rl.shape.text().startswith("⚠ ")


def test_shown_for_ppo_and_grpo_only(controls: AlignmentControls) -> None:
    for stage in Stage:
        controls.state.update(stage=stage)
        assert controls.rl.isHidden() == (stage not in (Stage.PPO, Stage.GRPO)), stage
