"""gui.state.recompute: batched per event-loop turn, only while shown, only for the fields a page reads."""

from __future__ import annotations

import pytest
import shiboken6
from PySide6.QtCore import QCoreApplication, QEvent
from PySide6.QtWidgets import QWidget
from pytestqt.qtbot import QtBot

from engine.serving import ServingSetup
from gui.state.page_state import PageState
from gui.state.recompute import Recompute


class Page(QWidget):
    """A bare page with a headline and two later parts that log when they run."""

    def __init__(self, pause_ms: int = 20) -> None:
        super().__init__()
        self.log: list[str] = []
        self.state = PageState(ServingSetup(), parent=self)
        self.recompute = Recompute(self, now=lambda: self.log.append("now"),
                                   later=[lambda: self.log.append("a"), lambda: self.log.append("b")],
                                   pause_ms=pause_ms)
        self.recompute.watch(self.state, {"tokens", "tp"})


@pytest.fixture
def page(qtbot: QtBot) -> Page:
    p = Page()
    qtbot.addWidget(p)
    return p


def test_a_new_recompute_is_stale_and_flush_runs_every_part(page: Page) -> None:
    assert page.recompute.pending()
    page.recompute.flush()
    assert page.log == ["now", "a", "b"]
    assert not page.recompute.pending()
    page.recompute.flush()
    assert page.log == ["now", "a", "b"]  # nothing pending: nothing runs


def test_while_shown_a_storm_is_one_headline_next_turn_then_the_later_parts_one_per_turn(
    qtbot: QtBot, page: Page
) -> None:
    page.show()
    qtbot.waitUntil(lambda: not page.recompute.pending())  # the first show computed everything
    page.log.clear()
    for tokens in (1024, 2048, 4096, 8192):
        page.state.update(tokens=tokens)
    assert page.log == []  # nothing in the changes' own turn
    qtbot.waitUntil(lambda: page.log == ["now"], timeout=1000)
    qtbot.waitUntil(lambda: page.log == ["now", "a", "b"], timeout=1000)


def test_later_parts_wait_until_requests_pause(qtbot: QtBot) -> None:
    page = Page(pause_ms=60)
    qtbot.addWidget(page)
    page.show()
    qtbot.waitUntil(lambda: not page.recompute.pending())
    page.log.clear()
    for tokens in (1024, 2048, 4096):
        page.state.update(tokens=tokens)
        qtbot.wait(20)  # a drag: a change every 20 ms, each served by a headline
    assert "a" not in page.log
    assert page.log.count("now") == 3
    qtbot.waitUntil(lambda: page.log[-2:] == ["a", "b"], timeout=1000)


def test_fields_the_page_does_not_read_cost_nothing(qtbot: QtBot, page: Page) -> None:
    page.recompute.flush()
    page.show()
    page.state.update(sequences=8, kv_dtype="fp8")
    assert not page.recompute.pending()
    page.state.update(tp=2)
    assert page.recompute.pending()
    page.recompute.flush()


def test_a_hidden_page_waits_and_is_recomputed_once_when_shown(page: Page) -> None:
    page.recompute.flush()
    page.show()
    page.hide()
    page.log.clear()
    page.state.update(tokens=1024)
    page.state.update(tp=4)
    assert page.log == []
    assert page.recompute.pending()
    page.show()
    assert page.log == ["now"]  # at once, in the show: the page is never painted stale
    page.recompute.flush()
    assert page.log == ["now", "a", "b"]


def test_hiding_drops_what_was_scheduled(qtbot: QtBot, page: Page) -> None:
    page.show()
    qtbot.waitUntil(lambda: not page.recompute.pending())
    page.state.update(tokens=1024)
    page.hide()  # no timer is left running (the suite's fixture would fail the test)
    assert page.recompute.pending()
    page.log.clear()
    page.show()
    assert page.log == ["now"]
    page.recompute.flush()


def test_request_runs_without_a_field(qtbot: QtBot, page: Page) -> None:
    page.recompute.flush()
    page.log.clear()
    page.recompute.request()  # hidden (never shown): stale until flushed or shown
    assert page.log == []
    page.recompute.flush()
    assert page.log == ["now", "a", "b"]


def test_a_deleted_page_leaves_no_connection_behind(qtbot: QtBot) -> None:
    state = PageState(ServingSetup())
    page = Page()
    page.recompute.watch(state)
    page.recompute.flush()
    page.deleteLater()
    QCoreApplication.sendPostedEvents(None, QEvent.Type.DeferredDelete)
    assert not shiboken6.isValid(page)
    state.update(tokens=1024)  # would raise if the dead page's watcher were still connected


def test_an_error_in_a_part_goes_to_the_error_hook_not_up_through_qt(
    qtbot: QtBot, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 17: an error unwinding through Qt's C++ event filter crashed the app later (SIGSEGV)."""
    import sys

    seen: list[type[BaseException]] = []
    monkeypatch.setattr(sys, "excepthook", lambda kind, value, tb: seen.append(kind))
    page = QWidget()
    qtbot.addWidget(page)

    def fail() -> None:
        raise ValueError("a page's bug")

    ran: list[str] = []
    recompute = Recompute(page, now=fail, later=[fail, lambda: ran.append("b")])
    recompute.flush()  # does not raise
    assert seen == [ValueError, ValueError]
    assert ran == ["b"]  # the parts after the failing one still run
    page.show()
    recompute.request()
    qtbot.waitUntil(lambda: len(seen) == 4, timeout=2000)  # the event loop's runs are contained too
