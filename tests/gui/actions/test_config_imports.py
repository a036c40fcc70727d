"""gui.actions.config_imports: File ▸ Import training config through the real action (the file dialog patched):
the scenario becomes what ``engine.config_import.import_configs`` returns, field by field; a DPO / PPO / GRPO /
KTO file opens the Alignment page on its stage; a refused file says one line and changes nothing."""

from __future__ import annotations

import os
import time
from pathlib import Path
from typing import Any

import pytest
from pytestqt.qtbot import QtBot

from engine.alignment import Stage
from engine.catalog import get_gpu, get_model
from engine.config_import import AlignmentMethod, import_configs
from engine.specs import Method, TrainingSetup
from engine.units import Unit
from gui.pages.alignment import AlignmentPage
from gui.shell.main_window import MainWindow

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "training_configs"
#: every training config among the fixtures, alone, plus the combinations their authors run
IMPORTS = [
    ("axolotl/qlora-1b.yml",), ("axolotl/fft-8b.yaml",), ("axolotl/lora-1b-ray.yml",), ("axolotl/dpo.yaml",),
    ("axolotl/deepspeed_configs/zero3.json",),
    ("llama-factory/examples/train_lora/llama3_lora_sft.yaml",),
    ("llama-factory/examples/train_full/llama3_full_sft.yaml",),
    ("llama-factory/examples/train_lora/llama3_lora_dpo.yaml",),
    ("llama-factory/examples/train_qlora/llama3_lora_sft_otfq.yaml",),
    ("llama-factory/examples/deepspeed/ds_z3_config.json",),
    ("torchtune/8B_qlora_single_device.yaml",), ("torchtune/8B_full.yaml",),
    ("alignment-handbook/sft/config_qlora.yaml",), ("alignment-handbook/sft/config_full.yaml",),
    ("alignment-handbook/sft/config_full.yaml", "alignment-handbook/accelerate_configs/deepspeed_zero3.yaml"),
    ("alignment-handbook/accelerate_configs/deepspeed_zero3.yaml",),
    ("trl/example_config.yaml",), ("accelerate/fsdp.yaml",), ("deepspeed/zero_stage2_config.json",),
    ("transformers/training_args.json",),
    ("axolotl/qwen3-8b-fsdp-tp-cp.yaml",), ("axolotl/qwen3_30ba3b_ep_lora_4gpu.yaml",),
    ("llama-factory/examples/megatron/qwen3_moe_full.yaml",),
    ("llama-factory/examples/v1/train_full/train_full_fsdp2.yaml",), ("accelerate/tp_hsdp.yaml",),
]
MINE = get_model("llama-3-8b").model_copy(update={"id": "local/my-model", "num_layers": 7, "hf_repo": None})


@pytest.fixture
def warnings(monkeypatch: pytest.MonkeyPatch) -> list[tuple[str, str]]:
    shown: list[tuple[str, str]] = []
    monkeypatch.setattr("gui.actions.config_imports.QMessageBox.warning",
                        lambda _p, title, text: shown.append((title, text)))
    return shown


def choose(monkeypatch: pytest.MonkeyPatch, *paths: Path) -> None:
    """The file dialog answers with ``paths``."""
    monkeypatch.setattr("gui.actions.config_imports.QFileDialog.getOpenFileNames",
                        lambda *_a, **_k: ([str(p) for p in paths], ""))


def flat(setup: TrainingSetup) -> dict[str, Any]:
    """Every field of a setup by its dotted path (so a mismatch names the field)."""
    out: dict[str, Any] = {}
    for key, value in setup.model_dump(mode="json").items():
        if isinstance(value, dict):
            out |= {f"{key}.{k}": v for k, v in value.items()}
        else:
            out[key] = value
    return out


def write(folder: Path, name: str, text: str) -> Path:
    path = folder / name
    path.write_text(text, encoding="utf-8")
    return path


