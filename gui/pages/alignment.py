"""The Alignment page: SFT, DPO, PPO and GRPO counted in models held in memory.

A diagram of the chosen stage (boxes for its models, arrows for what flows, one step animated on demand), the
models it holds with their bytes per GPU, the seed's facts with their context, and the four stages side by side
against the GPU. Every number is ``engine.alignment.stages`` for the scenario and the page's variants. For PPO and
GRPO the rollout settings (generations, prompt and completion lengths, the rollout engine and vLLM's share of the
GPU) sit beside the diagram with the engine's shape of the step; the rollout engine is a row of the table and a
segment of the bars (a vLLM server's bytes, on GPUs of their own, are a row and a note of their own).

The page's own state (the stage drawn, the variants) is a ``PageState`` over ``AlignmentChoices``. The page reads
every scenario field and its ``options`` (``gui.state.recompute``: batched, only while shown); picking a stage only
redraws.
"""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import Qt, SignalInstance
from PySide6.QtGui import QFontInfo, QPalette, QResizeEvent
from PySide6.QtWidgets import (
    QButtonGroup,
    QGridLayout,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from engine.alignment import Stage, StageMemory, stages
from gui.look.palette import CHECKED_BUTTON
from gui.pages import page_title
from gui.pages.alignment_controls import RL_STAGES, AlignmentChoices, AlignmentControls
from gui.pages.alignment_texts import facts_html, intro, node_labels, rollout_text, stage_blurb, stage_name
from gui.state.page_state import Fields, PageState, touches
from gui.state.recompute import Recompute
from gui.state.scenario import EVERYTHING, Scenario
from gui.widgets.page_layout import fill_with_scroll, page_heading
from gui.widgets.role_table import RoleTable
from gui.widgets.scenario_summary import ScenarioSummary
from gui.widgets.stage_bars import StageBars
from gui.widgets.stage_diagram import StageDiagram

if TYPE_CHECKING:
    from engine.lessons import Situation

# the diagram takes this share of the width beside the stage's column; its text at least this share of the page's
MARGIN, DIAGRAM_SHARE, LEGIBLE = 24, 0.6, 0.78


class AlignmentPage(QWidget):
    """The four stages, one drawn at a time.

    Signals: none of its own.
    """

    page_id = "alignment"

    def __init__(self, scenario: Scenario, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("page-alignment")
        self._scenario = scenario
        self.state = PageState(AlignmentChoices(), parent=self)
        self.recompute = Recompute(self, now=self._recompute).watch(scenario, EVERYTHING)
        self.recompute.watch(self.state, {"options"})
        self.state.changed.connect(self._state_changed)
        self._stages: dict[Stage, StageMemory] = {}
        content = QWidget(self)
        layout = QVBoxLayout(content)
        layout.setContentsMargins(MARGIN, 16, MARGIN, 16)
        heading = page_heading(self.title(), content)
        blurb = QLabel(intro(), content)
        blurb.setWordWrap(True)
        self.controls = AlignmentControls(scenario, self.state, content)
        for w in (heading, blurb, ScenarioSummary(scenario, content), self.controls):
            layout.addWidget(w)
        layout.addLayout(self._stage_row(content))
        layout.addLayout(self._middle(content), 1)
        fill_with_scroll(self, content)
        self.recompute.flush()

    def _stage_row(self, parent: QWidget) -> QHBoxLayout:
        row = QHBoxLayout()
        self.stage_buttons = QButtonGroup(parent)
        buttons = []
        for i, stage in enumerate(Stage):
            button = QPushButton(stage_name(stage), parent)
            button.setStyleSheet(CHECKED_BUTTON)
            self.stage_buttons.addButton(button, i)
            buttons.append((button, stage))
            row.addWidget(button)
        self.controls.own.buttons(self.stage_buttons, "stage", buttons)
        row.addStretch(1)
        self.play = QPushButton(self.tr("▶ Play one step"), parent)
        self.play.clicked.connect(self._toggle_play)
        row.addWidget(self.play)
        return row

    def _middle(self, parent: QWidget) -> QGridLayout:
        """Diagram | what the stage does, its models and facts; under them the four stages' bars."""
        grid = QGridLayout()
        self.diagram = StageDiagram(parent)
        self.diagram.playing_changed.connect(self._playing)
        self.blurb, self.facts = QLabel(parent), QLabel(parent)
        self.facts.setTextFormat(Qt.TextFormat.RichText)
        self.facts.setAlignment(Qt.AlignmentFlag.AlignTop)
        self.table = RoleTable(parent)
        for label in (self.blurb, self.facts):
            label.setWordWrap(True)
        self.bars = StageBars(parent)
        self.bars.stage_clicked.connect(lambda value: self.select(Stage(value)))
        key = QLabel(self.tr("Per GPU: solid, what stays all step (weights, optimizer states, the rollout "
                             "engine's share); light, the working set that sets the peak; grey, the allocator's "
                             "reserve and the CUDA context. Click a bar to draw its stage."), parent)
        key.setWordWrap(True)
        key.setForegroundRole(QPalette.ColorRole.PlaceholderText)
        self.side = QWidget(parent)
        side = QVBoxLayout(self.side)
        side.setContentsMargins(0, 0, 0, 0)
        for w in (self.blurb, self.controls.rl, self.table, self.facts):
            side.addWidget(w)
        side.addStretch(1)
        self._grid, self._key = grid, key
        self._beside: bool | None = None
        self._place(beside=True)
        return grid

    def _place(self, beside: bool) -> None:
        """The diagram with the stage's side column beside it, or, when both do not fit across (a large type on
        a small screen), the diagram across the page and the side column under it; the four stages' bars below."""
        grid = self._grid
        for w in (self.diagram, self.side, self.bars, self._key):
            grid.removeWidget(w)
        grid.addWidget(self.diagram, 0, 0, 1, 1 if beside else 2, Qt.AlignmentFlag.AlignTop)
        grid.addWidget(self.side, 0 if beside else 1, 1 if beside else 0, 1, 1 if beside else 2)
        grid.addWidget(self.bars, 2, 0, 1, 2)
        grid.addWidget(self._key, 3, 0, 1, 2)
        grid.setColumnStretch(0, round(10 * DIAGRAM_SHARE))
        grid.setColumnStretch(1, round(10 * (1 - DIAGRAM_SHARE)) if beside else 0)
        grid.setRowStretch(0, 3)
        grid.setRowStretch(2, 2)
        self._beside = beside

    def resizeEvent(self, event: QResizeEvent) -> None:
        """Side by side only while the diagram, at its share of the width, still draws its text at least
        ``LEGIBLE`` of the page's size (the drawing is scaled to its view's width)."""
        super().resizeEvent(event)
        share = DIAGRAM_SHARE * (event.size().width() - 2 * MARGIN)
        beside = share >= self.diagram.width_for_text(LEGIBLE * QFontInfo(self.font()).pixelSize())
        if beside != self._beside:
            self._place(beside)

    def title(self) -> str:
        return page_title(self.page_id)

    def export_chart(self) -> QWidget:
        return self.diagram

    def view_state(self) -> dict[str, Any]:
        return self.state.value.model_dump(mode="json")

    def restore_view_state(self, state: dict[str, Any]) -> None:
        self.state.replace(AlignmentChoices.model_validate(state))

    # -- a lesson's situation holds the page's variants (``gui.pages.contract.HoldsLessonPart``) ---------------
    def lesson_part(self, situation: Situation) -> Situation:
        return replace(situation, alignment=self.state.value.options)

    def set_lesson_part(self, situation: Situation) -> None:
        self.state.update(options=situation.alignment)

    def lesson_part_changed(self) -> SignalInstance:
        return self.state.changed

    def flush(self) -> None:
        """Write pending control values and run any pending recompute now (tests, export)."""
        self.controls.flush()
        self.recompute.flush()

    def stage(self, stage: Stage) -> StageMemory:
        """The engine's answer for a stage as the page shows it now."""
        return self._stages[stage]

    def select(self, stage: Stage) -> None:
        """Show ``stage`` (the diagram, its models, its facts)."""
        self.state.update(stage=stage)

    def _state_changed(self, fields: Fields) -> None:
        """A new stage redraws now, unless a recompute is due anyway (it redraws)."""
        if touches(fields, {"stage"}) and not self.recompute.pending():
            self._show_selected()

    def _recompute(self) -> None:
        """Ask the engine again (``gui.state.recompute``: batched, only while shown)."""
        sc = self._scenario
        self._stages = {sm.stage: sm for sm in stages(sc.model, sc.setup, sc.gpu, self.state.value.options)}
        self._show_selected()

    def _show_selected(self) -> None:
        stage, unit = self.state.value.stage, self._scenario.unit
        sm = self._stages[stage]
        labels = {s.stage.value: self.tr("{stage} · {n} model(s)").format(stage=stage_name(s.stage), n=s.models)
                  for s in self._stages.values()}
        self.bars.set_stages(list(self._stages.values()), stage.value, unit, labels)
        self.diagram.show_stage(sm, node_labels(stage), unit)
        self.table.show_stage(sm, unit)
        if stage in RL_STAGES:
            self.controls.rl.shape.setText(rollout_text(sm.rollout, sm.elsewhere_bytes, unit))
        self.blurb.setText(stage_blurb(stage))
        self.facts.setText(facts_html(stage))

    def _toggle_play(self) -> None:
        if self.diagram.player.is_playing():
            self.diagram.stop()
        else:
            self.diagram.play()

    def _playing(self, playing: bool) -> None:
        self.play.setText(self.tr("■ Stop") if playing else self.tr("▶ Play one step"))
