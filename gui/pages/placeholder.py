"""Stand-ins for pages whose issue has not landed yet: each says so plainly and what the page will show."""

from __future__ import annotations

from PySide6.QtCore import QCoreApplication, Qt
from PySide6.QtGui import QPalette
from PySide6.QtWidgets import QLabel, QVBoxLayout, QWidget

from gui.pages import page_title
from gui.scenario import Scenario
from gui.tr import QT_TRANSLATE_NOOP, translate


def _tr(text: str) -> str:
    return translate("PlaceholderPage", text)


class PlaceholderPage(QWidget):
    """A page that is not built yet: its title, the issue that brings it, a short description."""

    page_id = ""
    issue = 0
    description = ""  # source text, translated in context "PlaceholderPage"

    def __init__(self, scenario: Scenario, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName(f"page-{self.page_id}")
        self._scenario = scenario
        heading = QLabel(self.title(), self)
        heading.setObjectName("pageHeading")
        font = heading.font()
        font.setPointSizeF(font.pointSizeF() * 1.8)
        font.setBold(True)
        heading.setFont(font)
        text = QCoreApplication.translate("PlaceholderPage", "This page arrives with issue {n}.")
        notice = QLabel(text.format(n=self.issue), self)
        notice.setObjectName("pageNotice")
        notice.setForegroundRole(QPalette.ColorRole.Link)
        bold = notice.font()
        bold.setBold(True)
        notice.setFont(bold)
        body = QLabel(_tr(self.description), self)
        body.setWordWrap(True)
        body.setMaximumWidth(640)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(48, 40, 48, 40)
        layout.setSpacing(14)
        for label in (heading, notice, body):
            label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
            layout.addWidget(label)
        layout.addStretch(1)

    def title(self) -> str:
        return page_title(self.page_id)


class MemoryPlaceholder(PlaceholderPage):
    page_id, issue = "memory", 4
    description = QT_TRANSLATE_NOOP(
        "PlaceholderPage",
        "Does this model fit on this GPU for this kind of fine-tuning? A stacked bar of the allocated peak, "
        "term by term (weights, gradients, optimizer states, activations, logits, temporaries), against the "
        "device total, with each term's formula and source one hover away.",
    )


class AttentionPlaceholder(PlaceholderPage):
    page_id, issue = "attention", 5
    description = QT_TRANSLATE_NOOP(
        "PlaceholderPage",
        "Attention step by step: a toy walk-through of queries, keys, scores, softmax and values, then the "
        "real sizes for the chosen model, and why eager attention stores the sequence-by-sequence scores "
        "while flash attention does not.",
    )


class LeversPlaceholder(PlaceholderPage):
    page_id, issue = "levers", 6
    description = QT_TRANSLATE_NOOP(
        "PlaceholderPage",
        "What would make it fit: the effect of each lever (LoRA and QLoRA, gradient checkpointing, 8-bit "
        "optimizers, ZeRO sharding and offload, shorter sequences, smaller batches) on the allocated peak.",
    )


class AlignmentPlaceholder(PlaceholderPage):
    page_id, issue = "alignment", 6
    description = QT_TRANSLATE_NOOP(
        "PlaceholderPage",
        "SFT, DPO, PPO and GRPO side by side: which models each method keeps in memory (policy, reference, "
        "reward, critic) and what they cost.",
    )


class ServingPlaceholder(PlaceholderPage):
    page_id, issue = "serving", 7
    description = QT_TRANSLATE_NOOP(
        "PlaceholderPage",
        "Serving: the KV cache for multi-head, grouped-query, multi-query and latent attention, how many "
        "requests fit beside the weights, and how paged allocation uses the memory.",
    )
