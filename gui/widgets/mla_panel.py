"""MLA against GQA, per token: DeepSeek-V2's latent cache beside DeepSeek 67B's heads, like for like.

Two bars in proportion, then the two reductions (same dtype, per token and per layer) beside the published
93.3% and the engine's note on what that figure also counts (KV quantization, a different layer count).
"""

from __future__ import annotations

from PySide6.QtCore import QRectF, QSize, Qt
from PySide6.QtGui import QColor, QPainter, QPaintEvent
from PySide6.QtWidgets import QLabel, QSizePolicy, QVBoxLayout, QWidget

from engine.serving import MlaComparison
from engine.serving.mla import DEPLOYED_KV_BITS
from gui.look.follows_palette import FollowsPalette
from gui.look.palette import colors_for

MAX_WIDTH = 520


class _Bar(FollowsPalette, QWidget):
    """One horizontal bar, ``share`` of the widest (capped at ``MAX_WIDTH`` pixels), in a term's colour."""

    def __init__(self, term: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.term, self.share = term, 1.0
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Fixed)
        self.setFixedHeight(16)
        self.follow_palette()

    def sizeHint(self) -> QSize:
        return QSize(MAX_WIDTH, 16)

    def paintEvent(self, event: QPaintEvent) -> None:
        painter = QPainter(self)
        width = min(self.width(), MAX_WIDTH) * self.share
        painter.fillRect(QRectF(0, 0, width, self.height()), QColor(colors_for(self).term(self.term)))
        painter.end()

    def palette_changed(self) -> None:
        self.update()


class MlaPanel(QWidget):
    """Shows an ``MlaComparison``.

    Signals: none.
    """

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.gqa = QLabel(self)
        self.mla = QLabel(self)
        self.gqa_bar, self.mla_bar = _Bar("kv_cache", self), _Bar("weights", self)
        self.ratio = QLabel(self)
        self.ratio.setObjectName("mlaRatio")
        self.published = QLabel(self)
        self.note = QLabel(self)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        for w in (self.gqa, self.gqa_bar, self.mla, self.mla_bar, self.ratio, self.published, self.note):
            layout.addWidget(w)
            if isinstance(w, QLabel):
                w.setWordWrap(True)
                w.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)

    def show_comparison(self, c: MlaComparison) -> None:
        self.gqa.setText(self.tr("{model} (GQA, {n} layers): {b:,} bytes per token").format(
            model=c.gqa_model, n=c.gqa_layers, b=c.gqa_bytes_per_token))
        self.mla.setText(self.tr("{model} (MLA, {n} layers): {b:,} bytes per token").format(
            model=c.mla_model, n=c.mla_layers, b=c.mla_bytes_per_token))
        self.mla_bar.share = c.mla_bytes_per_token / c.gqa_bytes_per_token
        self.mla_bar.update()
        self.ratio.setText(self.tr("<b>Like for like ({dtype}): {lfl:.1%} smaller per token, "
                                   "{layer:.1%} per layer.</b>").format(
            dtype=c.dtype.value, lfl=c.like_for_like, layer=c.per_layer))
        self.published.setText(self.tr(
            "Published: {p:.1%} smaller; rebuilt from the formulas with V2's 6-bit cache: {r:.1%}.").format(
            p=c.published, r=c.published_reconstructed))
        self.note.setText(self.tr(
            "The published {p:.1%} compares {mla}'s deployed cache (about {bits} bits per element, {mla_layers} "
            "layers) with {gqa}'s (16-bit, {gqa_layers} layers). In the same dtype ({dtype}), {mla} caches {lfl:.1%} "
            "less per token ({mla_layers} vs {gqa_layers} layers) and {layer:.1%} less per layer.").format(
            p=c.published, mla=c.mla_model, bits=DEPLOYED_KV_BITS, mla_layers=c.mla_layers, gqa=c.gqa_model,
            gqa_layers=c.gqa_layers, dtype=c.dtype.value, lfl=c.like_for_like, layer=c.per_layer))  # c.note, in words
        self.setToolTip(c.source)
