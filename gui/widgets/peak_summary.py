"""The headline of the memory page: the per-GPU peak as a large number, its three levels, and the verdict."""

from __future__ import annotations

from PySide6.QtCore import QSize
from PySide6.QtGui import QResizeEvent
from PySide6.QtWidgets import QBoxLayout, QFormLayout, QLabel, QLayout, QVBoxLayout, QWidget

from engine.training import Estimate, Verdict
from engine.units import Unit, format_bytes
from gui.look.palette import colors_for
from gui.text.tr import QT_TRANSLATE_NOOP

_PHASES = {
    "forward": QT_TRANSLATE_NOOP("PeakSummary", "forward pass"),
    "backward": QT_TRANSLATE_NOOP("PeakSummary", "backward pass"),
    "optimizer_step": QT_TRANSLATE_NOOP("PeakSummary", "optimizer step"),
}


class PeakSummary(QWidget):
    """Shows one ``Estimate``: device total (large), allocated / reserved / device, verdict against the GPU.

    Signals: none; call :meth:`show_estimate`.
    """

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.big = QLabel(self)
        self.big.setObjectName("peakNumber")
        font = self.big.font()
        font.setPointSizeF(font.pointSizeF() * 2.6)
        font.setBold(True)
        self.big.setFont(font)
        self.caption = QLabel(wordWrap=True)
        self.verdict = QLabel(self, wordWrap=True)
        self.verdict.setObjectName("verdict")
        vfont = self.verdict.font()
        vfont.setBold(True)
        vfont.setPointSizeF(vfont.pointSizeF() * 1.15)
        self.verdict.setFont(vfont)
        self.allocated, self.reserved, self.device = QLabel(), QLabel(), QLabel()
        levels = QFormLayout()
        levels.addRow(self.tr("Allocated peak"), self.allocated)
        levels.addRow(self.tr("Reserved"), self.reserved)
        levels.addRow(self.tr("Device total"), self.device)
        for label in (self.allocated, self.reserved, self.device):
            label.setToolTip(self._level_tip())
        left = QVBoxLayout()
        left.addWidget(self.big)
        left.addWidget(self.caption)
        left.addWidget(self.verdict)
        self._row = QBoxLayout(QBoxLayout.Direction.LeftToRight, self)
        self._row.setContentsMargins(0, 0, 0, 0)
        self._row.setSizeConstraint(QLayout.SizeConstraint.SetNoConstraint)  # narrow enough to stack (below)
        self._row.addLayout(left, 3)
        self._row.addLayout(levels, 2)
        self._parts = (left, levels)

    def minimumSizeHint(self) -> QSize:
        """As narrow as the number over the levels: side by side is a choice made when there is room."""
        hint = super().minimumSizeHint()
        return QSize(max(part.minimumSize().width() for part in self._parts), hint.height())

    def resizeEvent(self, event: QResizeEvent) -> None:
        """The three levels beside the number when both fit across, under it when not (a large type size)."""
        super().resizeEvent(event)
        need = sum(part.minimumSize().width() for part in self._parts) + self._row.spacing()
        wanted = QBoxLayout.Direction.LeftToRight if event.size().width() >= need else QBoxLayout.Direction.TopToBottom
        if self._row.direction() != wanted:
            self._row.setDirection(wanted)

    def _level_tip(self) -> str:
        return self.tr(
            "Allocated peak: what torch.cuda.max_memory_allocated() reports (live tensors).\n"
            "Reserved: plus the caching allocator's rounding and fragmentation.\n"
            "Device total: plus the CUDA context and libraries — what nvidia-smi shows."
        )

    def show_estimate(self, e: Estimate, unit: Unit) -> None:
        self.big.setText(format_bytes(e.device_bytes, unit, 1))
        step = self.tr("first step") if e.peak_step == 1 else self.tr("later steps")
        self.caption.setText(
            self.tr("per GPU, at the peak: {phase}, {step}").format(
                phase=self.tr(_PHASES.get(e.peak_phase, e.peak_phase)), step=step
            )
        )
        self.allocated.setText(format_bytes(e.peak_allocated_bytes, unit))
        self.reserved.setText(format_bytes(e.reserved_bytes, unit))
        self.device.setText(format_bytes(e.device_bytes, unit))
        self._show_verdict(e, unit)

    def _show_verdict(self, e: Estimate, unit: Unit) -> None:
        c = colors_for(self)
        gpu = e.gpu.name
        if e.verdict is Verdict.OVER:
            short = format_bytes(-e.headroom_bytes, unit)
            text = self.tr("Does not fit on {gpu}: short by {x}").format(gpu=gpu, x=short)
            color = c.over
        elif e.verdict is Verdict.TIGHT:
            text = self.tr("Tight on {gpu}: {x} left").format(gpu=gpu, x=format_bytes(e.headroom_bytes, unit))
            color = c.term("temporaries")
        else:
            text = self.tr("Fits on {gpu} with {x} headroom").format(gpu=gpu, x=format_bytes(e.headroom_bytes, unit))
            color = c.fits
        self.verdict.setText(text)
        self.verdict.setStyleSheet(f"color: {color};")
