"""Small pieces of the serving page: section headings with a line of text, and the terms' display names."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLabel, QVBoxLayout, QWidget

from gui.tr import QT_TRANSLATE_NOOP, translate

#: Display names of the engine's serving terms (``engine.serving.capacity``), translated in "ServingPage".
TERM_NAMES = {
    "weights": QT_TRANSLATE_NOOP("ServingPage", "weights"),
    "activations": QT_TRANSLATE_NOOP("ServingPage", "activation workspace"),
    "cuda_context": QT_TRANSLATE_NOOP("ServingPage", "CUDA context"),
    "kv_cache": QT_TRANSLATE_NOOP("ServingPage", "KV cache"),
}


def term_labels(_widget: QWidget) -> dict[str, str]:
    """Term name -> translated display name."""
    return {name: translate("ServingPage", text) for name, text in TERM_NAMES.items()}


def section(title: str, text: str, parent: QWidget, heading: bool = False) -> QWidget:
    """A bold title (larger for the page heading) and an optional wrapped line of explanation."""
    box = QWidget(parent)
    layout = QVBoxLayout(box)
    layout.setContentsMargins(0, 8 if not heading else 0, 0, 0)
    layout.setSpacing(4)
    title_label = QLabel(title, box)
    font = title_label.font()
    font.setBold(True)
    font.setPointSizeF(font.pointSizeF() * (1.8 if heading else 1.2))
    title_label.setFont(font)
    layout.addWidget(title_label)
    if text:
        body = QLabel(text, box)
        body.setWordWrap(True)
        body.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        layout.addWidget(body)
    return box
