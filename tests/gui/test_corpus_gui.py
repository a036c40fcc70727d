"""The corpus of malformed inputs in the window (issue 17): File > Open of a scenario the app cannot use, and the
memory page's config.json import, each show one message naming the file and the field, within a second, and
leave the scenario and the pages as they were.

The same stored files as ``tests/test_corpus.py`` (``tests/corpus/cases.json``) plus special files made here.
Each group runs in one window (building a window per case would cost a minute); every case is tried and the
failures are reported together. A second set of scenarios are valid but once broke pages: they must load and
every page must build and recompute without an error, with the controls showing the state's values.
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Any

import pytest
from pytestqt.qtbot import QtBot

from engine.catalog import get_gpu, get_model
from gui.look.theme import ThemeManager
from gui.pages import PAGE_IDS
from gui.pages.contract import Page
from gui.shell.main_window import MainWindow
from gui.state.scenario import Scenario
from tests.test_corpus import (
    CASES,
    CONFIG,
    CORPUS,
    CPU_S,
    DEEP,
    SCENARIO,
    TIMEOUT_S,
    _header_file,
    alarm,
    special_scenarios,
)


@pytest.fixture
def window(qtbot: QtBot, theme: ThemeManager) -> MainWindow:
    win = MainWindow(Scenario(), theme, initial_page="serving")
    qtbot.addWidget(win)
    win.resize(1100, 700)
    win.show()
    win.pages.page("memory")
    return win


def snapshot(win: MainWindow) -> tuple[Any, str, dict[str, dict[str, Any]], str]:
    """What must not change: the scenario, the page on top, each page's own state, the memory page's headline."""
    memory: Any = win.pages.page("memory")
    memory.flush()
    return win.scenario.value, win.pages.current_page_id(), win.pages.view_states(), memory.summary.big.text()


def open_refused(win: MainWindow, path: Path, expect: str, monkeypatch: pytest.MonkeyPatch) -> str | None:
    """Open ``path``; the problem, or None when it was refused as it should be."""
    shown: list[str] = []
    monkeypatch.setattr(win.files, "_warn", lambda title, text: shown.append(f"{title}\n{text}"))
    before = snapshot(win)
    start = time.process_time()
    with alarm(TIMEOUT_S):
        opened = win.files.open_path(path)
    cpu = time.process_time() - start
    problems = []
    if opened:
        problems.append("it was opened")
    if len(shown) != 1:
        problems.append(f"{len(shown)} messages")
    elif path.name not in shown[0] or expect not in shown[0]:
        problems.append(f"the message does not name {path.name} and say {expect!r}: {shown[0]!r}")
    if snapshot(win) != before:
        problems.append("the scenario or a page changed")
    if cpu >= CPU_S:
        problems.append(f"{cpu:.2f} s of CPU")
    return f"{path.name}: {'; '.join(problems)}" if problems else None


def test_every_stored_scenario_is_refused_with_one_message_and_nothing_changed(
    window: MainWindow, monkeypatch: pytest.MonkeyPatch
) -> None:
    window.scenario.update(batch=3)  # a scenario of the user's own, that must survive every refusal
    failures = [open_refused(window, CORPUS / "scenarios" / name, case["expect"], monkeypatch)
                for name, case in CASES["scenarios"].items()]
    assert not [f for f in failures if f], "\n".join(f for f in failures if f)


def test_special_files_are_refused_at_once(window: MainWindow, tmp_path: Path,
                                           monkeypatch: pytest.MonkeyPatch) -> None:
    """A FIFO named ``x.vramlab.json`` blocked the window forever; 100,000 nested arrays raised RecursionError."""
    failures = [open_refused(window, path, expect, monkeypatch)
                for path, expect in special_scenarios(tmp_path).items()]
    assert not [f for f in failures if f], "\n".join(f for f in failures if f)


def _configs(tmp: Path) -> dict[str, tuple[Path, str]]:
    cases = {name: (CORPUS / "configs" / name, case["expect"]) for name, case in CASES["configs"].items()}
    fifo = tmp / "fifo" / "config.json"
    fifo.parent.mkdir()
    os.mkfifo(fifo)
    deep = tmp / "deep" / "config.json"
    deep.parent.mkdir()
    deep.write_text(DEEP)
    header = tmp / "header"
    header.mkdir()
    (header / "config.json").write_text(json.dumps({**json.loads((CORPUS / "configs" / "hidden_size_zero.json")
                                                                 .read_text()), "hidden_size": 512}))
    os.mkfifo(header / "model.safetensors")
    cases.update({"fifo": (fifo, "FIFO"), "deep": (deep, "nested too deeply"), "header": (header, "FIFO")})
    for name, case in CASES["headers"].items():  # a header that is an array, a string, a number... (tracebacks)
        folder = tmp / "headers" / name
        folder.mkdir(parents=True)
        (folder / "config.json").write_text(json.dumps(CONFIG))
        (folder / "model.safetensors").write_bytes(_header_file((CORPUS / "headers" / name).read_bytes()))
        cases[f"headers/{name}"] = (folder, case["expect"])
    return cases


def test_every_bad_config_import_is_said_and_the_model_stays(window: MainWindow, tmp_path: Path,
                                                             monkeypatch: pytest.MonkeyPatch) -> None:
    memory: Any = window.pages.page("memory")
    shown: list[str] = []
    monkeypatch.setattr(memory, "_import_failed", shown.append)
    memory.controls.import_failed.disconnect()
    memory.controls.import_failed.connect(memory._import_failed)
    noted: list[str] = []  # a bad config imported with notes would open a modal box and wait: it fails instead
    monkeypatch.setattr(memory, "_import_noted", noted.append)
    memory.controls.import_noted.disconnect()
    memory.controls.import_noted.connect(memory._import_noted)
    failures = []
    for name, (path, expect) in _configs(tmp_path).items():
        shown.clear()
        before = snapshot(window)
        with alarm(TIMEOUT_S):
            imported = memory.controls.import_config(str(path))
        if imported or len(shown) != 1 or expect not in shown[0] or snapshot(window) != before:
            failures.append(f"{name}: imported={imported} messages={shown!r}")
        elif "\n" in shown[0]:
            failures.append(f"{name}: more than one line: {shown[0]!r}")
    assert not failures, "\n".join(failures)


def _warnings(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Every QMessageBox.warning shown from now on (title and text), none of them modal."""
    from PySide6.QtWidgets import QMessageBox

    shown: list[str] = []

    def warn(_parent: object, title: str, text: str, *_rest: object) -> QMessageBox.StandardButton:
        shown.append(f"{title}\n{text}")
        return QMessageBox.StandardButton.Ok

    monkeypatch.setattr(QMessageBox, "warning", staticmethod(warn))
    return shown


