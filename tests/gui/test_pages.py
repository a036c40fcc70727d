"""gui.pages: the registry and the page contract, checked on every registered page."""

from __future__ import annotations

import inspect

import pytest
from PySide6.QtWidgets import QLabel, QWidget
from pytestqt.qtbot import QtBot

from gui.pages import PAGE_IDS, PAGES, create_page, entry, page_title
from gui.scenario import Scenario

EXPECTED_ISSUES = {"memory": 4, "attention": 5, "levers": 6, "alignment": 6, "serving": 7}


def test_five_pages_in_order() -> None:
    assert PAGE_IDS == ("memory", "attention", "levers", "alignment", "serving")
    assert [page_title(p) for p in PAGE_IDS] == ["Memory", "Attention", "Levers", "Alignment", "Serving"]


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


@pytest.mark.parametrize("page_id", [p.page_id for p in PAGES if p.module == "gui.pages.placeholder"])
def test_placeholders_say_which_issue_brings_them(qtbot: QtBot, page_id: str) -> None:
    page = create_page(page_id, Scenario())
    qtbot.addWidget(page)
    texts = " ".join(label.text() for label in page.findChildren(QLabel))
    assert f"This page arrives with issue {EXPECTED_ISSUES[page_id]}." in texts
    assert len(texts) > 120  # and says what it will show
