"""The memory page's GPU types tab ("Which GPUs?", issue 29): every GPU type the run fits on with its speed and
hours, ranked by hours or by the cost at the prices the user types (none shipped)."""

from __future__ import annotations

import pytest
from PySide6.QtWidgets import QTableWidgetItem
from pytestqt.qtbot import QtBot

from engine.catalog import get_gpu, get_model, gpus
from engine.specs import HostSetup, TrainingSetup
from engine.timing.choices import gpu_options
from gui.pages.memory import MemoryPage
from gui.pages.memory_gpus import PRICE_COLUMN, GpuChoicesSection
from gui.state.scenario import Scenario

TOKENS = 50_000_000


def _item(section: GpuChoicesSection, row: int, col: int) -> QTableWidgetItem:
    item = section.table.item(row, col)
    assert item is not None
    return item


@pytest.fixture
def page(qtbot: QtBot) -> MemoryPage:
    setup = TrainingSetup(method="lora", host=HostSetup(dataset_tokens=TOKENS))
    p = MemoryPage(Scenario(model=get_model("llama-3.1-8b"), gpu=get_gpu("rtx-4090"), setup=setup))
    qtbot.addWidget(p)
    p.resize(1280, 800)
    p.show()
    p.tabs.setCurrentWidget(p._gpus_tab)
    p.gpu_choices.flush()
    return p


def test_the_rows_are_the_engines_options(page: MemoryPage) -> None:
    sc, section = page.scenario, page.gpu_choices
    expected = gpu_options(sc.model, sc.setup, gpus(), max_gpus=64, epochs=1.0)
    assert [(o.gpu.id, o.count) for o in section.ranked()] == [(o.gpu.id, o.count) for o in expected]
    first = expected[0]
    assert _item(section, 0, 0).text() == first.gpu.name
    assert first.run_hours == pytest.approx(TOKENS / first.tokens_per_second / 3600)
    assert _item(section, 0, 4).text() == f"{first.run_hours:,.1f}"
    assert _item(section, 0, 6).text() == "—"  # no price: no cost


def test_a_typed_price_gives_the_cost_and_can_rank(page: MemoryPage) -> None:
    section = page.gpu_choices
    rows = section.ranked()
    slow = rows[-1]
    row = next(i for i, o in enumerate(rows) if o is slow)
    _item(section, row, PRICE_COLUMN).setText("0.5")
    assert section.price(slow.gpu.id) == 0.5
    assert slow.run_hours is not None
    cost = slow.run_hours * slow.count * 0.5
    page.view.update(rank_by_cost=True)
    ranked = section.ranked()
    assert ranked[0].gpu.id == slow.gpu.id  # the only type with a price ranks first
    assert _item(section, 0, 6).text() == f"{cost:,.2f}"
    _item(section, 0, PRICE_COLUMN).setText("—")  # cleared: no price again
    assert section.price(slow.gpu.id) is None


def test_epochs_scale_the_hours(page: MemoryPage) -> None:
    section = page.gpu_choices
    one = section.ranked()[0].run_hours
    assert one is not None
    page.view.update(epochs=3.0)
    section.flush()
    assert section.ranked()[0].run_hours == pytest.approx(3 * one)
