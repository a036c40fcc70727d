"""gui.widgets.role_style: a role's colour, outline and fill say whether it is trained, frozen or absent."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QColor

from engine.alignment import Holding, Mode, Role, RoleCost
from gui.look.palette import LIGHT
from gui.widgets.role_style import ROLE_TERM, fill, in_memory, outline, role_color


def _role(mode: Mode, holding: Holding = Holding.OWN) -> RoleCost:
    return RoleCost(Role.POLICY, mode, holding)


def test_outline_and_fill_by_mode() -> None:
    trained, frozen = _role(Mode.TRAINED), _role(Mode.FROZEN)
    assert outline(LIGHT, trained, "policy").style() == Qt.PenStyle.SolidLine
    assert outline(LIGHT, frozen, "policy").style() == Qt.PenStyle.DashLine
    assert outline(LIGHT, _role(Mode.RULE), "reward").style() == Qt.PenStyle.DotLine
    assert outline(LIGHT, _role(Mode.FROZEN, Holding.PRECOMPUTED), "reference").style() == Qt.PenStyle.DotLine
    assert outline(LIGHT, None, "data").width() == 1.0
    assert fill(LIGHT, trained, "policy").alpha() == 90
    assert fill(LIGHT, frozen, "policy").alpha() == 25
    assert fill(LIGHT, None, "loss") == QColor(LIGHT.background)


def test_colours_come_from_the_terms() -> None:
    for role, term in ROLE_TERM.items():
        assert role_color(LIGHT, role) == QColor(LIGHT.term(term))
    assert in_memory(_role(Mode.FROZEN, Holding.SHARED_BASE))
    assert not in_memory(_role(Mode.FROZEN, Holding.NOT_LOADED))


def test_a_rollout_by_the_policy_is_in_memory_a_server_is_not() -> None:
    assert in_memory(_role(Mode.FROZEN, Holding.POLICY))  # model.generate's KV cache is on the training GPU
    assert not in_memory(_role(Mode.FROZEN, Holding.SERVER))
    assert outline(LIGHT, _role(Mode.FROZEN, Holding.SERVER), "rollout").style() == Qt.PenStyle.DotLine
