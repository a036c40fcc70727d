"""gui.pages.alignment: stage buttons, variant toggles and the animation, numbers checked against the engine."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt
from pytestqt.qtbot import QtBot

from engine.alignment import AlignmentOptions, Role, RolloutEngine, Stage, stage_memory, stages
from engine.catalog import get_gpu, get_model
from engine.specs import Checkpointing, Method, TrainingSetup
from engine.units import Unit, format_bytes
from gui.look.theme import ThemeManager, ThemeMode
from gui.pages.alignment import AlignmentPage
from gui.state.scenario import Scenario


def _page(qtbot: QtBot) -> tuple[AlignmentPage, Scenario]:
    scenario = Scenario()
    page = AlignmentPage(scenario)
    qtbot.addWidget(page)
    return page, scenario


def _stage_button(qtbot: QtBot, page: AlignmentPage, stage: Stage) -> None:
    qtbot.mouseClick(page.stage_buttons.button(list(Stage).index(stage)), Qt.MouseButton.LeftButton)


def test_models_and_bytes_are_the_engines(qtbot: QtBot) -> None:
    page, sc = _page(qtbot)
    expected = stage_memory(Stage.DPO, sc.model, sc.setup, sc.gpu)
    assert page.stage(Stage.DPO) == expected
    for i, role in enumerate(expected.roles):
        assert page.table.cell(i, 2) == format_bytes(role.resident_bytes, Unit.GB)
        assert format_bytes(role.bytes, Unit.GB) in page.diagram.node_texts()[role.role.value]
    assert page.table.cell(len(expected.roles) + 1, 2) == format_bytes(expected.device_bytes, Unit.GB)
    totals = page.bars.totals()
    for st in Stage:
        assert totals[st.value] == stage_memory(st, sc.model, sc.setup, sc.gpu).device_bytes / 1e9


def test_ppo_draws_four_models_and_a_rollout_engine(qtbot: QtBot) -> None:
    page, _ = _page(qtbot)
    _stage_button(qtbot, page, Stage.PPO)
    nodes = page.diagram.node_texts()
    assert {"policy", "critic", "reference", "reward", "rollout", "data", "loss"} == set(nodes)
    assert "trained" in nodes["critic"]
    assert "frozen" in nodes["reward"]
    assert page.stage(Stage.PPO).models == 4
    assert "advantages" in page.diagram.arrow_labels()


def test_variant_toggles_change_the_count(qtbot: QtBot) -> None:
    page, sc = _page(qtbot)
    qtbot.mouseClick(page.controls.kl_zero, Qt.MouseButton.LeftButton)
    qtbot.mouseClick(page.controls.precomputed, Qt.MouseButton.LeftButton)
    page.flush()
    assert page.stage(Stage.GRPO).models == 1
    assert page.stage(Stage.DPO).models == 1
    assert "log-probs precomputed" in page.diagram.node_texts()["reference"]
    _stage_button(qtbot, page, Stage.GRPO)
    assert "not loaded" in page.diagram.node_texts()["reference"]
    assert "log-probs (KL)" not in page.diagram.arrow_labels()  # an arrow to nothing is drawn faded, not played
    page.controls.rollout.setValue(0.0)
    page.flush()
    assert "rollout" not in page.diagram.node_texts()
    options = AlignmentOptions(grpo_kl_coef=0.0, dpo_precomputed_reference=True, rollout_share=0.0)
    assert page.stage(Stage.GRPO) == stage_memory(Stage.GRPO, sc.model, sc.setup, sc.gpu, options)


def test_lora_reference_without_a_copy(qtbot: QtBot) -> None:
    page, sc = _page(qtbot)
    assert not page.controls.shared_base.isEnabled()
    page.controls.method.setCurrentIndex(1)  # LoRA, through the binder into the shared scenario
    assert sc.setup.method is Method.LORA
    assert page.controls.shared_base.isEnabled()
    page.flush()
    dpo = page.stage(Stage.DPO)
    assert dpo.weight_copies == 1
    assert "no copy" in page.diagram.node_texts()["reference"]
    qtbot.mouseClick(page.controls.shared_base, Qt.MouseButton.LeftButton)
    page.flush()
    assert page.stage(Stage.DPO).weight_copies == 2


def test_gpus_and_sharding_reach_the_engine(qtbot: QtBot) -> None:
    page, sc = _page(qtbot)
    page.controls.sharding.setCurrentIndex(3)
    page.controls.gpus.setValue(4)
    page.flush()
    assert sc.setup.gpus == 4
    ref = next(r for r in page.stage(Stage.DPO).roles if r.role is Role.REFERENCE)
    assert ref.resident["weights"] == 6_738_415_616 * 2 // 4


def test_facts_with_their_context(qtbot: QtBot) -> None:
    page, _ = _page(qtbot)
    assert "5e-7" in page.facts.text()
    assert "arXiv:2305.18290" in page.facts.text()
    page.bars.stage_clicked.emit("grpo")
    assert "arXiv:2402.03300" in page.facts.text()


def test_play_one_step_and_stop_when_hidden(qtbot: QtBot) -> None:
    page, _ = _page(qtbot)
    page.show()
    page.diagram.player.step_ms = 5
    with qtbot.waitSignal(page.diagram.playing_changed, timeout=2000) as started:
        qtbot.mouseClick(page.play, Qt.MouseButton.LeftButton)
    assert started.args == [True]
    assert "Stop" in page.play.text()
    with qtbot.waitSignal(page.diagram.playing_changed, timeout=2000) as ended:
        pass
    assert ended.args == [False]
    assert "Play" in page.play.text()
    page.diagram.player.step_ms = 1000
    qtbot.mouseClick(page.play, Qt.MouseButton.LeftButton)
    assert page.diagram.player.is_playing()
    page.hide()
    assert not page.diagram.player.is_playing()


def test_dark_theme_redraws(qtbot: QtBot, theme: ThemeManager) -> None:
    page, _ = _page(qtbot)
    page.show()
    theme.set_mode(ThemeMode.DARK)
    qtbot.wait(1)
    assert "policy" in page.diagram.node_texts()


def test_a_hidden_page_waits_until_shown(qtbot: QtBot) -> None:
    page, sc = _page(qtbot)
    page.show()
    page.hide()
    sc.update(method=Method.LORA)
    assert page.stage(Stage.DPO).weight_copies == 2
    page.show()
    assert page.stage(Stage.DPO).weight_copies == 1


def _rl_page(qtbot: QtBot) -> tuple[AlignmentPage, Scenario]:
    """README's GRPO case: Qwen2.5 7B, LoRA, checkpointing on, an H100 80GB."""
    scenario = Scenario(get_model("qwen2.5-7b"), TrainingSetup(method=Method.LORA, checkpointing=Checkpointing.FULL),
                        get_gpu("h100-80gb"))
    page = AlignmentPage(scenario)
    qtbot.addWidget(page)
    _stage_button(qtbot, page, Stage.GRPO)
    return page, scenario


