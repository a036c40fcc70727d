"""Test-suite set-up: offscreen Qt, isolated settings, and no timer or thread left running after a test.

The environment is set before anything imports Qt: without a display and without ``QT_QPA_PLATFORM=offscreen``
``QApplication()`` aborts the whole pytest process. Settings go to a temporary folder (per test), so no test
reads or writes a user's real settings; subprocess tests inherit ``VRAMLAB_SETTINGS_DIR``.
"""

from __future__ import annotations

import atexit
import gc
import os
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
_SESSION_SETTINGS = tempfile.mkdtemp(prefix="vramlab-test-settings-")
atexit.register(shutil.rmtree, _SESSION_SETTINGS, True)
os.environ["VRAMLAB_SETTINGS_DIR"] = _SESSION_SETTINGS
os.environ["XDG_CONFIG_HOME"] = _SESSION_SETTINGS

import pytest  # noqa: E402
import shiboken6  # noqa: E402
from PySide6.QtCore import QCoreApplication, QEvent, QThread, QTimer  # noqa: E402

from gui import settings  # noqa: E402


@pytest.fixture(autouse=True)
def isolated_settings(tmp_path: Path) -> Iterator[Path]:
    """Every test gets its own, empty settings folder."""
    folder = tmp_path / "settings"
    folder.mkdir()
    settings.redirect(str(folder))
    yield folder
    settings.redirect(_SESSION_SETTINGS)


@pytest.fixture(autouse=True)
def empty_hf_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Every test sees an empty Hugging Face cache of its own, never the machine's (engine.catalog.local)."""
    folder = tmp_path / "hf-hub-cache"
    folder.mkdir()
    monkeypatch.setenv("HF_HUB_CACHE", str(folder))
    return folder


def _live(kind: type) -> list[object]:
    return [o for o in gc.get_objects() if isinstance(o, kind) and shiboken6.isValid(o)]


def leaked_timers_and_threads() -> list[str]:
    """Descriptions of active ``QTimer``s and running ``QThread``s that Python still knows about."""
    if QCoreApplication.instance() is None:
        return []
    QCoreApplication.sendPostedEvents(None, QEvent.Type.DeferredDelete)
    found = [f"active QTimer {t!r} (interval {t.interval()} ms)" for t in _live(QTimer) if t.isActive()]  # type: ignore[attr-defined]
    found += [f"running QThread {t!r}" for t in _live(QThread) if t.isRunning()]  # type: ignore[attr-defined]
    return found


@pytest.fixture(autouse=True)
def no_leaked_timers_or_threads() -> Iterator[None]:
    """Fail a test that leaves a timer active or a thread running (after its widgets were closed)."""
    yield
    leaks = leaked_timers_and_threads()
    for obj in _live(QTimer):
        obj.stop()  # type: ignore[attr-defined]
    if leaks:
        pytest.fail("test left Qt work running: " + "; ".join(leaks), pytrace=False)
