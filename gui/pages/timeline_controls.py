"""The Timeline page's side panel: the predicted peak and its breakdown; the user's snapshot (open, progress,
cancel, what it held, the difference at the peak); the alignment of the measured steps over the predicted ones.

The alignment controls are bound (``gui.state.binding.Binder``) to the page's own state, a ``PageState`` over the
engine's ``Alignment``; the panel shows what the page hands it and computes nothing.
"""

from __future__ import annotations

from PySide6.QtCore import QSignalBlocker, Qt, Signal
from PySide6.QtWidgets import (
    QDoubleSpinBox,
    QFormLayout,
    QFrame,
    QHBoxLayout,
    QLabel,
    QProgressBar,
    QPushButton,
    QSpinBox,
    QVBoxLayout,
    QWidget,
)

from engine.snapshot.overlay import Alignment, Overlay
from engine.snapshot.report import SnapshotReport
from engine.training.timeline import Timeline
from engine.units import Unit, format_bytes
from gui.files.snapshot_loader import PROGRESS_MAX
from gui.look.palette import colors_for
from gui.pages.timeline_texts import difference_html, drawn_text, peak_where, status_text
from gui.state import ranges
from gui.state.binding import Binder
from gui.state.page_state import PageState
from gui.widgets.term_table import Row, TermTable

# the panel's width: at least this many pixels, and this many digits of its font (so that it grows with
# presentation mode's larger type; a digit, not the average character, which a CJK font makes full-width)
PANEL_MIN_WIDTH, PANEL_DIGITS = 320, 44


def _title(text: str, parent: QWidget) -> QLabel:
    label = QLabel(text, parent)
    font = label.font()
    font.setBold(True)
    font.setPointSizeF(font.pointSizeF() * 1.15)
    label.setFont(font)
    return label


def _wrapped(parent: QWidget) -> QLabel:
    label = QLabel(parent)
    label.setWordWrap(True)
    label.setTextFormat(Qt.TextFormat.RichText)
    return label


