"""gui.startup_probe: the launch time it measures from, and one line at the window's first paint."""

from __future__ import annotations

import pytest
from PySide6.QtWidgets import QWidget
from pytestqt.qtbot import QtBot

from gui import startup_probe
from gui.startup_probe import PROBE_ENV, StartupProbe, launch_time


@pytest.mark.parametrize(("value", "expected"), [(None, None), ("", None), ("1", "imported"), ("abc", "imported"),
                                                  ("1700000000.5", 1_700_000_000.5)])
def test_launch_time(monkeypatch: pytest.MonkeyPatch, value: str | None, expected: object) -> None:
    if value is None:
        monkeypatch.delenv(PROBE_ENV, raising=False)
    else:
        monkeypatch.setenv(PROBE_ENV, value)
    assert launch_time() == (startup_probe._IMPORTED_AT if expected == "imported" else expected)


def test_prints_at_the_first_paint_and_quits(qtbot: QtBot, capsys: pytest.CaptureFixture[str],
                                             monkeypatch: pytest.MonkeyPatch) -> None:
    quits: list[int] = []

    class App:
        @staticmethod
        def quit() -> None:
            quits.append(1)

    monkeypatch.setattr("gui.startup_probe.QCoreApplication", App)
    window = QWidget()
    qtbot.addWidget(window)
    StartupProbe(0.0, window)
    window.show()
    qtbot.waitUntil(lambda: quits == [1], timeout=2000)
    out = capsys.readouterr().out
    assert out.startswith("startup_s=")
    assert float(out.removeprefix("startup_s=")) > 1e9  # measured from 0.0: seconds since 1970
