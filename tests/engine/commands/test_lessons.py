"""``python -m engine lessons``: the listing's JSON contract, ``--check`` with the issue's own commands, the flags
that ``--show`` prints for each lesson's start and solution, and unknown ids on one line with exit 2."""

from __future__ import annotations

import json
import subprocess
import sys
from typing import Any

import pytest

from engine.cli import build_parser, main
from engine.commands.lessons import situation_flags, situation_from_args
from engine.lessons import Lesson, Situation, lessons

ALL = lessons()


def run_json(capsys: pytest.CaptureFixture[str], *argv: str) -> dict[str, Any]:
    """The command's JSON; a check exits 1 exactly when its goal is not met, anything else exits 0."""
    status = main(["lessons", *argv, "--json"])
    data: dict[str, Any] = json.loads(capsys.readouterr().out)
    assert status == (1 if data.get("passed") is False else 0)
    return data


def test_the_list_is_the_contract(capsys: pytest.CaptureFixture[str]) -> None:
    listed = run_json(capsys)["lessons"]
    assert len(listed) >= 10
    for item in listed:
        assert set(item) == {"id", "title", "page", "goal"}
        assert set(item["title"]) == {"en", "zh_TW"}
        assert item["page"] in {"memory", "attention", "levers", "alignment", "serving"}
    first = next(x for x in listed if x["id"] == "fit-7b-24gb")
    assert first["goal"]["all"][0] == {"fits": True}


def test_the_issues_done_when(capsys: pytest.CaptureFixture[str]) -> None:
    base = ["--check", "fit-7b-24gb", "--model", "llama-2-7b", "--gpu", "rtx-4090"]
    failed = run_json(capsys, *base)
    assert set(failed) == {"passed", "why"}
    assert failed["passed"] is False
    assert failed["why"].startswith("Does not fit: the device total, 130.21 GB")
    passed = run_json(capsys, *base, "--method", "qlora", "--checkpointing", "full")
    assert passed["passed"] is True
    assert passed["why"].startswith("Fits: the device total, 10.09 GB")  # hf-trainer QLoRA: PEFT's fp32 preparation


def test_unspecified_flags_are_the_commands_defaults_not_the_lessons_start(capsys: pytest.CaptureFixture[str]) -> None:
    # no --gpu: the estimate's A100 80GB, which is no 24 GB GPU, even with the solution's flags
    result = run_json(capsys, "--check", "fit-7b-24gb", "--method", "qlora", "--checkpointing", "full")
    assert result == {"passed": False, "why": "GPU memory: 85.09 GB, above 25.77 GB."}


def test_why_in_chinese(capsys: pytest.CaptureFixture[str]) -> None:
    result = run_json(capsys, "--check", "gqa-70b-kv-cache", "--model", "llama-2-70b", "--lang", "zh_TW")
    assert result["passed"] is True
    assert result["why"] == "參數量：68.98B，高於 60.00B；每條序列的 KV cache：1.34 GB，低於 3.36 GB。"


@pytest.mark.parametrize("lesson", ALL, ids=[x.id for x in ALL])
def test_start_and_solution_as_flags(lesson: Lesson, capsys: pytest.CaptureFixture[str]) -> None:
    shown = run_json(capsys, "--show", lesson.id)
    assert shown["id"] == lesson.id
    assert shown["hints"]
    assert shown["explanation"]["facts"]
    for flags, expected, passed in ((shown["start_flags"], lesson.start_situation(), False),
                                    (shown["solution_flags"], lesson.solution_situation(), True)):
        assert parsed(flags) == expected
        assert run_json(capsys, "--check", lesson.id, *flags)["passed"] is passed


def parsed(flags: list[str]) -> Situation:
    return situation_from_args(build_parser().parse_args(["lessons", *flags]))


def test_flags_round_trip_every_setting_a_flag_reaches() -> None:
    argv = ["--model", "qwen2.5-7b", "--gpu", "h100-80gb", "--method", "qlora", "--precision", "bf16",
            "--optimizer", "paged-adamw-8bit", "--batch", "2", "--seq-len", "2048", "--grad-accum", "4",
            "--attention", "eager", "--checkpointing", "full", "--gpus", "4", "--sharding", "zero3",
            "--offload-optimizer", "--offload-params", "--lora-rank", "8", "--lora-alpha", "16",
            "--lora-dropout", "0.05", "--lora-targets", "qv", "--quant", "fp4", "--no-double-quant",
            "--tokens", "8192", "--dtype", "fp8", "--sequences", "3", "--serving-tp", "2",
            "--weight-dtype", "int4-awq", "--gpu-memory-utilization", "0.8", "--max-num-batched-tokens", "4096",
            "--max-num-seqs", "64", "--enforce-eager", "--vllm-version", "0.8.5", "--vllm-engine", "v0",
            "--separate-reference",
            "--dpo-precomputed-reference", "--grpo-kl", "0", "--grpo-reward-model", "--rollout-share", "0.2",
            "--step", "softmax"]
    s = parsed(argv)
    assert parsed(situation_flags(s)) == s
    assert sorted(situation_flags(s)) == sorted(argv)
    argv = ["--gpus", "16", "--tp", "2", "--pp", "4", "--sequence-parallel", "--micro-batches", "8",
            "--pp-schedule", "interleaved", "--virtual-stages", "2", "--pp-layers", "8,8,8,8", "--cp", "2"]
    s = parsed(argv)
    assert parsed(situation_flags(s)) == s
    assert sorted(situation_flags(s)) == sorted(argv)


@pytest.mark.parametrize("argv", [["--check", "fit-7b-24g"], ["--show", "nope"],
                                  ["--check", "fit-7b-24gb", "--step", "logits"],
                                  ["--check", "fit-7b-24gb", "--sequences", "0"]])
def test_bad_input_is_one_line_and_exit_2(argv: list[str]) -> None:
    r = subprocess.run([sys.executable, "-m", "engine", "lessons", *argv], capture_output=True, text=True,
                       check=False)
    assert r.returncode == 2
    assert "Traceback" not in r.stderr
    assert len(r.stderr.strip().splitlines()) == 1, r.stderr


def test_an_unknown_id_names_the_closest(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["lessons", "--check", "fit-7b-24g"]) == 2
    assert capsys.readouterr().err == "error: unknown lesson 'fit-7b-24g'; closest: fit-7b-24gb, full-7b-one-80gb\n"


def test_the_done_when_as_a_script_sees_it() -> None:
    """The issue's two commands as a shell runs them: the goal not met exits 1, met exits 0, text on stdout."""
    base = [sys.executable, "-m", "engine", "lessons", "--check", "fit-7b-24gb", "--model", "llama-2-7b",
            "--gpu", "rtx-4090"]
    failed = subprocess.run(base, capture_output=True, text=True, check=False)
    assert (failed.returncode, failed.stderr) == (1, "")
    assert failed.stdout.startswith("not yet: Does not fit")
    passed = subprocess.run([*base, "--method", "qlora", "--checkpointing", "full"], capture_output=True, text=True,
                            check=False)
    assert (passed.returncode, passed.stderr) == (0, "")
    assert passed.stdout.startswith("passed: Fits")
