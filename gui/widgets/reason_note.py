"""One line beside a group of controls saying why the engine refused the last value (the control was put back).

A ``Binder`` emits ``rejected(field, message)`` with the engine's one-line reason (``engine.errors.one_line``:
``setup.parallel.tp: Value error, tp (3) must divide the attention heads (32)``); the note shows the rule itself
(``tp (3) must divide the attention heads (32)``) in the theme's "over" colour, and hides again at the next change
that went through.
"""

from __future__ import annotations

import html

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLabel, QWidget

from gui.look.follows_palette import FollowsPalette
from gui.look.palette import colors_for

_PYDANTIC_PREFIX = "Value error, "


def reason_of(message: str) -> str:
    """The rule of a rejection, without the field paths and pydantic's "Value error, " prefix when the engine's
    own rule is what refused it; a plain field error keeps its field (``setup.gpus: Input should be ...``)."""
    _where, sep, rest = message.partition(": ")
    if sep and rest.startswith(_PYDANTIC_PREFIX):
        return rest[len(_PYDANTIC_PREFIX):]
    return message


class ReasonNote(FollowsPalette, QLabel):
    """Hidden until a value is refused; then that refusal's reason, wrapped, until :meth:`clear_reason`.

    Signals: none; connect ``Binder.rejected`` to :meth:`show_reason`.
    """

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWordWrap(True)
        self.setTextFormat(Qt.TextFormat.RichText)
        self.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.reason = ""
        self.hide()
        self.follow_palette()

    def show_reason(self, _field: str, message: str) -> None:
        """Show why ``message`` (a ``Binder.rejected`` reason) was refused."""
        self.reason = reason_of(message)
        self._render()
        self.show()

    def clear_reason(self, *_args: object) -> None:
        """Hide the note (a later change went through)."""
        if self.reason:
            self.reason = ""
            self.clear()
            self.hide()

    def palette_changed(self) -> None:
        if self.reason:
            self._render()

    def _render(self) -> None:
        self.setText(f'<span style="color:{colors_for(self).over}">⚠ {html.escape(self.reason)}</span>')
