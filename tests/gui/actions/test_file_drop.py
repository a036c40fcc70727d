"""gui.actions.file_drop: files dropped on the window (a QDropEvent with file URLs) go where their kind opens; a
snapshot goes to the Timeline page's opener when the app has one; anything else gets one line."""

from __future__ import annotations

import json
import os
import pickle
import sys
import types
from pathlib import Path

import pytest
from PySide6.QtCore import QMimeData, QPointF, Qt, QUrl
from PySide6.QtGui import QDragEnterEvent, QDropEvent
from PySide6.QtWidgets import QApplication, QWidget
from pytestqt.qtbot import QtBot

from engine.catalog import get_model
from engine.config_import import import_configs
from gui.actions.file_drop import FileDrop, Opener, snapshot_opener
from gui.files import scenario_file
from gui.files.file_kind import FileKind
from gui.shell.main_window import MainWindow
from gui.state import scenario_data

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "training_configs"
LLAMA = {"model_type": "llama", "vocab_size": 32000, "hidden_size": 2048, "intermediate_size": 5632,
         "num_hidden_layers": 22, "num_attention_heads": 32, "num_key_value_heads": 4}


@pytest.fixture
def said(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    lines: list[str] = []
    monkeypatch.setattr("gui.actions.file_drop.QMessageBox.warning", lambda _p, _title, text: lines.append(text))
    return lines


def mime(*paths: Path) -> QMimeData:
    data = QMimeData()
    data.setUrls([QUrl.fromLocalFile(str(p)) for p in paths])
    return data


def drop(qtbot: QtBot, target: QWidget, *paths: Path) -> QDropEvent:
    """Drag ``paths`` over ``target`` and drop them there, as the window system would."""
    data = mime(*paths)
    enter = QDragEnterEvent(QPointF(5, 5).toPoint(), Qt.DropAction.CopyAction, data, Qt.MouseButton.LeftButton,
                            Qt.KeyboardModifier.NoModifier)
    QApplication.sendEvent(target, enter)
    assert enter.isAccepted()
    event = QDropEvent(QPointF(5, 5), Qt.DropAction.CopyAction, data, Qt.MouseButton.LeftButton,
                       Qt.KeyboardModifier.NoModifier)
    QApplication.sendEvent(target, event)
    assert event.isAccepted()
    qtbot.wait(1)  # the drop is handled once the drag has ended
    return event


def test_a_training_config_and_its_deepspeed_file_dropped_together(
    qtbot: QtBot, window: MainWindow, said: list[str]
) -> None:
    paths = [FIXTURES / "alignment-handbook/sft/config_full.yaml",
             FIXTURES / "alignment-handbook/accelerate_configs/deepspeed_zero3.yaml"]
    expected = import_configs(paths, default_model=window.scenario.model)
    drop(qtbot, window, *paths)
    assert said == []
    assert window.scenario.setup == expected.setup
    assert window.scenario.model == expected.model
    assert window.pages.current_page_id() == "memory"
    assert window.history.can_undo()


def test_a_drop_on_a_chart_reaches_the_window(qtbot: QtBot, window: MainWindow, said: list[str]) -> None:
    page = window.pages.page("memory")
    chart = page.overview.seq_curve  # type: ignore[attr-defined]  # a pyqtgraph view, which takes drops of its own
    drop(qtbot, chart, FIXTURES / "axolotl/qlora-1b.yml")
    assert window.scenario.model.id == "llama-3.2-1b"


def test_a_model_config_and_a_model_folder(
    qtbot: QtBot, window: MainWindow, said: list[str], tmp_path: Path
) -> None:
    folder = tmp_path / "TinyLlama"
    folder.mkdir()
    (folder / "config.json").write_text(json.dumps(LLAMA))
    window.show_page("levers")
    setup = window.scenario.setup
    drop(qtbot, window, folder / "config.json")
    assert window.scenario.model.id == "TinyLlama"
    assert window.scenario.setup == setup
    assert window.pages.current_page_id() == "memory"
    window.actions_by_id["undo"].trigger()
    assert window.scenario.model == get_model("llama-2-7b")
    drop(qtbot, window, folder)
    assert window.scenario.model.id == "TinyLlama"


def test_a_scenario_file(qtbot: QtBot, window: MainWindow, said: list[str], tmp_path: Path) -> None:
    data = scenario_data.defaults().model_copy(update={"model": get_model("llama-3-8b")})
    path = tmp_path / "mine.vramlab.json"
    scenario_file.save(path, data)
    drop(qtbot, window, path)
    assert window.scenario.value == data
    assert window.files.path == path
    assert window.history.can_undo()


def test_a_snapshot_without_and_with_the_timeline_page(
    qtbot: QtBot, window: MainWindow, said: list[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "snapshot.pickle"
    path.write_bytes(pickle.dumps({"segments": [], "device_traces": [[]]}))
    before = window.scenario.value
    monkeypatch.setitem(sys.modules, "gui.actions.snapshot_open", None)  # no such page in this build
    assert snapshot_opener() is None
    drop(qtbot, window, path)
    assert len(said) == 1
    assert "snapshot.pickle: a PyTorch memory snapshot" in said[0]
    opened: list[tuple[Path, QWidget]] = []
    fake = types.ModuleType("gui.actions.snapshot_open")
    fake.open_snapshot = lambda p, w: opened.append((p, w))  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "gui.actions.snapshot_open", fake)
    drop(qtbot, window, path)
    assert opened == [(path, window)]
    assert window.scenario.value == before


def test_a_registered_opener_wins(qtbot: QtBot, window: MainWindow, said: list[str], tmp_path: Path) -> None:
    path = tmp_path / "snapshot.json"
    path.write_text(json.dumps({"segments": [], "device_traces": []}))
    seen: list[list[Path]] = []
    window.drops.register(FileKind.SNAPSHOT, lambda paths: seen.append(list(paths)))
    drop(qtbot, window, path)
    assert seen == [[path]]


@pytest.mark.parametrize("name", ["notes.txt", "fifo.yaml", "empty-folder"])
def test_anything_else_gets_one_line(
    qtbot: QtBot, window: MainWindow, said: list[str], tmp_path: Path, name: str
) -> None:
    path = tmp_path / name
    if name == "notes.txt":
        path.write_text("just words\n")
    elif name == "fifo.yaml":
        os.mkfifo(path)
    else:
        path.mkdir()
    before = window.scenario.value
    drop(qtbot, window, path)
    assert len(said) == 1
    assert "\n" not in said[0]
    assert said[0].startswith("VRAM Lab opens training configs")
    assert window.scenario.value == before
    assert not window.history.can_undo()


def test_web_links_and_text_are_not_taken(qtbot: QtBot, window: MainWindow) -> None:
    data = QMimeData()
    data.setUrls([QUrl("https://example.com/config.yaml")])
    data.setText("hello")
    enter = QDragEnterEvent(QPointF(5, 5).toPoint(), Qt.DropAction.CopyAction, data, Qt.MouseButton.LeftButton,
                            Qt.KeyboardModifier.NoModifier)
    QApplication.sendEvent(window, enter)
    assert not enter.isAccepted()


def test_the_router_alone(qtbot: QtBot, tmp_path: Path) -> None:
    host = QWidget()
    qtbot.addWidget(host)
    got: list[tuple[FileKind, list[Path]]] = []

    def opener(kind: FileKind) -> Opener:
        return lambda paths: got.append((kind, list(paths)))

    router = FileDrop(host, {k: opener(k) for k in FileKind if k is not FileKind.OTHER})
    assert host.acceptDrops()
    a, b = FIXTURES / "axolotl/qlora-1b.yml", FIXTURES / "deepspeed/zero_stage2_config.json"
    scen = tmp_path / "s.vramlab.json"
    scenario_file.save(scen, scenario_data.defaults())
    assert router.route([a, scen, b]) == [FileKind.TRAINING_CONFIG, FileKind.SCENARIO]
    assert got == [(FileKind.TRAINING_CONFIG, [a, b]), (FileKind.SCENARIO, [scen])]
