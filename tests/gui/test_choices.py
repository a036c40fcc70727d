"""gui.choices: one translated label per method, used by every view that names one."""

from __future__ import annotations

from pytestqt.qtbot import QtBot

from engine.specs import Method
from gui.choices import METHODS, method_choices, method_label


def test_every_method_has_a_label(qtbot: QtBot) -> None:
    assert set(METHODS) == set(Method)
    assert [method_label(m) for m in Method] == ["Full", "LoRA", "QLoRA"]
    assert method_choices() == [("Full", Method.FULL), ("LoRA", Method.LORA), ("QLoRA", Method.QLORA)]
