"""gui.state.coalesce: many requests in one event-loop turn make one call."""

from __future__ import annotations

from pytestqt.qtbot import QtBot

from gui.state.coalesce import Coalescer, Debounce


def test_many_schedules_make_one_call(qtbot: QtBot) -> None:
    calls: list[int] = []
    coalescer = Coalescer(lambda: calls.append(1))
    for _ in range(50):
        coalescer.schedule()
    assert calls == []
    qtbot.waitUntil(lambda: calls == [1], timeout=1000)
    assert not coalescer.pending()


def test_flush_runs_now_and_cancel_drops(qtbot: QtBot) -> None:
    calls: list[int] = []
    coalescer = Coalescer(lambda: calls.append(1))
    coalescer.flush()
    assert calls == []
    coalescer.schedule()
    coalescer.flush()
    assert calls == [1]
    coalescer.schedule()
    coalescer.cancel()
    qtbot.wait(10)
    assert calls == [1]


def test_debounce_serves_a_storm_once_after_it_pauses(qtbot: QtBot) -> None:
    calls: list[int] = []
    d = Debounce(lambda: calls.append(1), 30)
    for _ in range(5):
        d.schedule()
        qtbot.wait(10)  # requests keep coming faster than the quiet period
    assert calls == []
    qtbot.waitUntil(lambda: calls == [1], timeout=1000)
    assert not d.pending()
