"""A step's caption: its number and name, its formula, and a short explanation for a newcomer.

Signals: none.
"""

from __future__ import annotations

from PySide6.QtWidgets import QHBoxLayout, QLabel, QVBoxLayout, QWidget


class StepCaption(QWidget):
    """``3. Keys   K = X Wk`` over one or two lines of explanation (texts already translated)."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.name, self.formula, self.explanation = QLabel(self), QLabel(self), QLabel(self)
        self.explanation.setWordWrap(True)
        font = self.name.font()
        font.setPointSizeF(font.pointSizeF() * 1.25)
        font.setBold(True)
        self.name.setFont(font)
        self.formula.setFont(font)
        top = QHBoxLayout()
        top.addWidget(self.name)
        top.addSpacing(16)
        top.addWidget(self.formula)
        top.addStretch(1)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addLayout(top)
        layout.addWidget(self.explanation)

    def show_step(self, number: int, name: str, formula: str, explanation: str) -> None:
        self.name.setText(self.tr("{i}. {name}").format(i=number, name=name))
        self.formula.setText(formula)
        self.explanation.setText(explanation)
