"""The command line: the contract's flags and JSON keys, and one-line errors with exit 2."""

import json
import subprocess
import sys

import pytest

from engine.cli import main

KEYS = {"total_params", "trainable_params", "peak_allocated_bytes", "reserved_bytes", "device_bytes",
        "peak_phase", "host_bytes", "terms"}


def _json(capsys, *argv):
    assert main([*argv, "--json"]) == 0
    return json.loads(capsys.readouterr().out)


def test_estimate_defaults_are_the_seeds(capsys):
    d = _json(capsys, "estimate")
    assert d.keys() >= KEYS
    assert d["total_params"] == 6_738_415_616
    assert d["setup"]["seq_len"] == 4096
    assert d["setup"]["batch"] == 1
    assert d["setup"]["precision"] == "bf16-mixed"
    assert d["setup"]["optimizer"] == "adamw"
    assert sum(d["terms"].values()) == d["peak_allocated_bytes"]


def test_every_contract_flag_is_accepted(capsys):
    d = _json(capsys, "estimate", "--model", "meta-llama/Llama-2-7b-hf", "--method", "lora", "--precision", "bf16",
              "--optimizer", "paged-adamw-8bit", "--batch", "2", "--seq-len", "2048", "--attention", "flash",
              "--checkpointing", "full", "--gpus", "4", "--sharding", "zero3", "--offload-optimizer",
              "--offload-params", "--lora-rank", "8", "--lora-alpha", "16", "--lora-dropout", "0.05",
              "--lora-targets", "qv")
    assert d["trainable_params"] == 32 * 8 * 4 * 4096
    assert d["host_bytes"] > 0


def test_models_lists_the_catalog(capsys):
    d = _json(capsys, "models")
    ids = {m["id"]: m for m in d["models"]}
    assert ids["llama-3.1-8b"]["total_params"] == 8_030_261_248


@pytest.mark.parametrize(
    "argv",
    [["estimate", "--seq-len", "0"], ["estimate", "--model", "nope"], ["estimate", "--method", "x"],
     ["estimate", "--batch", "many"], ["estimate", "--config", "/does/not/exist"],
     ["estimate", "--offload-params"]],
)
def test_bad_arguments_one_line_exit_2(argv):
    r = subprocess.run([sys.executable, "-m", "engine", *argv], capture_output=True, text=True, check=False)
    assert r.returncode == 2
    assert "Traceback" not in r.stderr
    assert len(r.stderr.strip().splitlines()) == 1, r.stderr


def test_weights_breakdown_sums_to_the_weights_term(capsys):
    d = _json(capsys, "estimate", "--method", "qlora", "--gpus", "4", "--sharding", "zero3")
    assert sum(d["weights_breakdown"].values()) == d["terms"]["weights"]
    assert d["weights_breakdown"]["quantized_4bit"] > 0
