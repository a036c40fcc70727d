"""The Levers page: four levers, each moving its own terms, for the scenario as it stands.

The seed's three cards (LoRA / QLoRA, FlashAttention / checkpointing, ZeRO-3 / FSDP) and a fourth for long context
(chunked loss, fused linear cross-entropy, activation offload: the logits and activations that LoRA does not touch).
The fourth *leads* (comes first, highlighted) when logits or activations are the biggest term, the page's own rule
(``engine.levers.long_context_leads``); otherwise it comes last. Four cards sit side by side when they fit at
their minimum width (which grows with the type size and the language), else two a row (one on a window too narrow
for two).

Each card switches its lever between positions (``engine.levers``) without touching the shared scenario; its apply
button writes the position into the scenario when the user asks. Under the cards, the rule: find the biggest term
first, then pick the lever that moves it (``engine.levers.advice`` over all four levers).

The page's own choices (the position picked on each card, the N of the ZeRO-3 card) are a ``PageState`` over
``LeverChoices``; a new scenario puts them back to their defaults. The page reads every scenario field and its
``zero3_n`` (``gui.state.recompute``: batched, only while shown); picking a position only redraws the cards.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict
from PySide6.QtCore import Qt
from PySide6.QtGui import QResizeEvent
from PySide6.QtWidgets import QFrame, QGridLayout, QLabel, QSpinBox, QStyle, QVBoxLayout, QWidget

from engine.lever_facts import communication, lora_share
from engine.levers import (
    POSITIONS,
    SEED_KINDS,
    Lever,
    LeverKind,
    advice,
    all_levers,
    biggest_term,
    long_context_leads,
    zero3_gpus,
)
from engine.specs import GpuCount, Method
from engine.training import estimate
from engine.training.advisor import chunked_recompute
from engine.training.estimate import Estimate
from engine.units import format_bytes
from gui.files.breakdown_table import Breakdown, training_title
from gui.pages import page_title
from gui.pages.lever_texts import (
    card_texts,
    lead_text,
    long_context_note,
    long_context_tips,
    lora_note,
    rule_text,
    zero3_note,
)
from gui.state import ranges
from gui.state.binding import Binder
from gui.state.page_state import Fields, PageState, touches
from gui.state.recompute import Recompute
from gui.state.scenario import EVERYTHING, Scenario
from gui.text.words import term_name
from gui.widgets.lever_card import LeverCard
from gui.widgets.page_layout import fill_with_scroll, page_heading
from gui.widgets.scenario_summary import ScenarioSummary

# every card, in the seed's order; the long-context card comes first instead of last when it leads
KINDS = (*SEED_KINDS, LeverKind.LONG_CONTEXT)
# the page's side margins and the grid's spacing between cards (pixels at 100%)
MARGIN, SPACING = 24, 12


class LeverChoices(BaseModel):
    """What the user picked on the page (kept across a rebuild of the window; reset by a new scenario)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    # the position shown on each card; a card not listed shows the scenario's own position (else the first on)
    selected: dict[LeverKind, int] = {}
    # N of the ZeRO-3 card; ``None``: the scenario's GPU count when above one, else the engine's default
    zero3_n: GpuCount | None = None