@pytest.mark.parametrize("names", IMPORTS, ids=lambda n: "+".join(Path(x).name for x in n))
def test_each_fixture_sets_the_scenario_to_what_the_engine_imports(
    window: MainWindow, monkeypatch: pytest.MonkeyPatch, warnings: list[tuple[str, str]], names: tuple[str, ...]
) -> None:
    sc = window.scenario
    sc.update(gpu=get_gpu("h100-80gb"), unit=Unit.GIB)
    before = sc.value
    paths = [FIXTURES / n for n in names]
    expected = import_configs(paths, default_model=before.model)
    choose(monkeypatch, *paths)
    window.actions_by_id["import_config"].trigger()
    assert warnings == []
    assert flat(sc.setup) == flat(expected.setup)
    assert sc.setup == expected.setup
    assert sc.model == expected.model
    assert (sc.gpu, sc.unit) == (before.gpu, before.unit)  # a training config names no GPU
    on_alignment = expected.alignment is AlignmentMethod.DPO
    assert window.pages.current_page_id() == ("alignment" if on_alignment else "memory")
    if on_alignment:
        page = window.pages.page("alignment")
        assert isinstance(page, AlignmentPage)
        assert page.state.value.stage is Stage.DPO
    panel = window.imports.panel
    assert panel is not None
    assert panel.isVisible()


def test_undo_restores_exactly_the_previous_scenario_and_redo_the_import(
    window: MainWindow, monkeypatch: pytest.MonkeyPatch
) -> None:
    sc = window.scenario
    sc.update(model=MINE, gpu=get_gpu("h100-80gb"), unit=Unit.GIB, method=Method.QLORA, seq_len=16384,
              **{"lora.rank": 8})
    before = sc.value
    undo, redo = window.actions_by_id["undo"], window.actions_by_id["redo"]
    assert not undo.isEnabled()
    assert not redo.isEnabled()
    choose(monkeypatch, FIXTURES / "torchtune" / "8B_full.yaml")
    window.actions_by_id["import_config"].trigger()
    imported = sc.value
    assert imported != before
    assert undo.isEnabled()
    assert undo.text() == "&Undo import of 8B_full.yaml"
    undo.trigger()
    assert sc.value == before
    assert not undo.isEnabled()
    assert redo.isEnabled()
    redo.trigger()
    assert sc.value == imported


def test_undo_after_reset_and_after_opening_a_scenario(window: MainWindow, tmp_path: Path) -> None:
    sc = window.scenario
    sc.update(model=MINE, seq_len=8192)
    mine = sc.value
    path = tmp_path / "mine.vramlab.json"
    assert window.files.save_path(path)
    window.actions_by_id["reset"].trigger()
    assert sc.value != mine
    window.actions_by_id["undo"].trigger()
    assert sc.value == mine
    window.actions_by_id["reset"].trigger()
    reset = sc.value
    assert window.files.open_path(path)
    assert sc.value == mine
    assert window.actions_by_id["undo"].text() == "&Undo opening mine.vramlab.json"
    window.actions_by_id["undo"].trigger()
    assert sc.value == reset


def test_a_slider_move_is_not_a_step(window: MainWindow) -> None:
    window.scenario.update(seq_len=2048)
    assert not window.history.can_undo()


def test_a_refused_file_says_one_line_and_changes_nothing(
    window: MainWindow, monkeypatch: pytest.MonkeyPatch, warnings: list[tuple[str, str]], tmp_path: Path
) -> None:
    before = window.scenario.value
    path = write(tmp_path, "gptq.yml", "base_model: meta-llama/Llama-3.2-1B\ngptq: true\n"
                                      "adapter: lora\nsequence_len: 2048\nmicro_batch_size: 1\n")
    choose(monkeypatch, path)
    window.actions_by_id["import_config"].trigger()
    assert len(warnings) == 1
    _title, text = warnings[0]
    line = text.split("\n\n")[0]
    assert "\n" not in line
    assert "Traceback" not in text
    assert line == "gptq.yml: gptq: a GPTQ-quantized base is not a method VRAM Lab costs"
    assert text.endswith("Nothing was changed.")
    assert window.scenario.value == before
    assert not window.history.can_undo()
    assert window.imports.panel is None