@pytest.mark.parametrize("generations", [2, 16])
@pytest.mark.parametrize("engine", list(RolloutEngine))
def test_rl_numbers_are_the_engines(qtbot: QtBot, generations: int, engine: RolloutEngine) -> None:
    page, sc = _rl_page(qtbot)
    rl = page.controls.rl
    qtbot.mouseClick(rl.sample, Qt.MouseButton.LeftButton)
    rl.spins["num_generations"].setValue(generations)
    rl.spins["max_completion_length"].setValue(1024)
    rl.engine.setCurrentIndex(list(RolloutEngine).index(engine))
    page.flush()
    options = AlignmentOptions(num_generations=generations, max_prompt_length=512, max_completion_length=1024,
                               rollout_engine=engine, rollout_share=0.3)
    assert page.state.value.options == options
    expected = stages(sc.model, sc.setup, sc.gpu, options)
    assert tuple(page.stage(st.stage) for st in expected) == expected
    assert page.bars.totals() == {st.stage.value: st.device_bytes / 1e9 for st in expected}
    grpo = expected[-1]
    rows = [page.table.cell(i, 0) for i in range(page.table.rowCount())]
    for i, role in enumerate(grpo.roles):
        assert page.table.cell(i, 2) == (format_bytes(role.resident_bytes, Unit.GB) if role.resident_bytes else "–")
    assert page.table.cell(len(grpo.roles) + 1, 2) == format_bytes(grpo.device_bytes, Unit.GB)
    assert grpo.rollout is not None
    assert grpo.rollout.train_sequences == generations
    assert f"trains on {generations} sequences of 512 + 1,024 tokens" in rl.shape.text()
    assert "last 1,025 positions" in rl.shape.text()
    rollout = page.diagram.node_texts()["rollout"]
    if engine is RolloutEngine.VLLM_SERVER:
        assert rows[-1] == "vLLM server"
        assert page.table.cell(len(rows) - 1, 2) == format_bytes(grpo.elsewhere_bytes, Unit.GB)
        assert format_bytes(grpo.elsewhere_bytes, Unit.GB) in rl.shape.text()
        assert "vLLM server, own GPUs" in rollout
    else:
        assert "vLLM server" not in rows
        share = format_bytes(grpo.rollout_bytes, Unit.GB)
        assert ("vLLM colocated" in rollout and share in rollout) if engine is RolloutEngine.VLLM_COLOCATE \
            else "model.generate" in rollout


def test_readme_grpo_at_16_generations(qtbot: QtBot) -> None:
    page, _ = _rl_page(qtbot)
    rl = page.controls.rl
    qtbot.mouseClick(rl.sample, Qt.MouseButton.LeftButton)
    rl.spins["num_generations"].setValue(16)
    rl.spins["max_completion_length"].setValue(1024)
    page.flush()
    assert format_bytes(page.stage(Stage.GRPO).device_bytes, Unit.GB) == "80.51 GB"  # README's table
    row = [page.table.cell(i, 0) for i in range(page.table.rowCount())].index("rollout engine")
    assert page.table.cell(row, 2) == "25.52 GB"  # the vLLM share: 0.3 of the 85.06 GB CUDA reports
