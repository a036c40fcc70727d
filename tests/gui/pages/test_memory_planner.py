"""The memory page's Layout planner tab (issue 14): the engine's search in a background thread, its rows as a
table, a row chosen as the scenario's setup, a stale search cancelled."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from PySide6.QtCore import Qt
from pytestqt.qtbot import QtBot

from engine.catalog import get_gpu, get_model
from engine.specs import Method, ModelSpec, ParallelSpec, Sharding, TrainingSetup
from engine.training.planner import PlanCancelledError, PlanRow, plan
from gui.pages.memory import MemoryPage
from gui.pages.memory_planner import PlanSearch, search_setup
from gui.state.scenario import Scenario

MAX_GPUS = 8
WAIT_MS = 60_000


@pytest.fixture
def page(qtbot: QtBot) -> Iterator[MemoryPage]:
    p = MemoryPage(Scenario(model=get_model("llama-2-13b"), gpu=get_gpu("h100-80gb")))
    qtbot.addWidget(p)
    p.resize(1280, 800)
    p.planner.max_gpus.setValue(MAX_GPUS)
    p.flush()
    yield p
    p.planner.search.cancel()
    p.planner.search.wait()


def _search(qtbot: QtBot, page: MemoryPage) -> list[PlanRow]:
    with qtbot.waitSignal(page.planner.search.found, timeout=WAIT_MS) as found:
        page.planner.flush()
    rows = found.args[0]
    assert isinstance(rows, list)
    return rows


def _expected(page: MemoryPage) -> list[PlanRow]:
    sc = page.scenario
    return plan(sc.model, search_setup(sc.setup), sc.gpu, MAX_GPUS)


def test_the_tables_rows_are_the_engines_plan(qtbot: QtBot, page: MemoryPage) -> None:
    rows = _search(qtbot, page)
    assert rows == _expected(page)
    assert page.planner.model.rows() == rows
    assert page.planner.table.shown() == rows
    assert page.planner.table.isEnabled()
    assert page.planner.status.text() == f"{len(rows)} layouts fit on at most {MAX_GPUS} GPUs."
    assert not page.planner.progress.isVisible()


def test_choosing_a_row_makes_it_the_setup_in_one_update(qtbot: QtBot, page: MemoryPage) -> None:
    rows = _search(qtbot, page)
    row = next(r for r in rows if r.setup.parallel.tp > 1)
    updates: list[frozenset[str]] = []
    page.scenario.changed.connect(updates.append)
    index = page.planner.table.proxy.index(page.planner.table.shown().index(row), 0)
    page.planner.table.activated.emit(index)  # a double-click
    assert page.scenario.setup == row.setup
    assert len(updates) == 1
    page.flush()
    assert page.current == row.estimate  # the headline shows the row's own estimate
    assert not page.planner.recompute.pending()  # the rows still answer the scenario: no new search
    assert not page.planner.stale
    font = page.planner.model.data(page.planner.model.index(rows.index(row), 0), Qt.ItemDataRole.FontRole)
    assert font is not None
    assert font.bold()


def test_the_use_button_needs_a_fresh_selection(qtbot: QtBot, page: MemoryPage) -> None:
    rows = _search(qtbot, page)
    planner = page.planner
    assert not planner.use.isEnabled()
    planner.table.selectRow(len(rows) - 1)
    assert planner.use.isEnabled()
    chosen = planner.table.selected()
    planner.use.click()
    assert chosen is not None
    assert page.scenario.setup == chosen.setup
    page.scenario.update(seq_len=2048)  # the rows are no longer the scenario's
    assert planner.stale
    assert not planner.use.isEnabled()
    assert not planner.table.isEnabled()
    assert not planner.choose(rows[0])


def test_a_scenario_change_cancels_the_running_search(qtbot: QtBot, page: MemoryPage,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    """The first search is cancelled mid-way; only the search of the new scenario reports, once. The first search
    is held until it is cancelled (with the engine's caches warm a real one can end before the test looks)."""
    held = threading.Event()

    def first_held(m: ModelSpec, s: TrainingSetup, *args: Any, cancelled: Callable[[], bool], **kwargs: Any) -> Any:
        if s.method is Method.FULL:
            held.set()
            while not cancelled():
                time.sleep(0.001)
            raise PlanCancelledError
        return plan(m, s, *args, cancelled=cancelled, **kwargs)

    monkeypatch.setattr("gui.pages.memory_planner.plan", first_held)
    found: list[object] = []
    page.planner.search.found.connect(found.append)
    page.planner.flush()  # starts the first search
    assert held.wait(WAIT_MS / 1000)
    assert page.planner.search.running()
    page.scenario.update(method=Method.LORA)
    assert page.planner.stale
    with qtbot.waitSignal(page.planner.search.found, timeout=WAIT_MS):
        page.planner.flush()
    page.planner.search.wait()
    qtbot.wait(50)  # anything the cancelled search might still have queued
    assert len(found) == 1
    assert found[0] == _expected(page)
    assert all(r.setup.method is Method.LORA for r in page.planner.model.rows())


def test_the_search_ignores_the_layout_it_would_choose(page: MemoryPage) -> None:
    """Searching from the scenario with its layout, GPU count and ZeRO stage reset: every layout is searched."""
    s = TrainingSetup(gpus=8, sharding=Sharding.ZERO3, offload_params=True, parallel=ParallelSpec(tp=4))
    base = search_setup(s)
    assert (base.parallel, base.gpus, base.sharding, base.offload_params) == (ParallelSpec(), 1, Sharding.NONE, False)
    assert base.with_(parallel=s.parallel, gpus=8, sharding=Sharding.ZERO3, offload_params=True) == s


def test_a_search_reports_progress_and_a_failure(qtbot: QtBot, monkeypatch: pytest.MonkeyPatch) -> None:
    search = PlanSearch()
    seen: list[tuple[int, int]] = []
    search.progressed.connect(lambda d, t: seen.append((d, t)))
    with qtbot.waitSignal(search.found, timeout=WAIT_MS):
        search.start(get_model("gpt2"), TrainingSetup(), get_gpu("h100-80gb"), 4)
    search.wait()
    assert seen
    assert seen[-1][0] == seen[-1][1]

    def broken(*_args: object, **_kw: object) -> list[PlanRow]:
        raise ValueError("the engine refused it")

    monkeypatch.setattr("gui.pages.memory_planner.plan", broken)
    with qtbot.waitSignal(search.failed, timeout=WAIT_MS) as failed:
        search.start(get_model("gpt2"), TrainingSetup(), get_gpu("h100-80gb"), 4)
    search.wait()
    assert failed.args == ["the engine refused it"]
    assert not search.running()


def test_each_row_is_timed_with_the_search_and_can_sort_fastest_first(qtbot: QtBot, page: MemoryPage) -> None:
    """Issue 29: the worker times every row (engine.timing); "Fastest first" sorts by tokens/s."""
    from engine.timing import step_time

    rows = _search(qtbot, page)
    planner = page.planner
    assert set(planner.search.times) == {r.setup for r in rows}
    sc = page.scenario
    first = rows[0]
    expected = step_time(sc.model, first.setup, sc.gpu).tokens_per_second_per_gpu * first.setup.gpus
    assert planner.model.tokens_per_second(first) == pytest.approx(expected, rel=1e-12)
    page.view.update(fastest=True)
    speeds = [planner.model.tokens_per_second(r) for r in planner.table.shown()]
    assert speeds == sorted(speeds, reverse=True)
