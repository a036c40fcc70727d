"""gui.files.scenario_file: the versioned scenario file, round trips, every kind of bad file, atomic saves; no Qt."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from engine.catalog import get_gpu, get_model
from engine.specs import Checkpointing, LoraSpec, Method, ModelSpec, Sharding, TrainingSetup
from engine.units import Unit
from gui.files import scenario_file
from gui.files.scenario_file import FORMAT, VERSION, ScenarioFileError
from gui.state.scenario_data import ScenarioData

REPO = Path(__file__).resolve().parents[3]
SETUP = TrainingSetup(method=Method.LORA, seq_len=8192, batch=2, gpus=4, sharding=Sharding.ZERO3,
                      checkpointing=Checkpointing.FULL, lora=LoraSpec(rank=64, alpha=16.0, dropout=0.05))
IMPORTED = get_model("llama-2-7b").model_copy(update={"id": "my-org/tiny", "name": "Tiny", "num_layers": 3,
                                                      "family": "custom", "hf_repo": None})


def data(model: ModelSpec | None = None) -> ScenarioData:
    return ScenarioData(model=model or get_model("mistral-7b"), setup=SETUP, gpu=get_gpu("h100-80gb"),
                        unit=Unit.GIB)


def test_catalog_round_trip_names_the_catalog_ids(tmp_path: Path) -> None:
    path = tmp_path / "a.vramlab.json"
    scenario_file.save(path, data())
    doc = json.loads(path.read_text(encoding="utf-8"))
    assert (doc["format"], doc["version"]) == (FORMAT, VERSION)
    assert doc["model"] == {"catalog": "mistral-7b"}
    assert doc["gpu"] == {"catalog": "h100-80gb"}
    assert set(doc["setup"]) == set(TrainingSetup.model_fields)  # every setup field is written
    assert scenario_file.load(path) == data()


def test_an_imported_model_is_stored_with_its_architecture(tmp_path: Path) -> None:
    path = tmp_path / "b.vramlab.json"
    scenario_file.save(path, data(IMPORTED))
    doc = json.loads(path.read_text(encoding="utf-8"))
    assert doc["model"]["architecture"]["num_layers"] == 3
    assert scenario_file.load(path).model == IMPORTED


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ('{"format": "vramlab-scenario", "version": 1, "model": ', "not valid JSON (line 1"),
        ("[1, 2]", "not a VRAM Lab scenario"),
        ('{"format": "something-else", "version": 1}', "not a VRAM Lab scenario (format 'something-else'"),
        ('{"format": "vramlab-scenario", "version": 2}', "newer VRAM Lab (scenario version 2"),
        ('{"format": "vramlab-scenario", "version": "1"}', "version: '1' is not a scenario version"),
        ('{"format": "vramlab-scenario", "version": 1, "model": {"catalog": "gpt-9"}, "gpu": {"catalog": "a100-80gb"}}',
         "model: unknown model 'gpt-9'"),
        ('{"format": "vramlab-scenario", "version": 1, "model": {"catalog": "llama-2-7b"}, '
         '"gpu": {"catalog": "a100-80gb"}, "setup": {"seq_len": 0}}', "setup.seq_len: Input should be greater"),
        ('{"format": "vramlab-scenario", "version": 1, "model": {"catalog": "llama-2-7b"}, '
         '"gpu": {"catalog": "a100-80gb"}, "unit": "TB"}', "unit: 'TB' is not one of"),
        ('{"format": "vramlab-scenario", "version": 1, "model": {"architecture": {"id": "x"}}, '
         '"gpu": {"catalog": "a100-80gb"}}', "model.architecture.vocab_size: Field required"),
        # a layout the model cannot take: the engine's rule (engine.training.layout), named
        ('{"format": "vramlab-scenario", "version": 1, "model": {"catalog": "llama-2-7b"}, '
         '"gpu": {"catalog": "a100-80gb"}, "setup": {"gpus": 3, "parallel": {"tp": 3}}}',
         "setup: tp (3) must divide the attention heads (32)"),
    ],
)
def test_bad_files_name_the_problem(tmp_path: Path, text: str, problem: str) -> None:
    path = tmp_path / "bad.vramlab.json"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(ScenarioFileError) as err:
        scenario_file.load(path)
    assert problem in str(err.value)
    kinds = {"not valid JSON": "corrupt", "not a VRAM Lab": "format", "newer": "newer", "version:": "format"}
    assert err.value.kind == next((k for p, k in kinds.items() if problem.startswith(p) or p in problem), "invalid")


def test_unreadable_and_binary_files(tmp_path: Path) -> None:
    with pytest.raises(ScenarioFileError, match="cannot read it"):
        scenario_file.load(tmp_path / "missing.vramlab.json")
    (tmp_path / "x.vramlab.json").write_bytes(b"\xff\xfe\x00garbage")
    with pytest.raises(ScenarioFileError, match="not a text file"):
        scenario_file.load(tmp_path / "x.vramlab.json")


def test_a_failure_mid_save_leaves_the_old_file_whole(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    folder = tmp_path / "scenarios"
    folder.mkdir()
    path = folder / "keep.vramlab.json"
    scenario_file.save(path, data())
    before = path.read_bytes()

    def crash(_fd: int) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "fsync", crash)
    with pytest.raises(OSError, match="No space left"):
        scenario_file.save(path, data(IMPORTED))
    assert path.read_bytes() == before
    assert [p.name for p in folder.iterdir()] == [path.name]  # no temporary file left behind


def test_a_crash_between_write_and_rename_leaves_the_old_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    folder = tmp_path / "scenarios"
    folder.mkdir()
    path = folder / "keep.vramlab.json"
    scenario_file.save(path, data())
    before = path.read_bytes()
    monkeypatch.setattr(os, "replace", lambda *_a: (_ for _ in ()).throw(KeyboardInterrupt()))
    with pytest.raises(KeyboardInterrupt):
        scenario_file.save(path, data(IMPORTED))
    assert path.read_bytes() == before
    assert [p.name for p in folder.iterdir()] == [path.name]


HEADLESS = r"""
import importlib.abc, sys
class Wall(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in ("PySide6", "shiboken6", "pyqtgraph"):
            raise ImportError(name)
sys.meta_path.insert(0, Wall())
from gui.files import atomic_write, breakdown_table, scenario_file
from gui.state import scenario_data
text = scenario_file.to_json(scenario_data.defaults())
assert scenario_file.from_json(text) == scenario_data.defaults()
print("ok")
"""


def test_file_and_table_logic_need_no_qt() -> None:
    result = subprocess.run([sys.executable, "-c", HEADLESS], cwd=REPO, capture_output=True, text=True, timeout=120,
                            check=False)
    assert result.returncode == 0, result.stderr
