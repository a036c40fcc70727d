"""gui.widgets.role_table: one row per role (resident, transient), then the allocated peak and device total."""

from __future__ import annotations

from pytestqt.qtbot import QtBot

from engine.alignment import AlignmentOptions, Role, RolloutEngine, Stage, stage_memory
from engine.catalog import get_gpu, get_model
from engine.specs import TrainingSetup
from engine.units import Unit, format_bytes
from gui.widgets.role_table import RoleTable


def test_rows_are_the_roles_then_the_totals(qtbot: QtBot) -> None:
    table = RoleTable()
    qtbot.addWidget(table)
    sm = stage_memory(Stage.PPO, get_model("llama-2-7b"), TrainingSetup(), get_gpu("a100-80gb"))
    table.show_stage(sm, Unit.GB)
    assert table.rowCount() == len(sm.roles) + 2
    assert [table.cell(i, 0) for i in range(len(sm.roles))] == ["policy", "critic", "reference", "reward",
                                                                "rollout engine"]
    assert table.cell(0, 3) == format_bytes(sm.roles[0].transient_bytes, Unit.GB)
    assert table.cell(len(sm.roles), 2) == format_bytes(sm.allocated_bytes, Unit.GB)
    assert table.cell(len(sm.roles) + 1, 3) == "does not fit"


def test_a_rollout_share_too_small_for_the_weights_is_flagged(qtbot: QtBot) -> None:
    table = RoleTable()
    qtbot.addWidget(table)
    sm = stage_memory(Stage.GRPO, get_model("llama-3.1-70b"), TrainingSetup(), get_gpu("a100-80gb"))
    table.show_stage(sm, Unit.GB)
    row = [table.cell(i, 0) for i in range(table.rowCount())].index("rollout engine")
    assert table.cell(row, 1).endswith("⚠")
    item = table.item(row, 1)
    assert item is not None
    assert "cannot start" in item.toolTip()


def test_a_vllm_server_is_a_row_of_its_own_outside_the_device_total(qtbot: QtBot) -> None:
    table = RoleTable()
    qtbot.addWidget(table)
    options = AlignmentOptions(num_generations=16, rollout_engine=RolloutEngine.VLLM_SERVER)
    sm = stage_memory(Stage.GRPO, get_model("qwen2.5-7b"), TrainingSetup(), get_gpu("h100-80gb"), options)
    table.show_stage(sm, Unit.GB)
    assert table.rowCount() == len(sm.roles) + 3
    rollout = [r.role for r in sm.roles].index(Role.ROLLOUT)
    assert (table.cell(rollout, 1), table.cell(rollout, 2)) == ("vLLM server, own GPUs", "–")
    last = table.rowCount() - 1
    assert (table.cell(last, 0), table.cell(last, 2)) == ("vLLM server", format_bytes(sm.elsewhere_bytes, Unit.GB))
    item = table.item(last, 2)
    assert item is not None
    assert "not in the device total" in item.toolTip()


def test_how_each_rollout_engine_is_held(qtbot: QtBot) -> None:
    table = RoleTable()
    qtbot.addWidget(table)
    held = {}
    for engine in RolloutEngine:
        options = AlignmentOptions(num_generations=2, rollout_engine=engine)
        sm = stage_memory(Stage.GRPO, get_model("qwen2.5-7b"), TrainingSetup(), get_gpu("h100-80gb"), options)
        table.show_stage(sm, Unit.GB)
        held[engine] = table.cell([r.role for r in sm.roles].index(Role.ROLLOUT), 1)
    assert held == {RolloutEngine.HF_GENERATE: "the policy (model.generate)",
                    RolloutEngine.VLLM_COLOCATE: "vLLM colocated", RolloutEngine.VLLM_SERVER: "vLLM server, own GPUs"}
