"""The Levers page: three levers, each moving its own term, for the scenario as it stands.

Each card switches its lever between positions (``engine.levers``) without touching the shared scenario; its apply
button writes the position into the scenario when the user asks. Under the cards, the rule: find the biggest term
first, then pick the lever that moves it (``engine.levers.advice``).
"""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtGui import QResizeEvent
from PySide6.QtWidgets import QFrame, QGridLayout, QLabel, QSpinBox, QVBoxLayout, QWidget

from engine.lever_facts import communication, lora_share
from engine.levers import SEED_KINDS, Lever, LeverKind, advice, levers, zero3_gpus
from engine.specs import UI_GPUS, Method
from engine.training import estimate
from engine.units import format_bytes
from gui.breakdown_table import Breakdown, training_title
from gui.pages import page_title
from gui.pages.lever_texts import card_texts, lora_note, rule_text, zero3_note
from gui.pages.when_shown import WhenShown
from gui.scenario import Scenario
from gui.widgets.lever_card import LeverCard
from gui.widgets.page_layout import fill_with_scroll, page_heading
from gui.widgets.scenario_summary import ScenarioSummary

#: below this page width the cards go two a row
THREE_COLUMNS_WIDTH = 1000


class LeversPage(QWidget):
    """Three lever cards and the rule under them.

    Signals: none of its own (see ``LeverCard``).
    """

    page_id = "levers"

    def __init__(self, scenario: Scenario, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("page-levers")
        self._scenario = scenario
        self._levers: dict[LeverKind, Lever] = {}
        self._selected: dict[LeverKind, int] = {}
        self._zero3_n: int | None = None
        content = QWidget(self)
        layout = QVBoxLayout(content)
        layout.setContentsMargins(24, 16, 24, 16)
        heading = page_heading(self.title(), content)
        intro = QLabel(self.tr("Every memory-saving trick moves only one term of the formula. Find the biggest "
                               "term first, then pick the right lever."), content)
        intro.setWordWrap(True)
        for w in (heading, intro, ScenarioSummary(scenario, content)):
            layout.addWidget(w)
        self._cards_grid = QGridLayout()
        self.cards = {kind: LeverCard(*card_texts(kind), parent=content) for kind in SEED_KINDS}
        for kind, card in self.cards.items():
            card.step_selected.connect(lambda i, k=kind: self._select(k, i))
            card.apply_requested.connect(lambda i, k=kind: self._apply(k, i))
        self._columns = 0
        self._arrange(3)
        layout.addLayout(self._cards_grid, 1)
        self.gpus_box = QSpinBox(content)
        self.gpus_box.setRange(2, UI_GPUS[1])
        self.gpus_box.setPrefix(self.tr("N = "))
        self.gpus_box.setSuffix(self.tr(" GPUs"))
        self.gpus_box.valueChanged.connect(self._set_zero3_n)
        self.cards[LeverKind.ZERO3].extra.addWidget(self.gpus_box)
        self.rule = QLabel(content)
        self.rule.setTextFormat(Qt.TextFormat.RichText)
        self.rule.setWordWrap(True)
        self.rule.setFrameShape(QFrame.Shape.StyledPanel)
        self.rule.setMargin(8)
        layout.addWidget(self.rule)
        fill_with_scroll(self, content)
        self._content = content
        self._when_shown = WhenShown(self, self._on_scenario_changed)
        scenario.changed.connect(self._when_shown.request)
        self._when_shown.request()

    def export_chart(self) -> QWidget:
        """The three cards and the rule (the whole page's content)."""
        return self._content

    def export_breakdown(self) -> Breakdown:
        """The scenario's terms per GPU (the cards' "before" bars)."""
        sc = self._scenario
        terms = estimate(sc.model, sc.setup, sc.gpu).device_terms
        return Breakdown.of(training_title(sc.model, sc.setup, sc.gpu), terms)

    def view_state(self) -> dict[str, Any]:
        return {"selected": {k.value: i for k, i in self._selected.items()}, "zero3_n": self._zero3_n}

    def restore_view_state(self, state: dict[str, Any]) -> None:
        if state.get("zero3_n") is not None:
            self._set_zero3_n(int(state["zero3_n"]))
        for kind, index in state.get("selected", {}).items():
            self._select(LeverKind(kind), int(index))

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        self._arrange(3 if event.size().width() >= THREE_COLUMNS_WIDTH else 2)

    def columns(self) -> int:
        """How many cards a row (3, or 2 on a narrow window)."""
        return self._columns

    def _arrange(self, columns: int) -> None:
        """Cards side by side, or two a row on a narrow window (the third below the first)."""
        if columns == self._columns:
            return
        self._columns = columns
        for i, card in enumerate(self.cards.values()):
            self._cards_grid.removeWidget(card)
            self._cards_grid.addWidget(card, i // columns, i % columns)
        for col in range(3):
            self._cards_grid.setColumnStretch(col, 1 if col < columns else 0)

    def title(self) -> str:
        return page_title(self.page_id)

    def lever(self, kind: LeverKind) -> Lever:
        """The lever as the page shows it now (for tests and the rule line)."""
        return self._levers[kind]

    def _on_scenario_changed(self) -> None:
        """A new scenario: back to the levers' defaults (run now, or when next shown: ``WhenShown``)."""
        self._zero3_n = None
        self._selected.clear()
        self._recompute()

    def _recompute(self) -> None:
        sc = self._scenario
        m, s, gpu = sc.model, sc.setup, sc.gpu
        computed = levers(m, s, gpu, self._zero3_n)
        self._levers = {lv.kind: lv for lv in computed}
        n = zero3_gpus(s, self._zero3_n)
        self.gpus_box.blockSignals(True)
        self.gpus_box.setValue(n)
        self.gpus_box.blockSignals(False)
        for kind, lv in self._levers.items():
            self._selected.setdefault(kind, lv.current if lv.current else 1)
        notes = {LeverKind.LORA: lora_note(lora_share(m, s)),
                 LeverKind.ZERO3: zero3_note(communication(m, s), sc.unit, s.method is not Method.FULL)}
        self.cards[LeverKind.ZERO3].set_step_labels(card_texts(LeverKind.ZERO3, n, s)[3])
        for kind, card in self.cards.items():
            card.show_lever(self._levers[kind], self._selected[kind], sc.unit, notes.get(kind, ""))
        tip = advice(m, s, gpu, self._zero3_n, computed)
        title = step = ""
        if tip.lever is not None:
            keys = [st.key for st in self._levers[tip.lever].steps]
            title, step = card_texts(tip.lever)[0], self.cards[tip.lever].step_label(keys.index(tip.step))
        self.rule.setText(rule_text(tip, format_bytes(tip.term.bytes, sc.unit), format_bytes(tip.after, sc.unit),
                                    title, step))

    def _select(self, kind: LeverKind, index: int) -> None:
        self._selected[kind] = index
        sc = self._scenario
        note = self.cards[kind].note.text()
        self.cards[kind].show_lever(self._levers[kind], index, sc.unit, note)

    def _set_zero3_n(self, n: int) -> None:
        self._zero3_n = n
        self._recompute()

    def _apply(self, kind: LeverKind, index: int) -> None:
        """The user asked: put this position of the lever into the shared scenario."""
        self._scenario.update(setup=self._levers[kind].steps[index].setup)