def _refused_by(win: MainWindow, act: Callable[[], object], expect: str, shown: list[str], name: str, *,
                to_page: str | None = None) -> str | None:
    """``act`` refused with one message naming ``name`` and saying ``expect``, nothing changed (but the page on
    top, when the refusal comes from the page ``to_page`` that opens such files)."""
    shown.clear()
    if to_page is not None:
        win.pages.show_page(to_page)
    before = snapshot(win)
    start = time.process_time()
    with alarm(TIMEOUT_S):
        act()
    problems = []
    if len(shown) != 1 or name not in shown[0] or expect not in shown[0]:
        problems.append(f"messages {shown!r}")
    if snapshot(win) != before:
        problems.append("the scenario or a page changed")
    if time.process_time() - start >= CPU_S:
        problems.append("over a second of CPU")
    return f"{name}: {'; '.join(problems)}" if problems else None


def test_every_bad_training_config_is_refused_in_the_window(window: MainWindow,
                                                            monkeypatch: pytest.MonkeyPatch) -> None:
    """File > Import training config, with each stored training config of the corpus."""
    shown = _warnings(monkeypatch)
    kept = {"axolotl_unknown_model.yml"}  # the window keeps the current model and says so (the CLI refuses)
    failures = [_refused_by(window, partial(window.imports.import_paths, [CORPUS / "training" / name]),
                            case["expect"], shown, name) for name, case in CASES["training"].items()
                if name not in kept]
    assert not [f for f in failures if f], "\n".join(f for f in failures if f)


