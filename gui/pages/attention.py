"""Attention, one step at a time: one layer, one head, a short sentence, computed live in eight steps, and
beside each step the size of the same tensor in the scenario's real model.

The lesson (from the seed guide's section "注意力，一步一步算"): the s x s score matrix is what blows up
memory, and FlashAttention never writes it out. The engine computes every number (``engine.attention``);
the page schedules the animation (``StepPlayer``) and draws frames (``AttentionStage``). The keyboard drives
it like a presenter's clicker: Right builds the next step, Left goes back, Space plays or pauses, Home and
End jump to the first and last step. In presentation mode the clicker's keys go through the steps first
(``present_step``); a rebuild of the window (a language switch) keeps the sentence and the step (``view_state``).
"""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import Qt, SignalInstance
from PySide6.QtGui import QCloseEvent, QHideEvent, QKeyEvent, QResizeEvent, QShowEvent
from PySide6.QtWidgets import QApplication, QBoxLayout, QLabel, QVBoxLayout, QWidget

from engine.attention import DEFAULT_SENTENCE, MAX_TOKENS, AttentionStep, attention_steps
from engine.attention_sizes import StepKey
from engine.attention_text import CONTEXT as TEXT_CONTEXT
from gui.pages import page_title
from gui.state.recompute import Recompute
from gui.state.scenario import Scenario
from gui.text.tr import translate
from gui.widgets.attention_frames import build_ms, frame
from gui.widgets.attention_size_panel import DTYPE, AttentionSizePanel
from gui.widgets.attention_stage import AttentionStage
from gui.widgets.heat_legend import HeatLegend
from gui.widgets.page_layout import fill_with_scroll, page_heading
from gui.widgets.player_bar import PlayerBar
from gui.widgets.sentence_box import SentenceBox
from gui.widgets.step_caption import StepCaption
from gui.widgets.step_player import StepPlayer

if TYPE_CHECKING:
    from engine.lessons import Situation

_STEP_COUNT = 8
QUERY_KEY_STEPS = frozenset({StepKey.SCORES, StepKey.MASKED, StepKey.SOFTMAX})  # rows queries, columns keys
# widths in lines of text: the size panel's, and what the stage needs beside it (else the panel goes under it)
PANEL_LINES, STAGE_LINES = 20.0, 26.0
QWIDGETSIZE_MAX = (1 << 24) - 1
# what the real sizes beside the steps read from the scenario
READS = frozenset({"model", "setup.seq_len", "setup.batch", "unit"})


def _engine_text(text: str) -> str:
    """An engine text (a step's name or explanation), translated in its context (``engine.attention_text``)."""
    return translate(TEXT_CONTEXT, text)


