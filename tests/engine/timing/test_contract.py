"""Issue 29's contract: ``estimate --json`` gains ``time`` (``step_seconds``, ``tokens_per_second_per_gpu``,
``mfu`` with its convention, ``breakdown``), ``run_hours`` / ``gpu_hours`` with ``--dataset-tokens`` and
``--epochs``, ``cost`` with ``--price-per-gpu-hour``; ``plan --rank time`` ranks by time with tokens/s; a case the
model cannot time says so."""

from __future__ import annotations

import json
from typing import Any

import pytest

from engine.cli import main

BREAKDOWN = {"compute", "memory_bound", "communication_exposed", "bubble", "offload", "overhead"}


def _json(capsys: pytest.CaptureFixture[str], *argv: str) -> dict[str, Any]:
    assert main([*argv, "--json"]) == 0
    data: dict[str, Any] = json.loads(capsys.readouterr().out)
    return data


def test_estimate_has_time(capsys: pytest.CaptureFixture[str]) -> None:
    t = _json(capsys, "estimate", "--model", "llama-3.1-8b", "--gpu", "h100-80gb")["time"]
    assert {"step_seconds", "tokens_per_second_per_gpu", "mfu", "mfu_convention", "breakdown"} <= t.keys()
    assert set(t["breakdown"]) == BREAKDOWN
    assert sum(t["breakdown"].values()) == pytest.approx(t["step_seconds"], rel=1e-9)
    assert t["tokens_per_second_per_gpu"] == pytest.approx(4096 / t["step_seconds"], rel=1e-9)
    assert 0 < t["mfu"] < 1
    assert "run_hours" not in t
    assert "cost" not in t


def test_run_hours_gpu_hours_and_cost(capsys: pytest.CaptureFixture[str]) -> None:
    argv = ("estimate", "--model", "llama-3.1-8b", "--gpu", "h100-80gb", "--gpus", "8", "--sharding", "zero3",
            "--dataset-tokens", "100000000", "--epochs", "2")
    t = _json(capsys, *argv)["time"]
    steps = -(-2 * 100_000_000 // (4096 * 8))
    assert t["steps"] == steps
    assert t["run_hours"] == pytest.approx(steps * t["step_seconds"] / 3600, rel=1e-12)
    assert t["gpu_hours"] == pytest.approx(8 * t["run_hours"], rel=1e-12)
    assert "cost" not in t
    priced = _json(capsys, *argv, "--price-per-gpu-hour", "2.5")["time"]
    assert priced["cost"] == pytest.approx(2.5 * priced["gpu_hours"], rel=1e-12)


@pytest.mark.parametrize(("argv", "message"), [
    (("--epochs", "1"), "--epochs needs --dataset-tokens"),
    (("--dataset-tokens", "1000", "--price-per-gpu-hour", "1"), "--price-per-gpu-hour needs"),
])
def test_run_flags_need_their_dataset(capsys: pytest.CaptureFixture[str], argv: tuple[str, ...], message: str) -> None:
    assert main(["estimate", *argv]) != 0
    assert message in capsys.readouterr().err


def test_a_gpu_without_figures_cannot_be_timed(capsys: pytest.CaptureFixture[str]) -> None:
    d = _json(capsys, "estimate", "--gpu", "m3-max-128gb")
    assert d["time"] == {"error": d["time"]["error"]}
    assert d["time"]["error"].startswith("cannot time Apple M3 Max")
    assert "peak_allocated_bytes" in d  # the memory answer stays


def test_bf16_without_bf16_tensor_cores_cannot_be_timed(capsys: pytest.CaptureFixture[str]) -> None:
    t = _json(capsys, "estimate", "--gpu", "t4", "--model", "qwen2.5-0.5b")["time"]
    assert "no bf16 tensor cores" in t["error"]
    assert "error" not in _json(capsys, "estimate", "--gpu", "t4", "--model", "qwen2.5-0.5b",
                                "--precision", "fp16-mixed")["time"]


def test_plan_rank_time(capsys: pytest.CaptureFixture[str]) -> None:
    argv = ("plan", "--model", "llama-3.1-8b", "--gpu", "a100-80gb", "--max-gpus", "8")
    default = _json(capsys, *argv)
    ranked = _json(capsys, *argv, "--rank", "time")
    assert "time" not in default["layouts"][0]  # the default ranking is today's
    assert ranked["rank"] == "time"
    assert len(ranked["layouts"]) == len(default["layouts"])
    speeds = [r["time"]["tokens_per_second"] for r in ranked["layouts"]]
    assert speeds == sorted(speeds, reverse=True)
    first = ranked["layouts"][0]
    assert first["time"]["tokens_per_second"] == pytest.approx(
        first["time"]["tokens_per_second_per_gpu"] * first["gpus"], rel=1e-12)


def test_text_shows_the_step_time(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["estimate", "--dataset-tokens", "1000000", "--epochs", "1"]) == 0
    out = capsys.readouterr().out
    assert "step time" in out
    assert "tokens/s per GPU" in out
    assert "GPU-hours" in out
