"""Cards, one per model, with its KV cache per sequence and the formula filled in with its numbers.

The seed's three (Llama 2 7B, 13B, 70B at 4,096 tokens in fp16: 2.15, 3.36 and 1.34 GB) show why the 70B
model's cache is the smallest: grouped-query attention keeps 8 KV heads for 64 query heads.
"""

from __future__ import annotations

from collections.abc import Sequence

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QFrame, QHBoxLayout, QLabel, QSizePolicy, QVBoxLayout, QWidget

from engine.serving import AttentionKind, KvCache
from engine.specs import ModelSpec
from engine.units import Unit, format_bytes


class KvCard(QFrame):
    """One model's KV cache: name, attention kind, bytes per sequence, the formula's numbers.

    Signals: none.
    """

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setFrameShape(QFrame.Shape.StyledPanel)
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Maximum)
        self.name = QLabel(self)
        self.kind = QLabel(self, wordWrap=True)  # three cards share a row, at any type size
        self.value = QLabel(self)
        self.value.setObjectName("kvValue")
        font = self.value.font()
        font.setPointSizeF(font.pointSizeF() * 1.6)
        font.setBold(True)
        self.value.setFont(font)
        self.detail = QLabel(self)
        self.detail.setWordWrap(True)
        layout = QVBoxLayout(self)
        for label in (self.name, self.kind, self.value, self.detail):
            label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
            layout.addWidget(label)

    def show_kv(self, model: ModelSpec, kv: KvCache, unit: Unit) -> None:
        self.name.setText(f"<b>{model.label}</b>")
        self.kind.setText(self._kind_text(model, kv))
        self.value.setText(format_bytes(kv.bytes_per_sequence, unit))
        self.detail.setText(kv.detail)
        self.setToolTip(f"{kv.formula}\n= {kv.detail}\n{kv.source}")

    def _kind_text(self, model: ModelSpec, kv: KvCache) -> str:
        if kv.attention is AttentionKind.MLA and model.mla is not None:
            return self.tr("MLA, one latent of {r} + {rope} per layer").format(
                r=model.mla.kv_lora_rank, rope=model.mla.qk_rope_head_dim)
        text = self.tr("{kind}, {kv} KV heads for {q} query heads").format(
            kind=kv.attention.value, kv=model.num_kv_heads, q=model.num_heads)
        if kv.sliding_layers:
            text += self.tr("; {n} layers slide over {w:,} tokens").format(n=kv.sliding_layers, w=kv.window)
        return text


class KvCards(QWidget):
    """A row of ``KvCard``s, rebuilt when the models change.

    Signals: none.
    """

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._row = QHBoxLayout(self)
        self._row.setContentsMargins(0, 0, 0, 0)
        self.cards: list[KvCard] = []

    def show_models(self, rows: Sequence[tuple[ModelSpec, KvCache]], unit: Unit) -> None:
        while len(self.cards) < len(rows):
            card = KvCard(self)
            self._row.addWidget(card)
            self.cards.append(card)
        for card, (model, kv) in zip(self.cards, rows, strict=False):
            card.show_kv(model, kv, unit)
        for i, card in enumerate(self.cards):
            card.setVisible(i < len(rows))
