"""gui.pages: the registry and the page contract, checked on every registered page."""

from __future__ import annotations

import inspect

import pytest
from PySide6.QtWidgets import QWidget
from pytestqt.qtbot import QtBot

from gui.pages import PAGE_IDS, create_page, entry, page_title
from gui.state.scenario import Scenario


def test_six_pages_in_order() -> None:
    assert PAGE_IDS == ("memory", "attention", "levers", "alignment", "serving", "timeline")
    assert [page_title(p) for p in PAGE_IDS] == ["Memory", "Attention", "Levers", "Alignment", "Serving", "Timeline"]


def test_unknown_page_id() -> None:
    with pytest.raises(KeyError):
        entry("nope")


@pytest.mark.parametrize("page_id", PAGE_IDS)
def test_every_page_follows_the_contract(qtbot: QtBot, page_id: str) -> None:
    scenario = Scenario()
    page = create_page(page_id, scenario)
    qtbot.addWidget(page)
    assert isinstance(page, QWidget)
    assert page.page_id == page_id  # type: ignore[attr-defined]
    assert page.title() == page_title(page_id)  # type: ignore[attr-defined]
    params = list(inspect.signature(type(page).__init__).parameters)
    assert params[:3] == ["self", "scenario", "parent"]
