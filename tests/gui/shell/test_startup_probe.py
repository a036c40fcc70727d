"""gui.shell.startup_probe: the launch time it measures from, the lines at the window's first paint and once settled."""

from __future__ import annotations

import pytest
from PySide6.QtWidgets import QLabel, QVBoxLayout, QWidget
from pytestqt.qtbot import QtBot

from gui.shell import startup_probe
from gui.shell.startup_probe import PROBE_ENV, StartupProbe, launch_time
from gui.widgets.lazy_tab import LazyView


@pytest.mark.parametrize(("value", "expected"), [(None, None), ("", None), ("1", "imported"), ("abc", "imported"),
                                                  ("1700000000.5", 1_700_000_000.5)])
def test_launch_time(monkeypatch: pytest.MonkeyPatch, value: str | None, expected: object) -> None:
    if value is None:
        monkeypatch.delenv(PROBE_ENV, raising=False)
    else:
        monkeypatch.setenv(PROBE_ENV, value)
    assert launch_time() == (startup_probe._IMPORTED_AT if expected == "imported" else expected)


def _quits(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    quits: list[int] = []

    class App:
        @staticmethod
        def quit() -> None:
            quits.append(1)

    monkeypatch.setattr("gui.shell.startup_probe.QCoreApplication", App)
    return quits


def _figures(out: str) -> dict[str, float]:
    return {name: float(value) for name, _, value in (line.partition("=") for line in out.splitlines())}


def test_prints_at_the_first_paint_and_quits(qtbot: QtBot, capsys: pytest.CaptureFixture[str],
                                             monkeypatch: pytest.MonkeyPatch) -> None:
    quits = _quits(monkeypatch)
    window = QWidget()
    qtbot.addWidget(window)
    StartupProbe(0.0, window)
    window.show()
    qtbot.waitUntil(lambda: quits == [1], timeout=2000)
    out = capsys.readouterr().out
    assert out.startswith("startup_s=")
    figures = _figures(out)
    assert list(figures) == ["startup_s", "startup_cpu_s", "settled_s"]
    assert figures["startup_s"] > 1e9  # measured from 0.0: seconds since 1970
    assert 0 < figures["startup_cpu_s"] < 1e6  # this process's CPU time
    assert figures["settled_s"] >= figures["startup_s"]


def test_settles_once_the_lazy_views_on_screen_are_built(qtbot: QtBot, capsys: pytest.CaptureFixture[str],
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    quits = _quits(monkeypatch)
    window = QWidget()
    qtbot.addWidget(window)
    window.resize(400, 300)
    view = LazyView(lambda: QLabel("chart"), lambda _: None, window)
    QVBoxLayout(window).addWidget(view)
    built_when_settled: list[bool] = []
    StartupProbe(0.0, window)
    monkeypatch.setattr("gui.shell.startup_probe._say", lambda text: built_when_settled.append(view.built)
                        if text.startswith("settled_s") else None)
    window.show()
    qtbot.waitUntil(lambda: quits == [1], timeout=2000)
    assert built_when_settled == [True]  # not before the view was built, the turn after its first paint
