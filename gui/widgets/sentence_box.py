"""The sentence the walk-through computes: a line to type it, a button, and the reason when it is refused.

Signals:
    submitted(str): the user asked for this sentence (Return or the button); the page decides whether it fits.
"""

from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import QHBoxLayout, QLabel, QLineEdit, QPushButton, QWidget

from gui.look.follows_palette import FollowsPalette
from gui.look.palette import colors_for


class SentenceBox(FollowsPalette, QWidget):
    """``Sentence: [ ... ] [Compute]  error``."""

    submitted = Signal(str)

    def __init__(self, text: str, max_words: int, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.line = QLineEdit(text, self)
        self.line.setPlaceholderText(self.tr("Type a sentence of up to {n} words").format(n=max_words))
        self.line.returnPressed.connect(lambda: self.submitted.emit(self.line.text()))
        self.apply = QPushButton(self.tr("Compute"), self)
        self.apply.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        self.apply.clicked.connect(lambda: self.submitted.emit(self.line.text()))
        self.error = QLabel(self)
        self.error.setObjectName("sentenceError")
        self.error.setWordWrap(True)
        layout = QHBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(QLabel(self.tr("Sentence:"), self))
        layout.addWidget(self.line, 1)
        layout.addWidget(self.apply)
        layout.addWidget(self.error, 1)
        self._paint()
        self.follow_palette()

    def show_error(self, message: str) -> None:
        """Say why the sentence was refused ('' clears it)."""
        self.error.setText(message)

    def _paint(self) -> None:
        self.error.setStyleSheet(f"color: {colors_for(self).over};")

    def palette_changed(self) -> None:
        self._paint()