class TimelineControls(QWidget):
    """Peak, snapshot and alignment, top to bottom.

    Signals:
        open_requested(): the Open button was pressed.
        cancel_requested(): the Cancel button was pressed while a snapshot loads.
        reset_requested(): the Reset button was pressed (the snapshot's default alignment).
    """

    open_requested = Signal()
    cancel_requested = Signal()
    reset_requested = Signal()

    def __init__(self, state: PageState[Alignment], parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setFixedWidth(max(PANEL_MIN_WIDTH, self.fontMetrics().horizontalAdvance("0" * PANEL_DIGITS)))
        self.peak_value = QLabel(self)
        font = self.peak_value.font()
        font.setPointSizeF(font.pointSizeF() * 1.8)
        font.setBold(True)
        self.peak_value.setFont(font)
        self.peak_where = _wrapped(self)
        self.terms = TermTable(self)
        self.open_button = QPushButton(self.tr("Open PyTorch snapshot…"), self)
        self.progress = QProgressBar(self)
        self.progress.setRange(0, PROGRESS_MAX)
        self.cancel_button = QPushButton(self.tr("Cancel"), self)
        self.status = _wrapped(self)
        self.difference = _wrapped(self)
        self.drawn = _wrapped(self)
        self.first_step = QSpinBox(self)
        self.shift = QDoubleSpinBox(self)
        self.scale = QDoubleSpinBox(self)
        self.reset_button = QPushButton(self.tr("Reset alignment"), self)
        self._alignment = QWidget(self)
        self._configure_spins()
        self.binder = Binder(state, self)
        self.binder.spin(self.first_step, "first_step")
        self.binder.spin(self.shift, "shift")
        self.binder.spin(self.scale, "scale")
        self.open_button.clicked.connect(self.open_requested)
        self.cancel_button.clicked.connect(self.cancel_requested)
        self.reset_button.clicked.connect(self.reset_requested)
        self._layout()
        self.show_loading(None)
        self.show_measurement(None, None, Unit.GB)

    def _configure_spins(self) -> None:
        self.first_step.setRange(0, 1)
        self.first_step.setSpecialValueText(self.tr("none (start at step 2)"))
        self.shift.setRange(*ranges.ALIGN_SHIFT)
        self.shift.setSingleStep(0.02)
        self.shift.setDecimals(2)
        self.shift.setSuffix(self.tr(" steps"))
        self.scale.setRange(*ranges.ALIGN_SCALE)
        self.scale.setSingleStep(0.02)
        self.scale.setDecimals(2)
        self.scale.setSuffix(" ×")

    def _layout(self) -> None:
        v = QVBoxLayout(self)
        v.setContentsMargins(0, 0, 0, 0)
        v.addWidget(_title(self.tr("Predicted peak"), self))
        for w in (self.peak_value, self.peak_where, self.terms):
            v.addWidget(w)
        line = QFrame(self)
        line.setFrameShape(QFrame.Shape.HLine)
        v.addWidget(line)
        v.addWidget(_title(self.tr("Your PyTorch snapshot"), self))
        v.addWidget(self.open_button)
        loading = QHBoxLayout()
        loading.addWidget(self.progress, 1)
        loading.addWidget(self.cancel_button)
        v.addLayout(loading)
        for w in (self.status, self.difference, self.drawn):
            v.addWidget(w)
        form = QFormLayout(self._alignment)
        form.setContentsMargins(0, 4, 0, 0)
        form.setRowWrapPolicy(QFormLayout.RowWrapPolicy.WrapLongRows)
        form.addRow(self.tr("Measured step drawn as step 1"), self.first_step)
        form.addRow(self.tr("Shift"), self.shift)
        form.addRow(self.tr("Stretch"), self.scale)
        form.addRow(self.reset_button)
        v.addWidget(self._alignment)
        v.addStretch(1)

    def set_step_count(self, steps: int) -> None:
        """How many measured steps the first-step box offers (set before the alignment that uses them)."""
        with QSignalBlocker(self.first_step):
            self.first_step.setMaximum(max(1, steps))

    def show_peak(self, t: Timeline, unit: Unit) -> None:
        """The prediction's peak (the estimate's allocated peak) and where it is."""
        self.peak_value.setText(format_bytes(t.peak_allocated_bytes, unit))
        self.peak_where.setText(peak_where(t))

    def show_terms(self, rows: list[Row], measured: bool, unit: Unit) -> None:
        """The terms at the peak: predicted, and measured beside them when a snapshot is open."""
        headers = [self.tr("predicted")] + ([self.tr("measured")] if measured else [])
        self.terms.show_rows(headers, rows, unit)
        self.terms.setToolTip(self.tr("Measured: the blocks live at the measured peak, attributed to terms from "
                                      "their stack frames.") if measured else "")

    def show_loading(self, name: str | None) -> None:
        """A read of ``name`` in progress (``None``: none)."""
        busy = name is not None
        for w in (self.progress, self.cancel_button):
            w.setVisible(busy)
        self.progress.setValue(0)
        self.progress.setFormat(f"{name} %p%" if busy else "%p%")
        self.open_button.setEnabled(not busy)
        self.cancel_button.setEnabled(True)

    def show_cancelling(self) -> None:
        self.cancel_button.setEnabled(False)

    def show_measurement(self, report: SnapshotReport | None, overlay: Overlay | None, unit: Unit) -> None:
        """What the snapshot held and how it compares (``None``: no snapshot yet, a hint instead)."""
        self._alignment.setVisible(report is not None)
        for w in (self.difference, self.drawn):
            w.setVisible(overlay is not None)
        if report is None or overlay is None:
            self.status.setText(self.tr(
                "Record two training steps with torch.cuda.memory._record_memory_history(), save them with "
                "_dump_snapshot(), then open the file here or drop it on the window (docs/snapshot.md). Its "
                "allocated and reserved curves are laid over the prediction."))
            return
        self.status.setText(status_text(report))
        self.difference.setText(difference_html(overlay.difference, unit, colors_for(self)))
        self.drawn.setText(drawn_text(overlay))
