"""gui.errors: an uncaught error is logged, said in one line, and shown once as a message."""

from __future__ import annotations

from pathlib import Path

import pytest
from pytestqt.qtbot import QtBot

from gui import errors


def _raise() -> None:
    raise ValueError("absurd value: -5 layers")


def test_hook_logs_and_shows_one_message(qtbot: QtBot, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                         capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setattr(errors, "log_path", lambda: tmp_path / "errors.log")
    shown: list[str] = []
    monkeypatch.setattr("gui.errors.QMessageBox.warning", lambda _p, _title, text: shown.append(text))
    try:
        _raise()
    except ValueError as err:
        errors.hook(type(err), err, err.__traceback__)
        errors.hook(type(err), err, err.__traceback__)  # a repeat while the first is pending
    qtbot.waitUntil(lambda: len(shown) >= 1)
    log = (tmp_path / "errors.log").read_text()
    assert "Traceback" in log
    assert "absurd value" in log
    assert "Traceback" not in shown[0]
    assert "ValueError: absurd value: -5 layers" in shown[0]
    assert "kept its state" in shown[0]
    err_line = capsys.readouterr().err.strip().splitlines()[0]
    assert err_line.startswith("vramlab: unexpected error: ValueError")
