"""``python -m engine estimate``'s host-RAM flags, its ``host`` JSON object and text section (issue 20's contract)."""

from __future__ import annotations

import json
import subprocess
import sys
from typing import Any

import pytest

from engine.cli import main
from engine.training.host import CUDA_HOST_BYTES, RUNTIME_CPU_BYTES

P70 = 68_976_648_192
R = RUNTIME_CPU_BYTES + CUDA_HOST_BYTES
TERMS = ["model_loading", "dataset", "dataloader_workers", "pinned_buffers", "offloaded_states", "runtime"]


def run_json(capsys: pytest.CaptureFixture[str], *argv: str) -> dict[str, Any]:
    assert main(["estimate", *argv, "--json"]) == 0
    data: dict[str, Any] = json.loads(capsys.readouterr().out)
    return data


def test_host_object_has_the_contract_keys(capsys: pytest.CaptureFixture[str]) -> None:
    d = run_json(capsys)
    h = d["host"]
    assert h.keys() >= {"per_node_bytes", "per_process_bytes", "processes_per_node", "terms", "terms_detail"}
    assert list(h["terms"]) == TERMS
    assert [t["name"] for t in h["terms_detail"]] == TERMS
    assert all(t["formula"] and t["source"] for t in h["terms_detail"])
    assert sum(h["terms"].values()) == h["per_node_bytes"] == d["host_bytes"]
    assert "host" not in d["setup"]  # a later field, left out of the setup while at its defaults
    assert h["verdict"] is None
    assert h["fits"] is None


def test_every_host_flag_is_accepted(capsys: pytest.CaptureFixture[str]) -> None:
    d = run_json(capsys, "--model", "llama-2-70b", "--gpus", "16", "--sharding", "zero3", "--nodes", "2",
                 "--model-loading", "meta-sharded", "--dataset-tokens", "1000000000", "--dataset-storage",
                 "numpy", "--num-workers", "4", "--prefetch-factor", "3", "--pin-memory", "--host-ram-gb", "512")
    h = d["host"]
    assert h["processes_per_node"] == 8
    assert h["nodes"] == 2
    assert d["setup"]["host"] == {"model_loading": "meta-sharded", "dataset_tokens": 10**9,
                                  "dataset_storage": "numpy", "num_workers": 4, "prefetch_factor": 3,
                                  "pin_memory": True, "nodes": 2, "ram_bytes": 512 * 10**9}
    assert h["terms"]["dataset"] == 8 * 4 * 10**9  # int32, a copy per process
    assert h["ram_bytes"] == 512 * 10**9
    assert h["verdict"] in {"fits", "tight", "over"}
    assert h["headroom_bytes"] == 512 * 10**9 - h["per_node_bytes"]


def test_the_seventy_b_offload_is_one_unsharded_copy_per_node(capsys: pytest.CaptureFixture[str]) -> None:
    d = run_json(capsys, "--model", "meta-llama/Llama-2-70b-hf", "--gpus", "8", "--sharding", "zero3",
                 "--offload-optimizer")
    assert d["host"]["terms"]["offloaded_states"] == 16 * P70
    assert d["host_bytes"] == 16 * P70 + 8 * R


def test_host_ram_verdict_says_short_by(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["estimate", "--host-ram-gb", "8"]) == 0
    out = capsys.readouterr().out
    assert "host RAM per node (1 process(es) on each of 1 node(s)), peak while loading" in out
    assert "model_loading" in out
    assert "of 8.00 GB: short by" in out
    d = run_json(capsys, "--host-ram-gb", "8")
    assert d["host"]["fits"] is False
    assert d["host"]["verdict"] == "over"


@pytest.mark.parametrize(
    "argv",
    [["--nodes", "3", "--gpus", "8"], ["--num-workers", "-1"], ["--dataset-tokens", "-5"],
     ["--prefetch-factor", "0"], ["--host-ram-gb", "0"], ["--host-ram-gb", "nan"], ["--host-ram-gb", "lots"],
     ["--dataset-storage", "csv"], ["--model-loading", "lazy"], ["--nodes", "0"]],
)
def test_bad_host_arguments_one_line_exit_2(argv: list[str]) -> None:
    r = subprocess.run([sys.executable, "-m", "engine", "estimate", *argv], capture_output=True, text=True,
                       check=False)
    assert r.returncode == 2
    assert "Traceback" not in r.stderr
    assert len(r.stderr.strip().splitlines()) == 1, r.stderr
