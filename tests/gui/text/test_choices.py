"""gui.text.choices: one translated label per method, used by every view that names one."""

from __future__ import annotations

from pytestqt.qtbot import QtBot

from engine.specs import Attention, Checkpointing, Loss, Method, Optimizer, Sharding
from gui.text.choices import (
    ATTENTIONS,
    CHECKPOINTING,
    LOSSES,
    METHODS,
    OPTIMIZERS,
    SHARDING,
    method_choices,
    method_label,
    short_label,
)


def test_every_method_has_a_label(qtbot: QtBot) -> None:
    assert set(METHODS) == set(Method)
    assert [method_label(m) for m in Method] == ["Full", "LoRA", "QLoRA", "LoRA 8-bit", "Freeze", "BAdam", "OFT"]
    assert method_choices()[:3] == [("Full", Method.FULL), ("LoRA", Method.LORA), ("QLoRA", Method.QLORA)]


def test_every_choice_has_a_short_label(qtbot: QtBot) -> None:
    """A value an enum gains (the paged 32-bit AdamW) must be named, or the levers' setup line raises."""
    for enum, table in ((Optimizer, OPTIMIZERS), (Attention, ATTENTIONS), (Checkpointing, CHECKPOINTING),
                        (Sharding, SHARDING), (Loss, LOSSES)):
        assert set(table) == set(enum), enum
        assert all(short_label(v) for v in enum)
    assert short_label(Optimizer.PAGED_ADAMW) == "Paged AdamW (32-bit)"
