"""How alignment roles look, defined once for the stage diagram and the stage bars.

A role takes the colour of the memory term it is mostly made of in the palette (the policy's weights, the critic's
optimizer states, ...), so it follows the theme; how it is held decides the outline: solid when trained, dashed
when frozen (inference only), dotted when it is a program or is not in memory at all.
"""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QColor, QPen

from engine.alignment import Holding, Mode, RoleCost
from gui.look.palette import Colors

ROLE_TERM = {
    "policy": "weights",
    "reference": "gradients",
    "critic": "optimizer_states",
    "reward": "logits",
    "rollout": "kv_cache",
}


def role_color(c: Colors, role: str) -> QColor:
    """A role's colour in the current theme (grey for the diagram's data and loss nodes)."""
    return QColor(c.term(ROLE_TERM.get(role, "")))


def in_memory(r: RoleCost) -> bool:
    """Whether the role takes GPU memory on the training GPUs (not precomputed, not loaded, not a program, not a
    server of its own; a rollout by the policy's model.generate does)."""
    return r.holding in (Holding.OWN, Holding.SHARED_BASE, Holding.POLICY)


def outline(c: Colors, r: RoleCost | None, role: str, width: float = 2.0) -> QPen:
    """Solid (trained), dashed (frozen), dotted (a rule, or absent from memory); data and loss nodes thin."""
    if r is None:
        return QPen(QColor(c.muted), 1.0)
    if not in_memory(r) or r.mode is Mode.RULE:
        pen = QPen(QColor(c.muted), width, Qt.PenStyle.DotLine)
    else:
        style = Qt.PenStyle.SolidLine if r.mode is Mode.TRAINED else Qt.PenStyle.DashLine
        pen = QPen(role_color(c, role), width, style)
    return pen


def fill(c: Colors, r: RoleCost | None, role: str) -> QColor:
    """Trained roles are filled with their colour, frozen ones faintly, the rest not at all."""
    if r is None or not in_memory(r):
        return QColor(c.background)
    colour = role_color(c, role)
    colour.setAlpha(90 if r.mode is Mode.TRAINED else 25)
    return colour
