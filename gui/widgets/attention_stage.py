"""The stage of the attention page: up to three heat maps joined by operators (X × Wq = Q, S → P, ...).

It draws a ``Frame`` (``gui.widgets.attention_frames``). A new step re-labels the panels and lays them out
so that every cell has the same size, whatever the matrices' shapes; the frames of one step's build only
change which cells are shown and which are outlined, which is cheap enough to run sixty times a second.
"""

from __future__ import annotations

from PySide6.QtCore import QRect, Qt
from PySide6.QtGui import QResizeEvent
from PySide6.QtWidgets import QLabel, QSizePolicy, QWidget

from gui.text.tr import translate
from gui.widgets.attention_frames import Frame, Panel
from gui.widgets.matrix_view import MatrixView, chrome

MAX_PANELS = 3
OPERATOR_WIDTH = 34
MAX_CELL = 64  # pixels: beyond this, bigger cells only spread the numbers apart
TALLEST = 1.3  # a cell may be this much taller than wide when the stage is narrow
MIN_LINES = (24.0, 13.0)  # the stage's least width and height in lines of text


class AttentionStage(QWidget):
    """Shows one frame of the walk-through at a time."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Expanding)
        line = self.fontMetrics().height()  # sizes in lines of text: the matrices grow with presentation's type
        self.setMinimumSize(round(MIN_LINES[0] * line), round(MIN_LINES[1] * line))
        self.views = [MatrixView(self) for _ in range(MAX_PANELS)]
        self.operators = [QLabel(self) for _ in range(MAX_PANELS - 1)]
        for op in self.operators:
            op.setAlignment(Qt.AlignmentFlag.AlignCenter)
            font = op.font()
            font.setPointSizeF(font.pointSizeF() * 1.8)
            op.setFont(font)
        self._shapes: list[tuple[int, int]] = []
        self._keys: list[tuple[object, ...] | None] = [None] * MAX_PANELS

    def show_frame(self, frame: Frame) -> None:
        """Draw ``frame``: re-label and re-lay the panels when the step changed, else only update cells."""
        shapes = [(p.values.shape[0], p.values.shape[1]) for p in frame.panels]
        for i, view in enumerate(self.views):
            panel = frame.panels[i] if i < len(frame.panels) else None
            view.setVisible(panel is not None)
            if i:
                self.operators[i - 1].setVisible(panel is not None)
                self.operators[i - 1].setText(frame.operators[i - 1] if panel is not None else "")
            if panel is None:
                self._keys[i] = None
            else:
                self._show_panel(i, panel)
        if shapes != self._shapes:
            self._shapes = shapes
            self._fit()

    def _show_panel(self, i: int, panel: Panel) -> None:
        view = self.views[i]
        key = (panel.title, panel.values.shape, panel.rows, panel.cols)
        if key != self._keys[i]:
            self._keys[i] = key
            view.set_matrix(panel.values, panel.rows, panel.cols, translate("AttentionStage", panel.title))
        view.set_values(panel.values, panel.shown, panel.by_row)
        rows, cols = panel.mark if panel.mark is not None else (None, None)
        view.set_highlight(rows, cols)

    def _fit(self) -> None:
        """Place the panels side by side, centred, with square cells as large as the stage allows."""
        if not self._shapes:
            return
        n = len(self._shapes)
        frame = chrome(self.fontMetrics().height())  # the matrices' labels and titles, in pixels
        spare_w = self.width() - n * frame[0] - (n - 1) * OPERATOR_WIDTH
        spare_h = self.height() - frame[1]
        cols = sum(c for _, c in self._shapes)
        rows = max(r for r, _ in self._shapes)
        cell_w = max(8, min(MAX_CELL, spare_w // cols, spare_h // rows))
        cell_h = max(8, min(MAX_CELL, spare_h // rows, int(cell_w * TALLEST)))
        widths = [c * cell_w + frame[0] for _, c in self._shapes]
        x = max(0, (self.width() - sum(widths) - (n - 1) * OPERATOR_WIDTH) // 2)
        y = max(0, (spare_h - rows * cell_h) // 3)
        for i, ((r, _), w) in enumerate(zip(self._shapes, widths, strict=True)):
            if i:
                self.operators[i - 1].setGeometry(QRect(x, y + frame[1], OPERATOR_WIDTH, rows * cell_h))
                x += OPERATOR_WIDTH
            self.views[i].setGeometry(QRect(x, y, w, r * cell_h + frame[1]))
            x += w

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        self._fit()
