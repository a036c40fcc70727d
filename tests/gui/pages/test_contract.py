"""gui.pages.contract: every registered page is a ``Page``, and says what else it can do by its protocols."""

from __future__ import annotations

import pytest
from PySide6.QtWidgets import QWidget
from pytestqt.qtbot import QtBot

from engine.specs import HostSetup, ParallelSpec, TrainingSetup
from gui.files.breakdown_table import Breakdown
from gui.pages import PAGE_IDS, create_page
from gui.pages.contract import (
    ExportsBreakdown,
    ExportsChart,
    HoldsLessonPart,
    KeepsViewState,
    OpensSnapshot,
    Page,
    PresentsSteps,
)
from gui.state.scenario import Scenario

ABILITIES = {
    "memory": {ExportsChart, ExportsBreakdown, KeepsViewState},
    "attention": {ExportsChart, PresentsSteps, KeepsViewState, HoldsLessonPart},
    "levers": {ExportsChart, ExportsBreakdown, KeepsViewState},
    "alignment": {ExportsChart, KeepsViewState, HoldsLessonPart},
    "serving": {ExportsChart, ExportsBreakdown, KeepsViewState, HoldsLessonPart},
    "timeline": {ExportsChart, ExportsBreakdown, KeepsViewState, OpensSnapshot},
}


@pytest.mark.parametrize("page_id", PAGE_IDS)
def test_each_page_keeps_the_contract(qtbot: QtBot, page_id: str) -> None:
    page = create_page(page_id, Scenario())
    qtbot.addWidget(page)
    assert isinstance(page, Page)
    assert page.page_id == page_id
    assert page.title()
    found = {p for p in (ExportsChart, ExportsBreakdown, PresentsSteps, KeepsViewState, HoldsLessonPart,
                         OpensSnapshot) if isinstance(page, p)}
    assert found == ABILITIES[page_id]
    if isinstance(page, ExportsChart):
        assert isinstance(page.export_chart(), QWidget)
    if isinstance(page, ExportsBreakdown):
        assert isinstance(page.export_breakdown(), Breakdown)
    if isinstance(page, KeepsViewState):
        state = page.view_state()
        page.restore_view_state(state)
        assert page.view_state() == state


def test_a_plain_widget_is_no_page(qtbot: QtBot) -> None:
    widget = QWidget()
    qtbot.addWidget(widget)
    assert not isinstance(widget, Page)
    assert not isinstance(widget, ExportsChart)


@pytest.mark.parametrize("setup", [
    TrainingSetup(gpus=2, host=HostSetup(nodes=2)),
    TrainingSetup(gpus=2, parallel=ParallelSpec(tp=2)),
    TrainingSetup(gpus=4, parallel=ParallelSpec(pp=4, micro_batches=4)),
], ids=["two nodes", "tp 2", "pp 4"])
@pytest.mark.parametrize("page_id", PAGE_IDS)
def test_every_page_takes_a_layout_and_nodes(qtbot: QtBot, page_id: str, setup: TrainingSetup) -> None:
    """The Memory page can set a parallel layout and spread the GPUs over nodes: every page computes with them."""
    page = create_page(page_id, Scenario(setup=setup))
    qtbot.addWidget(page)
    assert isinstance(page, Page)
    page.flush()