class LeversPage(QWidget):
    """Four lever cards and the rule under them.

    Signals: none of its own (see ``LeverCard``).
    """

    page_id = "levers"

    def __init__(self, scenario: Scenario, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("page-levers")
        self._scenario = scenario
        self.choices = PageState(LeverChoices(), parent=self)
        self.recompute = Recompute(self, now=self._recompute).watch(scenario, EVERYTHING)
        self.recompute.watch(self.choices, {"zero3_n"})
        scenario.changed.connect(self._reset_choices)
        self.choices.changed.connect(self._choices_changed)
        self._levers: dict[LeverKind, Lever] = {}
        self._notes: dict[LeverKind, str] = {}
        content = QWidget(self)
        layout = QVBoxLayout(content)
        layout.setContentsMargins(MARGIN, 16, MARGIN, 16)
        heading = page_heading(self.title(), content)
        intro = QLabel(self.tr("Every memory-saving trick moves only one term of the formula. Find the biggest "
                               "term first, then pick the right lever."), content)
        intro.setWordWrap(True)
        for w in (heading, intro, ScenarioSummary(scenario, content)):
            layout.addWidget(w)
        self._cards_grid = QGridLayout()
        self._cards_grid.setSpacing(SPACING)
        self.cards = {kind: LeverCard(*card_texts(kind), keys=POSITIONS[kind], parent=content) for kind in KINDS}
        self.cards[LeverKind.LONG_CONTEXT].set_step_tips(long_context_tips())
        for kind, card in self.cards.items():
            card.step_selected.connect(lambda i, k=kind: self._select(k, i))
            card.apply_requested.connect(lambda i, k=kind: self._apply(k, i))
        self._columns = 0
        self._order: tuple[LeverKind, ...] = KINDS
        self._arrange(2, KINDS)
        layout.addLayout(self._cards_grid, 1)
        self.gpus_box = QSpinBox(content)
        self.gpus_box.setRange(*ranges.ZERO3_GPUS)
        self.gpus_box.setPrefix(self.tr("N = "))
        self.gpus_box.setSuffix(self.tr(" GPUs"))
        self.binder = Binder(self.choices, self)
        self.binder.custom(self.gpus_box, "zero3_n", read=self.gpus_box.value, show=self._show_zero3_n,
                           changed=self.gpus_box.valueChanged, coalesce=True)
        self.cards[LeverKind.ZERO3].extra.addWidget(self.gpus_box)
        self.rule = QLabel(content)
        self.rule.setTextFormat(Qt.TextFormat.RichText)
        self.rule.setWordWrap(True)
        self.rule.setFrameShape(QFrame.Shape.StyledPanel)
        self.rule.setMargin(8)
        layout.addWidget(self.rule)
        fill_with_scroll(self, content)
        self._content = content
        self.recompute.flush()

    def export_chart(self) -> QWidget:
        """The four cards and the rule (the whole page's content)."""
        return self._content

    def export_breakdown(self) -> Breakdown:
        """The scenario's terms per GPU (the cards' "before" bars)."""
        sc = self._scenario
        terms = estimate(sc.model, sc.setup, sc.gpu).device_terms
        return Breakdown.of(training_title(sc.model, sc.setup, sc.gpu), terms)

    def view_state(self) -> dict[str, Any]:
        return self.choices.value.model_dump(mode="json")

    def restore_view_state(self, state: dict[str, Any]) -> None:
        self.choices.replace(LeverChoices.model_validate(state))

    def flush(self) -> None:
        """Write a pending N and run any pending recompute now (tests, export)."""
        self.binder.flush()
        self.recompute.flush()

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        self._arrange(self._fitting_columns(event.size().width()), self._order)

    def columns(self) -> int:
        """How many cards a row (4 side by side, or two a row when four do not fit, one when two do not)."""
        return self._columns

    def order(self) -> tuple[LeverKind, ...]:
        """The cards in the order shown (the long-context card first when it leads)."""
        return self._order

    def position(self, kind: LeverKind) -> tuple[int, int]:
        """A card's (row, column) in the grid."""
        return divmod(self._order.index(kind), self._columns)

    def _fitting_columns(self, width: int) -> int:
        """4 when four cards fit side by side at their minimum width (which grows with the type size and the
        language), else 2, else 1 (a narrow window at a presentation's type size)."""
        card = max(c.minimumSizeHint().width() for c in self.cards.values())
        room = width - 2 * MARGIN - self.style().pixelMetric(QStyle.PixelMetric.PM_ScrollBarExtent)
        return next((n for n in (4, 2) if room >= n * card + (n - 1) * SPACING), 1)

    def _arrange(self, columns: int, order: tuple[LeverKind, ...]) -> None:
        """Cards in ``order``, ``columns`` a row (two a row: a 2 x 2 grid)."""
        if (columns, order) == (self._columns, self._order):
            return
        self._columns, self._order = columns, order
        for card in self.cards.values():
            self._cards_grid.removeWidget(card)
        for i, kind in enumerate(order):
            self._cards_grid.addWidget(self.cards[kind], i // columns, i % columns)
        for col in range(len(KINDS)):
            self._cards_grid.setColumnStretch(col, 1 if col < columns else 0)

    def title(self) -> str:
        return page_title(self.page_id)

    def lever(self, kind: LeverKind) -> Lever:
        """The lever as the page shows it now (for tests and the rule line)."""
        return self._levers[kind]

    def selected(self, kind: LeverKind) -> int:
        """The position a card shows: the user's pick where the setup can take it, else the scenario's own
        position, else the first on (the last the setup can take when it has fewer)."""
        lever, keys = self._levers[kind], POSITIONS[kind]
        pick = self.choices.value.selected.get(kind)
        if pick is not None and lever.index(keys[pick]) is not None:
            return pick
        return keys.index(lever.steps[min(lever.current or 1, len(lever.steps) - 1)].key)

    def _reset_choices(self) -> None:
        """A new scenario: back to the levers' defaults."""
        self.choices.replace(LeverChoices())

    def _choices_changed(self, fields: Fields) -> None:
        """A pick redraws the cards now, unless a recompute is due anyway (it redraws them)."""
        if touches(fields, {"selected"}) and not self.recompute.pending():
            self._show_cards()

    def _recompute(self) -> None:
        sc, choices = self._scenario, self.choices.value
        m, s, gpu = sc.model, sc.setup, sc.gpu
        computed = all_levers(m, s, gpu, choices.zero3_n)
        self._levers = {lv.kind: lv for lv in computed}
        n = zero3_gpus(s, choices.zero3_n)
        self.binder.refresh()  # N follows the scenario while the user has not picked one
        long_context = self._levers[LeverKind.LONG_CONTEXT]
        offload = long_context.index(POSITIONS[LeverKind.LONG_CONTEXT][-1])
        self._notes = {LeverKind.LORA: lora_note(lora_share(m, s)),
                       LeverKind.ZERO3: zero3_note(communication(m, s), sc.unit, s.method is not Method.FULL),
                       LeverKind.LONG_CONTEXT: long_context_note(
                           chunked_recompute(m), None if offload is None else long_context.steps[offload].estimate,
                           sc.unit)}
        self.cards[LeverKind.ZERO3].set_step_labels(card_texts(LeverKind.ZERO3, n, s)[3])
        self._show_cards()
        self._show_lead(estimate(m, s, gpu))
        tip = advice(m, s, gpu, choices.zero3_n, computed)
        title = step = ""
        if tip.lever is not None:
            position = POSITIONS[tip.lever].index(tip.step)
            title, step = card_texts(tip.lever)[0], self.cards[tip.lever].step_label(position)
        self.rule.setText(rule_text(tip, format_bytes(tip.term.bytes, sc.unit), format_bytes(tip.after, sc.unit),
                                    title, step))

    def _show_cards(self) -> None:
        for kind, card in self.cards.items():
            card.show_lever(self._levers[kind], self.selected(kind), self._scenario.unit, self._notes.get(kind, ""))

    def _show_lead(self, e: Estimate) -> None:
        """The long-context card leads (first, highlighted) when logits or activations are the biggest term."""
        leads = long_context_leads(e)
        why = lead_text(term_name(biggest_term(e).name)) if leads else ""
        self.cards[LeverKind.LONG_CONTEXT].set_leading(why)
        order = (LeverKind.LONG_CONTEXT, *SEED_KINDS) if leads else KINDS
        self._arrange(self._columns, order)

    def _show_zero3_n(self, n: int | None) -> None:
        self.gpus_box.setValue(zero3_gpus(self._scenario.setup, n))

    def _select(self, kind: LeverKind, index: int) -> None:
        self.choices.update(selected={**self.choices.value.selected, kind: index})

    def _apply(self, kind: LeverKind, index: int) -> None:
        """The user asked: put this position of the lever into the shared scenario."""
        lever = self._levers[kind]
        at = lever.index(POSITIONS[kind][index])
        if at is not None:  # (its button is disabled otherwise)
            self._scenario.update(setup=lever.steps[at].setup)
