"""gui.widgets.role_table: one row per role (resident, transient), then the allocated peak and device total."""

from __future__ import annotations

from pytestqt.qtbot import QtBot

from engine.alignment import Stage, stage_memory
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