def test_a_layout_the_model_cannot_take_is_refused_in_one_line(
    window: MainWindow, warnings: list[tuple[str, str]], tmp_path: Path
) -> None:
    """Expert parallelism on a model the files do not name, kept as the current dense one: the import refuses it
    naming the file and the key (before, the scenario's own layout check raised out of the import)."""
    before = window.scenario.value
    path = write(tmp_path, "ep.yml", "base_model: /nowhere/my-own-moe\nexpert_parallel_size: 4\nsequence_len: 1024\n"
                                     "micro_batch_size: 1\n")
    assert not window.imports.import_paths([path])
    line = warnings[0][1].split("\n\n")[0]
    assert line.startswith("ep.yml: expert_parallel_size: ")
    assert "needs a mixture-of-experts model" in line
    assert window.scenario.value == before


def test_a_fifo_is_refused_at_once(
    window: MainWindow, warnings: list[tuple[str, str]], tmp_path: Path
) -> None:
    fifo = tmp_path / "config.yaml"
    os.mkfifo(fifo)
    before = window.scenario.value
    start = time.monotonic()
    assert not window.imports.import_paths([fifo])
    assert time.monotonic() - start < 1.0
    assert "not a regular file" in warnings[0][1]
    assert window.scenario.value == before


@pytest.mark.parametrize("name", ["/nowhere/my-own-model", "someorg/my-own-model"])  # a path elsewhere, a Hub id
def test_an_unknown_model_keeps_the_current_one_and_says_so(
    window: MainWindow, warnings: list[tuple[str, str]], tmp_path: Path, name: str
) -> None:
    path = write(tmp_path, "mine.yml", f"base_model: {name}\nadapter: lora\nlora_r: 8\n"
                                       "sequence_len: 1024\nmicro_batch_size: 1\n")
    assert window.imports.import_paths([path])
    assert warnings == []
    assert window.scenario.model == get_model("llama-2-7b")
    assert window.scenario.setup.lora.rank == 8
    panel = window.imports.panel
    assert panel is not None
    assert panel.view is not None
    assert any(name in n and "Llama 2 7B" in n for n in panel.view.notes)


@pytest.mark.parametrize(
    ("text", "stage"),
    [("rl: grpo\n", Stage.GRPO), ("rl: kto\n", Stage.DPO), ("rl: dpo\n", Stage.DPO), ("rl: orpo\n", None)],
)
def test_an_alignment_file_opens_its_stage(
    window: MainWindow, tmp_path: Path, text: str, stage: Stage | None
) -> None:
    path = write(tmp_path, "rl.yml", "base_model: Qwen/Qwen2.5-0.5B\nsequence_len: 1024\nmicro_batch_size: 1\n"
                                     + text)
    page = window.pages.page("alignment")
    assert isinstance(page, AlignmentPage)
    page.select(Stage.SFT)
    assert window.imports.import_paths([path])
    assert window.pages.current_page_id() == ("memory" if stage is None else "alignment")
    assert page.state.value.stage is (Stage.SFT if stage is None else stage)
    panel = window.imports.panel
    assert panel is not None
    assert panel.view is not None
    assert len(panel.view.notes) == 1  # where the method is drawn, and how near that is


def test_a_ppo_file_opens_the_ppo_stage(window: MainWindow, tmp_path: Path) -> None:
    path = write(tmp_path, "ppo.yaml", "stage: ppo\nmodel_name_or_path: meta-llama/Meta-Llama-3-8B-Instruct\n"
                                       "finetuning_type: lora\ncutoff_len: 1024\ndo_train: true\n")
    assert window.imports.import_paths([path])
    page = window.pages.page("alignment")
    assert isinstance(page, AlignmentPage)
    assert window.pages.current_page_id() == "alignment"
    assert page.state.value.stage is Stage.PPO


def test_the_menu_and_the_panel_follow_a_language_switch(qtbot: QtBot, window: MainWindow) -> None:
    assert window.imports.import_paths([FIXTURES / "torchtune" / "8B_full.yaml"])
    window.actions_by_id["lang:zh_TW"].trigger()
    try:
        qtbot.wait(1)
        assert window.actions_by_id["undo"].text() == "復原匯入 8B_full.yaml(&U)"
        assert window.actions_by_id["import_config"].text() == "匯入訓練設定檔(&I)…"
        panel = window.imports.panel
        assert panel is not None
        assert panel.windowTitle() == "匯入的訓練設定檔"
        assert "「記憶體」頁顯示匯入的設定" in panel.shown.text()
    finally:
        window.actions_by_id["lang:en"].trigger()
        qtbot.wait(1)
    assert window.history.can_undo()
