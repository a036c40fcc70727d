"""``python -m engine estimate --from-config FILE [...]``: the contract's JSON, typed flags over files, and one-line
refusals with exit status 2."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from engine.cli import main

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "training_configs"
QLORA = str(FIXTURES / "axolotl" / "qlora-1b.yml")


def _json(capsys: pytest.CaptureFixture[str], *argv: str) -> dict[str, object]:
    assert main(["estimate", *argv, "--json"]) == 0
    data: dict[str, object] = json.loads(capsys.readouterr().out)
    return data


def test_the_json_gains_imported_and_the_setup_shows_the_result(capsys):
    d = _json(capsys, "--from-config", QLORA)
    imported = d["imported"]
    assert isinstance(imported, dict)
    assert imported.keys() == {"format", "files", "read", "ignored", "assumed"}
    assert imported["format"] == "axolotl"
    assert imported["files"] == [QLORA]
    assert imported["read"]["lora_r"] == 32
    assert all(set(i) == {"key", "why"} for i in imported["ignored"])
    assert imported["assumed"]["precision"] == "bf16"
    assert d["model"] == "llama-3.2-1b"
    setup = d["setup"]
    assert isinstance(setup, dict)
    assert (setup["method"], setup["seq_len"], setup["batch"], setup["alignment"]) == ("qlora", 2048, 2, None)
    assert setup["lora"]["rank"] == 32


def test_typed_flags_override_every_file_even_at_their_default_value(capsys):
    """--batch 1 is argparse's default too: typing it still overrides the file's micro_batch_size: 2."""
    d = _json(capsys, "--from-config", QLORA, "--batch", "1", "--seq-len", "512", "--lora-rank", "4",
              "--model", "llama-2-7b", "--no-double-quant")
    setup = d["setup"]
    assert isinstance(setup, dict)
    assert (setup["batch"], setup["seq_len"], setup["lora"]["rank"]) == (1, 512, 4)
    assert setup["quant"]["double_quant"] is False
    assert d["model"] == "llama-2-7b"
    imported = d["imported"]
    assert isinstance(imported, dict)
    overridden = {i["key"] for i in imported["ignored"] if "explicitly" in i["why"]}
    assert overridden == {"micro_batch_size", "sequence_len", "lora_r", "base_model"}
    assert "micro_batch_size" not in imported["read"]


def test_layout_flags_apply_to_an_imported_setup(capsys):
    d = _json(capsys, "--from-config", str(FIXTURES / "torchtune" / "8B_full.yaml"), "--tp", "2", "--gpus", "8")
    setup = d["setup"]
    assert isinstance(setup, dict)
    assert (setup["parallel"]["tp"], setup["gpus"]) == (2, 8)
    layout = d["layout"]
    assert isinstance(layout, dict)
    assert layout["dp"] == 4


def test_long_context_flags_override_the_file(capsys):
    d = _json(capsys, "--from-config", str(FIXTURES / "torchtune" / "8B_qlora_single_device.yaml"),
              "--loss", "standard", "--activation-offload")
    setup = d["setup"]
    assert isinstance(setup, dict)
    assert (setup.get("loss", "standard"), setup["activation_offload"]) == ("standard", True)  # defaults left out


def test_an_untyped_flag_leaves_the_file_alone(capsys):
    setup = _json(capsys, "--from-config", QLORA)["setup"]
    assert isinstance(setup, dict)
    assert setup["batch"] == 2  # not argparse's default 1


def test_several_files_combine(capsys):
    d = _json(capsys, "--from-config", str(FIXTURES / "alignment-handbook" / "sft" / "config_full.yaml"),
              "--from-config", str(FIXTURES / "alignment-handbook" / "accelerate_configs" / "deepspeed_zero3.yaml"),
              "--gpus", "8")
    setup = d["setup"]
    assert isinstance(setup, dict)
    assert (setup["sharding"], setup["precision"], setup["gpus"], setup["offload_params"]) == \
        ("zero3", "bf16-mixed", 8, True)
    imported = d["imported"]
    assert isinstance(imported, dict)
    assert imported["format"] == "trl"
    assert len(imported["files"]) == 2


def test_the_alignment_method_reaches_the_setup(capsys):
    setup = _json(capsys, "--from-config", str(FIXTURES / "axolotl" / "dpo.yaml"))["setup"]
    assert isinstance(setup, dict)
    assert setup["alignment"] == "dpo"


def test_text_output_says_where_the_setup_came_from(capsys):
    assert main(["estimate", "--from-config", QLORA]) == 0
    out = capsys.readouterr().out
    assert out.startswith("imported from ")
    assert "(axolotl)" in out
    assert "allocated peak" in out


def test_without_from_config_nothing_changes(capsys):
    d = _json(capsys, "--method", "lora")
    assert "imported" not in d
    setup = d["setup"]
    assert isinstance(setup, dict)
    assert "alignment" not in setup


def _bomb() -> str:
    lines = ['a0: &a0 ["x", "x", "x", "x", "x", "x", "x", "x", "x"]']
    lines += [f"a{i}: &a{i} [" + ", ".join([f"*a{i - 1}"] * 9) + "]" for i in range(1, 9)]
    return "\n".join(lines) + "\n"


@pytest.mark.parametrize(("name", "content", "says"), [
    ("training_args.bin", None, "pickle"),
    ("big.yaml", "# " + "x" * 1_000_001, "too large"),
    ("bomb.yaml", _bomb(), "alias bomb"),
    ("tag.yaml", "a: !!python/object/apply:os.system ['true']\n", "not allowed"),
    ("deep.json", "[" * 5000 + "]" * 5000, "nested too deeply"),
    ("model.yaml", "base_model: tiiuae/falcon-7b\nsequence_len: 512\n", "base_model: tiiuae/falcon-7b"),
    ("opt.yaml", "base_model: gpt2\nsequence_len: 512\noptimizer: lomo\n", "--optimizer"),
    ("other.yaml", "name: x\n", "not a training config"),
    ("missing.yaml", None, "no such file"),
])
def test_refusals_are_one_line_and_exit_2(tmp_path: Path, name: str, content: str | None, says: str):
    path = tmp_path / name
    if content is not None:
        path.write_text(content, encoding="utf-8")
    r = subprocess.run([sys.executable, "-m", "engine", "estimate", "--from-config", str(path), "--json"],
                       capture_output=True, text=True, timeout=60, check=False)
    assert r.returncode == 2
    assert r.stdout == ""
    assert "Traceback" not in r.stderr
    assert len(r.stderr.strip().splitlines()) == 1, r.stderr
    assert says in r.stderr
