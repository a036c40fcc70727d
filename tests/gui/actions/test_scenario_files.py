"""gui.actions.scenario_files: open / save / recent files / reset on the shared scenario; bad files change nothing."""

from __future__ import annotations

from pathlib import Path

import pytest
from pytestqt.qtbot import QtBot

from engine.catalog import get_gpu, get_model
from engine.specs import Method, TrainingSetup
from engine.units import Unit
from gui.actions.scenario_files import recent_files, scenario_data
from gui.look.theme import ThemeManager
from gui.shell.main_window import MainWindow
from gui.state.scenario import Scenario
from gui.state.scenario_data import defaults

IMPORTED = get_model("llama-3-8b").model_copy(update={"id": "local/my-model", "num_layers": 7, "hf_repo": None})


@pytest.fixture
def warnings(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    shown: list[str] = []
    monkeypatch.setattr("gui.actions.scenario_files.QMessageBox.warning",
                        lambda _p, title, text: shown.append(f"{title}|{text}"))
    return shown


def test_round_trip_through_the_window_with_an_imported_model(window: MainWindow, tmp_path: Path) -> None:
    sc = window.scenario
    sc.update(model=IMPORTED, gpu=get_gpu("h100-80gb"), unit=Unit.GIB, method=Method.QLORA, seq_len=16384,
              **{"lora.rank": 8})
    saved = scenario_data(sc)
    path = tmp_path / "mine.vramlab.json"
    assert window.files.save_path(path)
    window.files.reset()
    assert scenario_data(sc) == defaults()
    assert window.files.open_path(path)
    assert scenario_data(sc) == saved
    picker = window.pages.page("memory").controls.model_picker  # type: ignore[attr-defined]
    assert picker.current_model() == IMPORTED  # the picker lists the imported model
    assert recent_files()[0] == str(path.resolve())
    assert window.files.path == path


@pytest.mark.parametrize(
    ("content", "problem"),
    [("{ not json", "not valid JSON"), ('{"format": "other", "version": 1}', "This is not a VRAM Lab scenario file."),
     ('{"format": "vramlab-scenario", "version": 99}', "saved by a newer version of VRAM Lab")],
)
def test_bad_files_get_a_message_and_change_nothing(
    window: MainWindow, tmp_path: Path, warnings: list[str], content: str, problem: str
) -> None:
    window.scenario.update(method=Method.LORA, batch=4)
    before = scenario_data(window.scenario)
    changes: list[None] = []
    window.scenario.changed.connect(lambda: changes.append(None))
    path = tmp_path / "bad.vramlab.json"
    path.write_text(content, encoding="utf-8")
    assert not window.files.open_path(path)
    assert scenario_data(window.scenario) == before
    assert changes == []
    assert len(warnings) == 1
    assert "Could not open the scenario" in warnings[0]
    assert "bad.vramlab.json" in warnings[0]
    assert problem in warnings[0]
    assert "Nothing was changed." in warnings[0]
    assert recent_files() == []


def test_save_failure_is_reported(window: MainWindow, tmp_path: Path, warnings: list[str]) -> None:
    assert not window.files.save_path(tmp_path / "no-such-folder" / "x.vramlab.json")
    assert "Could not save the scenario" in warnings[0]


def test_recent_menu_lists_and_opens(window: MainWindow, tmp_path: Path) -> None:
    paths = [tmp_path / f"s{i}.vramlab.json" for i in range(3)]
    for i, path in enumerate(paths):
        window.scenario.update(batch=i + 1)
        window.files.save_path(path)
    menu = window.actions_by_id["menu:recent"].menu()
    menu.aboutToShow.emit()  # type: ignore[attr-defined]
    actions = menu.actions()  # type: ignore[attr-defined]
    assert [a.text() for a in actions] == ["s2.vramlab.json", "s1.vramlab.json", "s0.vramlab.json"]
    actions[-1].trigger()
    assert window.scenario.setup.batch == 1


def test_reset_menu_entry_restores_the_seed_defaults(window: MainWindow) -> None:
    window.scenario.update(model=get_model("llama-2-70b"), unit=Unit.GIB, method=Method.LORA, gpus=8)
    window.actions_by_id["reset"].trigger()
    assert (window.scenario.model.id, window.scenario.gpu.id, window.scenario.unit) == ("llama-2-7b", "a100-80gb",
                                                                                     Unit.GB)
    assert window.scenario.setup == TrainingSetup()


def test_recent_files_survive_a_new_window(qtbot: QtBot, window: MainWindow, tmp_path: Path, theme: ThemeManager
                                           ) -> None:
    window.files.save_path(tmp_path / "kept.vramlab.json")
    again = MainWindow(Scenario(), theme)
    qtbot.addWidget(again)
    menu = again.actions_by_id["menu:recent"].menu()
    assert [a.text() for a in menu.actions()] == ["kept.vramlab.json"]  # type: ignore[attr-defined]