def test_special_files_dropped_on_the_window_are_refused_at_once(window: MainWindow, tmp_path: Path,
                                                                monkeypatch: pytest.MonkeyPatch) -> None:
    """A FIFO, a folder, a link loop or a device dropped on the window: one line, nothing waits."""
    shown = _warnings(monkeypatch)
    model = tmp_path / "model"
    model.mkdir()
    os.mkfifo(model / "config.json")
    drops = {**special_scenarios(tmp_path), model: "FIFO"}
    drops[tmp_path / "folder.vramlab.json"] = "no config.json"  # a folder is a model folder to the drop
    failures = [_refused_by(window, partial(window.drops.route, [path]), expect, shown, path.name,
                            to_page="memory" if path == model else None)  # a model opens on the memory page
                for path, expect in drops.items()]
    assert not [f for f in failures if f], "\n".join(f for f in failures if f)


# -- valid scenarios that once broke pages ---------------------------------------------------------------------
def _valid(**fields: Any) -> dict[str, Any]:
    return {**SCENARIO, **fields}


BROKE_PAGES: dict[str, dict[str, Any]] = {
    # the documented form of a GPU not in the catalog: every refresh raised in gui/state/binding.py (values.index)
    "own_gpu": _valid(gpu={"spec": {**get_gpu("h100-80gb").model_dump(mode="json"), "id": "mine", "name": "Mine"}}),
    # DPO trains on 2 x batch pairs: the alignment page raised past the batch bound
    "batch_4096": _valid(setup={"batch": 4096, "seq_len": 128}),
    # the engine's bounds, past the GUI's windows: the spin boxes showed 131,072, 64 and 512
    "engine_maxima": _valid(setup={"seq_len": 1_048_576, "gpus": 65_536, "method": "lora", "lora": {"rank": 4096},
                                   "sharding": "zero3"}),
    # a GPU of one byte: the log axes and the serving page
    "gpu_one_byte": _valid(gpu={"spec": {**get_gpu("h100-80gb").model_dump(mode="json"), "id": "tiny",
                                         "name": "Tiny", "memory_bytes": 1, "context_bytes": 0}}),
    # an imported architecture of the shortest id
    "architecture": _valid(model={"architecture": {**get_model("gpt2").model_dump(mode="json"), "id": "x"}}),
}


def _build_every_page(win: MainWindow) -> None:
    for page_id in PAGE_IDS:
        win.pages.show_page(page_id)
        page = win.pages.currentWidget()
        if isinstance(page, Page):
            page.flush()


def _spin_values(win: MainWindow) -> dict[str, int]:
    controls: Any = win.pages.page("memory")
    c = controls.controls
    return {"seq_len": c.seq_spin.value(), "gpus": c.gpus_spin.value(), "lora.rank": c.rank.value(),
            "batch": c.batch_spin.value()}


@pytest.mark.parametrize("name", sorted(BROKE_PAGES))
def test_a_valid_scenario_builds_every_page_and_the_controls_show_its_values(
    name: str, window: MainWindow, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / f"{name}.vramlab.json"
    path.write_text(json.dumps(BROKE_PAGES[name]))
    warned: list[str] = []
    monkeypatch.setattr(window.files, "_warn", lambda title, text: warned.append(text))
    assert window.files.open_path(path), warned
    _build_every_page(window)  # qtbot fails the test on any error raised in the pages
    s = window.scenario.setup
    assert _spin_values(window) == {"seq_len": s.seq_len, "gpus": s.gpus, "lora.rank": s.lora.rank, "batch": s.batch}
    serving: Any = window.pages.page("serving")
    assert serving.controls.gpu_box.currentText() == window.scenario.gpu.name


def test_presentation_mode_after_a_scenario_with_its_own_gpu(window: MainWindow, tmp_path: Path) -> None:
    """Its own GPU made the serving page unbuildable, and the rebuild of presentation mode builds it again."""
    path = tmp_path / "own.vramlab.json"
    path.write_text(json.dumps(BROKE_PAGES["own_gpu"]))
    assert window.files.open_path(path)
    rebuild: Callable[[], None] = window.presentation.toggle
    rebuild()
    rebuild()
    assert window.scenario.gpu.name == "Mine"