class AttentionPage(QWidget):
    """The attention walk-through page.

    Signals: none (it reads the shared ``Scenario``'s ``READS`` and writes its sequence length through the size
    panel).
    """

    page_id = "attention"

    def __init__(self, scenario: Scenario, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("page-attention")
        self.setFocusPolicy(Qt.FocusPolicy.StrongFocus)
        self._scenario = scenario
        self._sentence = DEFAULT_SENTENCE
        self._text_index = -1  # the step whose name, formula and sizes are on screen
        self.steps: tuple[AttentionStep, ...] = ()  # computed by the first recompute, below
        self.player = StepPlayer(_STEP_COUNT, lambda i: build_ms(self.steps[i]), self)
        self.stage = AttentionStage(self)
        self.size_panel = AttentionSizePanel(scenario, self)
        self.bar = PlayerBar(self.player, self)
        self.sentence = SentenceBox(self._sentence, MAX_TOKENS, self)
        self.sentence.submitted.connect(self.apply_sentence)
        self.caption = StepCaption(self)
        self.legend = HeatLegend(self)
        self._build()
        self.player.frame.connect(self.show_frame)
        self.recompute = Recompute(self, now=self._on_scenario_changed).watch(scenario, READS)
        self.recompute.flush()
        self.show_frame(0, 1.0)

    def title(self) -> str:
        return page_title(self.page_id)

    # -- the window's optional page protocol (export, presentation, rebuild) ---------------------------------
    def export_chart(self) -> QWidget:
        return self.stage

    def present_step(self, forward: bool) -> bool:
        """A clicker press: the next (previous) step; ``False`` when already at the last (first) one."""
        if self.player.index == (self.player.count - 1 if forward else 0):
            return False
        self.player.next() if forward else self.player.previous()
        return True

    def view_state(self) -> dict[str, Any]:
        return {"sentence": self._sentence, "step": self.player.index}

    def restore_view_state(self, state: dict[str, Any]) -> None:
        if state.get("sentence", self._sentence) != self._sentence:
            self.sentence.line.setText(state["sentence"])
            self.apply_sentence(state["sentence"])
        self.player.go(int(state.get("step", 0)))

    # -- a lesson's situation holds the step on screen (``gui.pages.contract.HoldsLessonPart``) -----------------
    def lesson_part(self, situation: Situation) -> Situation:
        return replace(situation, attention_step=self.steps[self.player.index].key)

    def set_lesson_part(self, situation: Situation) -> None:
        self.player.go(next(i for i, s in enumerate(self.steps) if s.key == situation.attention_step))

    def lesson_part_changed(self) -> SignalInstance:
        return self.player.changed

    # -- building ---------------------------------------------------------------------------------------------
    def _build(self) -> None:
        heading = page_heading(self.tr("Attention, one step at a time"), self)
        intro = QLabel(
            self.tr(
                "One layer, one head, a short sentence, computed live. Beside each step, the same tensor in a "
                "real model: watch where the memory explodes."
            ),
            self,
        )
        intro.setWordWrap(True)
        content = QWidget(self)
        heading.setParent(content)
        intro.setParent(content)
        left = QVBoxLayout()
        for widget, stretch in ((self.sentence, 0), (self.caption, 0), (self.stage, 1), (self.legend, 0)):
            left.addWidget(widget, stretch)
        left.addWidget(self.bar)
        self._body = QBoxLayout(QBoxLayout.Direction.LeftToRight)
        self._body.addLayout(left, 1)
        self._body.addWidget(self.size_panel)
        page = QVBoxLayout(content)
        page.setContentsMargins(16, 12, 16, 12)
        page.addWidget(heading)
        page.addWidget(intro)
        page.addLayout(self._body, 1)
        self._scroll = fill_with_scroll(self, content)
        self._scroll.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self._scroll.setFocusPolicy(Qt.FocusPolicy.NoFocus)  # a click on the stage gives the keys to the page
        self._place_panel(beside=True)

    def _place_panel(self, beside: bool) -> None:
        """The size panel beside the stage, ``PANEL_LINES`` lines of text wide, or under it, as wide as the page
        (a large type on a small screen: the stage keeps the width)."""
        self._body.setDirection(QBoxLayout.Direction.LeftToRight if beside else QBoxLayout.Direction.TopToBottom)
        if beside:
            self.size_panel.setFixedWidth(self._lines(PANEL_LINES))
        else:
            self.size_panel.setMinimumWidth(0)
            self.size_panel.setMaximumWidth(QWIDGETSIZE_MAX)

    def _lines(self, n: float) -> int:
        return round(n * self.fontMetrics().height())

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        beside = event.size().width() >= self._lines(PANEL_LINES + STAGE_LINES)
        if beside != (self._body.direction() == QBoxLayout.Direction.LeftToRight):
            self._place_panel(beside)

    # -- behaviour --------------------------------------------------------------------------------------------
    def _compute(self, sentence: str) -> tuple[AttentionStep, ...]:
        s = self._scenario.setup
        return attention_steps(sentence, self._scenario.model, s.seq_len, DTYPE, s.batch)

    def show_frame(self, index: int, progress: float) -> None:
        """Draw step ``index`` built to ``progress`` (the player's ``frame`` signal lands here)."""
        self.stage.show_frame(frame(self.steps, index, progress))
        if index != self._text_index:
            self._show_text(index)

    def _show_text(self, index: int) -> None:
        step = self.steps[index]
        self._text_index = index
        self.caption.show_step(index + 1, _engine_text(step.name), step.formula, _engine_text(step.explanation))
        self.size_panel.show_step(step)
        self.legend.show_convention(step.key in QUERY_KEY_STEPS)

    def apply_sentence(self, text: str) -> None:
        """Recompute the walk-through for ``text``; when the engine refuses it, say why and keep the old one."""
        try:
            steps = self._compute(text)
        except ValueError as err:
            self.sentence.show_error(self.tr("Not changed: {reason}.").format(reason=err))
            return
        self.sentence.show_error("")
        self.setFocus()  # back to the clicker keys
        self._sentence, self.steps = text, steps
        self._text_index = -1
        self.player.go(self.player.index)

    def flush(self) -> None:
        """Run any pending recompute now (tests)."""
        self.recompute.flush()

    def _on_scenario_changed(self) -> None:
        self.steps = self._compute(self._sentence)
        self._show_text(self.player.index)

    def keyPressEvent(self, event: QKeyEvent) -> None:
        actions = {
            Qt.Key.Key_Right: self.player.next,
            Qt.Key.Key_Left: self.player.previous,
            Qt.Key.Key_Space: self.player.toggle,
            Qt.Key.Key_Home: self.player.first,
            Qt.Key.Key_End: self.player.last,
        }
        action = actions.get(Qt.Key(event.key()))
        if action is None:
            super().keyPressEvent(event)
            return
        action()
        event.accept()

    def showEvent(self, event: QShowEvent) -> None:
        """Take the keys unless something outside the page (the navigation) holds them."""
        super().showEvent(event)
        focus = QApplication.focusWidget()
        if focus is None or self.isAncestorOf(focus):
            self.setFocus()

    def hideEvent(self, event: QHideEvent) -> None:
        self.player.stop()
        super().hideEvent(event)

    def closeEvent(self, event: QCloseEvent) -> None:
        self.player.stop()
        super().closeEvent(event)
