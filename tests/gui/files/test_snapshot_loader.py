"""gui.files.snapshot_loader: a snapshot is read in a worker thread, with progress; cancel, refusals and a second
read."""

from __future__ import annotations

import os
import threading
import time
from pathlib import Path
from typing import Any

import pytest
import shiboken6
from PySide6.QtCore import QThread, QTimer
from pytestqt.qtbot import QtBot

from engine.snapshot import Measurement, Progress, read_measurement, read_report
from gui.files import snapshot_loader
from gui.files.snapshot_loader import PROGRESS_MAX, SnapshotLoader
from tests.gui.snapshot_files import PYTORCH_MADE, big, hostile, small, truncated


@pytest.fixture
def loader(qtbot: QtBot) -> SnapshotLoader:
    return SnapshotLoader()


@pytest.fixture(scope="module")
def large_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return big(tmp_path_factory.mktemp("large"))


def test_reads_in_a_worker_thread_and_reports_progress(
    qtbot: QtBot, loader: SnapshotLoader, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    threads: list[int] = []
    real = read_measurement

    def spy(path: Path, progress: Progress | None = None) -> Measurement:
        threads.append(threading.get_ident())
        return real(path, progress=progress)

    monkeypatch.setattr("gui.files.snapshot_loader.read_measurement", spy)
    path = small(tmp_path)
    seen: list[int] = []
    loader.progressed.connect(seen.append)
    with qtbot.waitSignal(loader.loaded, timeout=20_000) as got:
        loader.start(path)
        assert loader.is_busy()
    assert threads != [threading.get_ident()]  # not the GUI thread
    m = got.args[0]
    assert isinstance(m, Measurement)
    assert m.report == read_report(path)
    assert seen == sorted(seen)
    assert seen[-1] == PROGRESS_MAX
    assert not loader.is_busy()


def test_a_snapshot_pytorch_made_loads(qtbot: QtBot, loader: SnapshotLoader) -> None:
    with qtbot.waitSignal(loader.loaded, timeout=20_000) as got:
        loader.start(PYTORCH_MADE)
    assert got.args[0].report.peak_allocated_bytes == 4_107_644  # memory_viz's peak (tests/engine/snapshot)


@pytest.mark.parametrize("kind", ["hostile", "truncated", "missing"])
def test_a_refused_file_gives_the_engines_one_line(
    qtbot: QtBot, loader: SnapshotLoader, tmp_path: Path, kind: str
) -> None:
    marker = tmp_path / "ran"
    path = {"hostile": lambda: hostile(tmp_path, marker), "truncated": lambda: truncated(tmp_path),
            "missing": lambda: tmp_path / "nowhere.pickle"}[kind]()
    with qtbot.waitSignal(loader.failed, timeout=20_000) as got:
        loader.start(path)
    reason = got.args[0]
    assert reason.startswith(path.name if kind != "missing" else str(path))
    assert "\n" not in reason
    expected = {"hostile": "refused: not a plain-data pickle (it asks to load " + os.system.__module__ + ".system",
                "truncated": "the gzip stream is truncated", "missing": "no such file"}[kind]
    assert expected in reason
    assert not marker.exists()  # nothing in the file ran


def test_cancel_stops_a_large_read(qtbot: QtBot, loader: SnapshotLoader, large_file: Path) -> None:
    with qtbot.waitSignal(loader.progressed, timeout=20_000):
        loader.start(large_file)
    started = time.perf_counter()
    with qtbot.waitSignal(loader.cancelled, timeout=20_000), qtbot.assertNotEmitted(loader.loaded):
        loader.cancel()
    assert time.perf_counter() - started < 2.0  # the read checks every pickle chunk and every stage
    assert not loader.is_busy()


def test_the_event_loop_turns_while_a_large_snapshot_loads(
    qtbot: QtBot, loader: SnapshotLoader, large_file: Path
) -> None:
    ticks: list[float] = []
    timer = QTimer()
    timer.setInterval(10)
    timer.timeout.connect(lambda: ticks.append(time.perf_counter()))
    timer.start()
    started = time.perf_counter()
    with qtbot.waitSignal(loader.loaded, timeout=60_000):
        loader.start(large_file)
    took = time.perf_counter() - started
    timer.stop()
    gaps = [b - a for a, b in zip([started, *ticks], ticks, strict=False)]
    assert took > 0.5  # a real load (a freeze of this length would be felt)
    assert len(ticks) > took / 0.05  # the GUI thread ran at least every 50 ms on average
    # and never waited long: the worker hands the GIL back every pickle chunk, and its progress signals are few
    # enough (PROGRESS_EVERY_S) that Qt's timers are not starved behind them (a signal per per-mille step left
    # gaps of 0.4-0.7 s)
    assert max(gaps) < 0.3


def test_a_second_read_abandons_the_first(qtbot: QtBot, loader: SnapshotLoader, tmp_path: Path,
                                          large_file: Path) -> None:
    second = small(tmp_path)
    outcomes: list[Any] = []
    loader.loaded.connect(outcomes.append)
    loader.cancelled.connect(lambda: outcomes.append("cancelled"))
    loader.start(large_file)
    with qtbot.waitSignal(loader.loaded, timeout=20_000):
        loader.start(second)
    assert [o.report.file for o in outcomes] == [second.name]  # the first read's outcome is never reported
    qtbot.waitUntil(lambda: not _running_jobs(), timeout=20_000)


def test_a_loader_deleted_mid_read_stops_its_thread(qtbot: QtBot, large_file: Path) -> None:
    loader = SnapshotLoader()
    with qtbot.waitSignal(loader.progressed, timeout=20_000):
        loader.start(large_file)
    assert _running_jobs()
    shiboken6.delete(loader)  # a page rebuilt by a language switch
    qtbot.waitUntil(lambda: not _running_jobs(), timeout=10_000)


def _running_jobs() -> list[QThread]:
    import gc

    return [o for o in gc.get_objects() if isinstance(o, snapshot_loader._Job)
            and shiboken6.isValid(o) and o.isRunning()]
