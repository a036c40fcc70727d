"""Beside each step of the walk-through: the same tensor's real size in the scenario's model.

Per head, per layer and over all layers, at a sequence length set by a log slider (bound to the shared
scenario through ``gui.state.binding``, so the memory page sees the same length), a log-log plot of bytes against
length, and what FlashAttention keeps instead of the s x s matrix. Every number is the engine's
(``engine.attention_sizes``); the panel formats and places them.

Signals: none (it writes the sequence length to the scenario, which emits ``changed``).
"""

from __future__ import annotations

import re

import numpy as np
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QFormLayout, QFrame, QLabel, QSlider, QSpinBox, QVBoxLayout, QWidget

from engine.attention import ATTENTION_DTYPE, AttentionStep
from engine.attention_sizes import StepKey, bytes_curve, flash_kept, flash_kept_curve, tensor_size
from engine.units import format_bytes
from gui.state import ranges
from gui.state.binding import Binder
from gui.state.scenario import Scenario
from gui.state.slider_scale import ScaleKind, SliderScale
from gui.text.tr import QT_TRANSLATE_NOOP, translate
from gui.widgets.bytes_curve_plot import BytesCurvePlot, Curve

DTYPE = ATTENTION_DTYPE  # the engine's: the activations' dtype under bf16 mixed precision
_LENGTHS = np.unique(np.geomspace(*ranges.ATTENTION_SEQ_LEN, num=80).round())  # whole tokens


# the engine's shape letters that are words: translated (b, s, d_v, kv_heads are symbols and stay)
_SHAPE_WORDS = {"hidden": QT_TRANSLATE_NOOP("AttentionSizePanel", "hidden"),
                "heads": QT_TRANSLATE_NOOP("AttentionSizePanel", "heads")}


def shape_text(shape: str) -> str:
    """An engine shape ("b x s x hidden") as the panel shows it: × signs, its words translated."""
    text = re.sub(r"\b(hidden|heads)\b", lambda m: translate("AttentionSizePanel", _SHAPE_WORDS[m.group(1)]), shape)
    return text.replace(" x ", " × ")


class AttentionSizePanel(QFrame):
    """The real-size panel; ``show_step`` says which tensor to size."""

    def __init__(self, scenario: Scenario, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._scenario = scenario
        self.setFrameShape(QFrame.Shape.StyledPanel)
        self.heading = QLabel(self)
        self.heading.setWordWrap(True)
        self.slider = QSlider(Qt.Orientation.Horizontal, self)
        self.slider.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        self.spin = QSpinBox(self)
        self.spin.setRange(*ranges.ATTENTION_SEQ_LEN)
        self.spin.setGroupSeparatorShown(True)
        self.spin.setSuffix(self.tr(" tokens"))
        self.binder = Binder(scenario, self)
        scale = SliderScale.for_field("seq_len", ScaleKind.LOG, ranges.ATTENTION_SEQ_LEN)
        self.binder.slider(self.slider, "seq_len", scale)
        self.binder.spin(self.spin, "seq_len")
        self.tensor, self.per_head, self.per_layer, self.all_layers = (QLabel(self) for _ in range(4))
        self.plot = BytesCurvePlot(self)
        self.flash = QLabel(self)
        self.flash.setWordWrap(True)
        self.flash.setObjectName("flashContrast")
        self._layout()

    def _layout(self) -> None:
        form = QFormLayout()
        form.addRow(self.tr("Tensor"), self.tensor)
        form.addRow(self.tr("Per head"), self.per_head)
        form.addRow(self.tr("Per layer"), self.per_layer)
        form.addRow(self.tr("All layers"), self.all_layers)
        caption = QLabel(self.tr("Bytes per layer against tokens (log–log)"), self)
        box = QVBoxLayout(self)
        for widget in (self.heading, self.spin, self.slider):
            box.addWidget(widget)
        box.addLayout(form)
        box.addWidget(caption)
        box.addWidget(self.plot, 1)
        box.addWidget(self.flash)
        for label in (self.per_head, self.per_layer, self.all_layers):
            font = label.font()
            font.setBold(True)
            label.setFont(font)

    def show_step(self, step: AttentionStep) -> None:
        """Show ``step``'s real sizes (computed by the engine for the scenario's model and length)."""
        s, model, unit = self._scenario.setup, self._scenario.model, self._scenario.unit
        self.heading.setText(
            self.tr("<b>{model}</b> at {n} tokens, batch {b}, {dtype}").format(
                model=model.label, n=f"{s.seq_len:,}", b=s.batch, dtype=DTYPE.value
            )
        )
        size = step.sizes
        self.tensor.setText(shape_text(size.shape))
        self.per_head.setText(
            self.tr("shared by all heads") if size.per_head_bytes is None else format_bytes(size.per_head_bytes, unit)
        )
        self.per_layer.setText(format_bytes(size.per_layer_bytes, unit))
        self.all_layers.setText(
            self.tr("{bytes} over {n} layers").format(
                bytes=format_bytes(size.all_layers_bytes, unit), n=model.num_layers
            )
        )
        self._show_flash(step)
        self._show_curves(step)

    def _show_flash(self, step: AttentionStep) -> None:
        s, model, unit = self._scenario.setup, self._scenario.model, self._scenario.unit
        kept = flash_kept(model=model, seq_len=s.seq_len, dtype=DTYPE, batch=s.batch)
        scores = tensor_size(StepKey.SCORES, model, s.seq_len, DTYPE, s.batch).per_layer_bytes
        self.flash.setText(
            self.tr(
                "<b>FlashAttention</b> computes the same output in tiles and never writes the s × s matrix "
                "({scores} per layer) to memory. It keeps the output and one fp32 statistic per row per head: "
                "<b>{kept}</b> per layer."
            ).format(scores=format_bytes(scores, unit), kept=format_bytes(kept.per_layer_bytes, unit))
        )

    def _show_curves(self, step: AttentionStep) -> None:
        s, model, gpu = self._scenario.setup, self._scenario.model, self._scenario.gpu
        curves = [
            Curve(self.tr("scores, P (s × s)"), bytes_curve(StepKey.SCORES, model, _LENGTHS, DTYPE, s.batch), "scores"),
            Curve(self.tr("FlashAttention keeps"), flash_kept_curve(model, _LENGTHS, DTYPE, s.batch), "flash"),
        ]
        self.plot.set_curves(_LENGTHS, curves, (gpu.memory_bytes, gpu.name))
        self.plot.set_marker(s.seq_len, step.sizes.per_layer_bytes)
