"""The memory page's Host RAM tab (issue 20): its controls write setup.host, its bars are the engine's numbers."""

from __future__ import annotations

import pytest
from pytestqt.qtbot import QtBot

from engine.catalog import get_gpu, get_model
from engine.specs import Checkpointing, DatasetStorage, Method, ModelLoading
from engine.training import estimate
from engine.training.host import host_of
from engine.units import Unit, format_bytes
from gui.pages.memory import MemoryPage
from gui.pages.memory_host import HostSection
from gui.state.scenario import Scenario


@pytest.fixture
def page(qtbot: QtBot) -> MemoryPage:
    """Llama 2 70B QLoRA on one node of 8 H100s: the GPUs fit, the host is the question."""
    sc = Scenario(model=get_model("llama-2-70b"), gpu=get_gpu("h100-80gb"))
    sc.update(method=Method.QLORA, gpus=8, checkpointing=Checkpointing.FULL)
    p = MemoryPage(sc)
    qtbot.addWidget(p)
    p.resize(1280, 800)
    return p


def _host(page: MemoryPage):
    sc = page.scenario
    return host_of(estimate(sc.model, sc.setup, sc.gpu))


def test_the_bars_are_the_engines_host_terms(page: MemoryPage) -> None:
    host = page.host
    page.flush()
    h = _host(page)
    process, node = host.chart.rows()
    assert list(process.terms) == list(h.as_terms(per_node=False))
    assert list(node.terms) == list(h.as_terms())
    assert sum(t.bytes for t in node.terms) == h.per_node_bytes == page.current.host_bytes
    assert format_bytes(h.per_node_bytes, Unit.GB, 1) in host.summary.text()
    assert "Give the RAM per node for a verdict." in host.summary.text()
    assert "8 processes" in host.summary.text()


def test_the_guides_strategies_are_switches_of_one_field(page: MemoryPage) -> None:
    host = page.host
    host.dataset_tokens.setValue(1_000)  # a billion tokens
    host.storage.setCurrentIndex(0)  # Python lists
    page.flush()
    h = page.scenario.setup.host
    assert (h.dataset_tokens, h.dataset_storage) == (10**9, DatasetStorage.PYTHON_LISTS)
    assert not host.arrow.isChecked()
    assert not host.streaming.isChecked()
    def storage() -> DatasetStorage:
        return page.scenario.setup.host.dataset_storage

    host.arrow.click()
    assert storage() is DatasetStorage.ARROW_MMAP
    assert host.storage.currentText() == "Arrow file, memory-mapped"
    host.streaming.click()
    assert storage() is DatasetStorage.STREAMING
    assert host.arrow.isChecked()  # streaming reads Parquet
    host.streaming.click()  # off again: back to the Arrow file it came from
    assert storage() is DatasetStorage.ARROW_MMAP
    host.arrow.click()  # off: back to the lists it came from
    assert storage() is DatasetStorage.PYTHON_LISTS
    host.workers_on.click()
    page.flush()
    assert page.scenario.setup.host.num_workers == 4
    assert host.workers.value() == 4
    host.workers.setValue(2)
    page.flush()
    assert host.workers_on.isChecked()
    host.workers_on.click()
    assert page.scenario.setup.host.num_workers == 0
    host.workers_on.click()
    assert page.scenario.setup.host.num_workers == 2  # the last count it saw
    host.loading.setCurrentIndex(2)
    assert page.scenario.setup.host.model_loading is ModelLoading.META_SHARDED


def test_the_nodes_ram_gives_a_verdict_and_marks_the_tab(page: MemoryPage) -> None:
    host = page.host
    host.dataset_tokens.setValue(1_000)
    host.storage.setCurrentIndex(0)
    host.workers_on.click()
    host.ram.setValue(512)
    page.flush()
    h = _host(page)
    assert page.scenario.setup.host.ram_bytes == 512 * 10**9
    assert h.headroom_bytes is not None
    assert h.headroom_bytes < 0
    assert f"Does not fit in 512 GB: short by {format_bytes(-h.headroom_bytes, Unit.GB, 1)}." in host.summary.text()
    assert page.tabs.tabText(1) == "Host RAM ✗"
    assert "Host RAM, per node" in page.overview.roadmap.table.text()  # the roadmap's host rungs
    assert host.chart.shows_capacity()  # the node's RAM as a line
    host.arrow.click()
    page.flush()
    assert page.tabs.tabText(1) == "Host RAM"
    assert "Fits in 512 GB" in host.summary.text()
    host.ram.setValue(0)  # not given
    page.flush()
    assert page.scenario.setup.host.ram_bytes is None
    assert not host.chart.shows_capacity()


def test_nodes_that_do_not_divide_the_gpus_are_refused_with_the_rule(page: MemoryPage) -> None:
    host = page.host
    host.nodes.setValue(3)
    page.flush()
    assert page.scenario.setup.host.nodes == 1
    assert host.nodes.value() == 1
    assert "must be a multiple of host.nodes (3)" in host.reason.text()


def test_the_tab_computes_only_when_shown(qtbot: QtBot) -> None:
    sc = Scenario()
    section = HostSection(sc)
    qtbot.addWidget(section)
    assert section.current is None  # hidden: nothing computed
    section.show()
    qtbot.waitUntil(lambda: section.current is not None)
    section.hide()
    sc.update(seq_len=2048)
    assert section.recompute.pending()  # stale until shown again


def test_the_tabs_are_built_when_first_shown(qtbot: QtBot) -> None:
    """The page's first paint does not build the Host RAM and planner tabs; showing one builds and computes it."""
    page = MemoryPage(Scenario())
    qtbot.addWidget(page)
    page.show()
    assert not page._host_tab.built
    assert not page._planner_tab.built
    page.tabs.setCurrentIndex(1)
    assert page._host_tab.built
    assert not page._planner_tab.built
    qtbot.waitUntil(lambda: page.host.current is not None)
    assert page.host.current == _host(page)
