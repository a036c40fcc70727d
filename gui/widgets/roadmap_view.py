""""What would make it fit": the engine's roadmap (``engine.training.advisor``) as a list, each step with its
per-GPU peak and its cost, plus the longest sequence and the largest batch that fit as things stand."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLabel, QVBoxLayout, QWidget

from engine.training.advisor import Step
from engine.units import Unit, format_bytes
from gui.palette import colors_for
from gui.tr import QT_TRANSLATE_NOOP, translate

_TITLES = {
    "bf16": QT_TRANSLATE_NOOP("roadmap", "16-bit training (bf16)"),
    "flash": QT_TRANSLATE_NOOP("roadmap", "FlashAttention"),
    "checkpointing": QT_TRANSLATE_NOOP("roadmap", "Gradient checkpointing"),
    "8bit": QT_TRANSLATE_NOOP("roadmap", "8-bit AdamW"),
    "lora": QT_TRANSLATE_NOOP("roadmap", "LoRA (rank 16, all linear layers)"),
    "qlora": QT_TRANSLATE_NOOP("roadmap", "QLoRA (4-bit NF4 base)"),
    "zero2": QT_TRANSLATE_NOOP("roadmap", "ZeRO-2 over the current GPUs"),
    "zero3": QT_TRANSLATE_NOOP("roadmap", "ZeRO-3 / FSDP over the current GPUs"),
    "offload": QT_TRANSLATE_NOOP("roadmap", "Offload optimizer states to CPU RAM"),
    "gpus": QT_TRANSLATE_NOOP("roadmap", "More GPUs with ZeRO-3"),
}
_COSTS = {
    "bf16": QT_TRANSLATE_NOOP("roadmap", "almost none on GPUs with bf16"),
    "flash": QT_TRANSLATE_NOOP("roadmap", "none: the same result, computed in tiles"),
    "checkpointing": QT_TRANSLATE_NOOP("roadmap", "about 20–40% more compute per step (H200: +28% full, +56% LoRA)"),
    "8bit": QT_TRANSLATE_NOOP("roadmap", "almost none; states quantized block-wise"),
    "lora": QT_TRANSLATE_NOOP("roadmap", "trains ~0.6% of the weights; quality usually close to full"),
    "qlora": QT_TRANSLATE_NOOP("roadmap", "slower matmuls (dequantized on the fly); small quality loss"),
    "zero2": QT_TRANSLATE_NOOP("roadmap", "same communication as data parallelism"),
    "zero3": QT_TRANSLATE_NOOP("roadmap", "about 1.5× the communication of data parallelism"),
    "offload": QT_TRANSLATE_NOOP("roadmap", "slower steps: the optimizer runs on the CPU"),
    "gpus": QT_TRANSLATE_NOOP("roadmap", "more hardware"),
}


class RoadmapView(QWidget):
    """The roadmap as a small table (rich text, so long costs wrap) and the "as things stand" limits.

    Signals: none; call :meth:`show_steps`.
    """

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.heading = QLabel(wordWrap=True)
        self.table = QLabel(wordWrap=True)
        self.table.setTextFormat(Qt.TextFormat.RichText)
        self.limits = QLabel(wordWrap=True)
        v = QVBoxLayout(self)
        v.setContentsMargins(0, 0, 0, 0)
        v.addWidget(self.heading)
        v.addWidget(self.table)
        v.addStretch(1)
        v.addWidget(self.limits)

    def show_steps(self, steps: list[Step], max_seq: int | None, max_batch: int | None, unit: Unit) -> None:
        c = colors_for(self)
        self.heading.setText(
            self.tr("<b>What would make it fit</b> — the seed guide's roadmap, each step on top of the previous")
            if steps else self.tr("<b>It fits.</b> Nothing to change; the limits as things stand:")
        )
        rows = []
        for step in steps:
            color = c.fits if step.fits else c.over
            title = translate("roadmap", _TITLES.get(step.key, step.title))
            cost = translate("roadmap", _COSTS.get(step.key, step.cost))
            rows.append(
                f'<tr><td style="color:{color}">{"✓" if step.fits else "✗"}&nbsp;{title}<br>'
                f'<small style="color:{c.muted}">{cost}</small></td>'
                f'<td align="right" style="color:{color}"><b>{format_bytes(step.estimate.device_bytes, unit, 1)}</b>'
                "</td></tr>"
            )
        self.table.setText(f'<table width="100%" cellspacing="3">{"".join(rows)}</table>' if rows else "")
        self.table.setVisible(bool(rows))
        seq = self.tr("{n} tokens").format(n=f"{max_seq:,}") if max_seq else self.tr("none")
        batch = str(max_batch) if max_batch else self.tr("none")
        text = self.tr("As things stand — longest sequence that fits: {seq} · largest batch: {batch}")
        self.limits.setText(text.format(seq=seq, batch=batch))
