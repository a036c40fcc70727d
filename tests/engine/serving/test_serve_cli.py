"""``python -m engine serve``: the flags and JSON keys of issue 28 are a contract, and bad input is one line, exit 2."""

from __future__ import annotations

import json
from typing import Any

import pytest

from engine.cli import main

CONTRACT_KEYS = ("kv_cache_bytes", "kv_cache_tokens", "max_concurrency", "kv_bytes_per_token", "weights_bytes",
                 "activation_peak_bytes", "non_torch_bytes", "cuda_graph_bytes", "gpu_memory_bytes")


def run_json(capsys: pytest.CaptureFixture[str], *argv: str) -> dict[str, Any]:
    assert main(["serve", *argv, "--json"]) == 0
    data: dict[str, Any] = json.loads(capsys.readouterr().out)
    return data


def test_every_key_with_its_formula_and_source(capsys: pytest.CaptureFixture[str]) -> None:
    data = run_json(capsys, "--model", "llama-3.1-8b", "--gpu", "h100-80gb")
    for key in CONTRACT_KEYS:
        assert isinstance(data[key], int | float), key
    detail = {d["name"]: d for d in data["terms_detail"]}
    for key in CONTRACT_KEYS:
        assert detail[key]["formula"], key
        assert detail[key]["source"], key
        assert detail[key]["detail"], key
        assert detail[key]["value"] == pytest.approx(data[key]), key
    assert data["gpu_memory_bytes"] == round(79.22 * 2**30)
    assert data["log_lines"][-3] == f"GPU KV cache size: {data['kv_cache_tokens']:,} tokens"
    assert data["vllm_version"] == "0.19.1"
    assert data["vllm_engine"] == "v1"


def test_every_flag(capsys: pytest.CaptureFixture[str]) -> None:
    data = run_json(capsys, "--model", "llama-3.1-70b", "--gpu-memory-gib", "79.25", "--tp", "4", "--pp", "2",
                    "--max-model-len", "16384", "--gpu-memory-utilization", "0.85", "--max-num-batched-tokens",
                    "16384", "--max-num-seqs", "128", "--kv-cache-dtype", "fp8", "--weights", "int4-awq",
                    "--enforce-eager", "--vllm-version", "0.8.5", "--vllm-engine", "v0")
    assert (data["tp"], data["pp"], data["max_model_len"]) == (4, 2, 16384)
    assert data["gpu_memory_utilization"] == 0.85
    assert (data["max_num_batched_tokens"], data["max_num_seqs"]) == (16384, 128)
    assert (data["kv_cache_dtype"], data["weights"]) == ("fp8", "int4-awq")
    assert data["cuda_graph_bytes"] == 0
    assert (data["vllm_version"], data["vllm_engine"]) == ("0.8.5", "v0")
    assert data["gpu_memory_bytes"] == round(79.25 * 2**30)
    assert data["kv_bytes_per_token"] == 40 * 2 * 2 * 128  # stage 0's 40 layers, 2 KV heads per GPU, fp8
    assert data["requested_bytes"] == int(data["gpu_memory_bytes"] * 0.85)


@pytest.mark.parametrize("weights", ["bf16", "fp16", "fp8", "int8", "int4-gptq", "int4-awq", "nf4", "mxfp4",
                                     "gguf-q8_0", "gguf-q4_k_m"])
def test_every_weights_choice(capsys: pytest.CaptureFixture[str], weights: str) -> None:
    data = run_json(capsys, "--model", "qwen3-30b-a3b", "--gpu", "h200", "--weights", weights)
    assert data["weights"] == weights
    assert data["weights_bytes"] > 0


@pytest.mark.parametrize("dtype", ["auto", "bf16", "fp16", "fp8"])
def test_every_kv_cache_dtype(capsys: pytest.CaptureFixture[str], dtype: str) -> None:
    data = run_json(capsys, "--model", "llama-3.1-8b", "--kv-cache-dtype", dtype)
    assert data["kv_bytes_per_token"] == 32 * 2 * 8 * 128 * (1 if dtype == "fp8" else 2)


def test_a_quantized_repository_is_its_base_in_its_format(capsys: pytest.CaptureFixture[str]) -> None:
    data = run_json(capsys, "--model", "Qwen/Qwen2.5-7B-Instruct-AWQ", "--gpu", "rtx-4090")
    assert (data["model"], data["weights"]) == ("qwen2.5-7b", "int4-awq")
    assert "Qwen/Qwen2.5-7B-Instruct-AWQ" in data["notes"][0]
    assert run_json(capsys, "--model", "openai/gpt-oss-20b")["weights"] == "mxfp4"


def test_the_text_ends_with_the_log(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["serve", "--model", "llama-3.1-8b", "--vllm-version", "0.6.3"]) == 0
    out = capsys.readouterr().out
    assert "vLLM will log:" in out
    assert "# GPU blocks: " in out


@pytest.mark.parametrize(
    ("argv", "message"),
    [(["--tp", "0"], "error: --tp: Input should be greater than or equal to 1"),
     (["--gpu-memory-utilization", "1.5"], "error: --gpu-memory-utilization: Input should be less than or equal"),
     (["--vllm-version", "0.25"], "error: --vllm-version: vLLM 0.25.0 is outside the modelled releases"),
     (["--vllm-version", "0.6.3", "--vllm-engine", "v1"], "error: --vllm-engine: the v1 engine first shipped"),
     (["--weights", "int3"], "error: argument --weights: invalid choice: 'int3'"),
     (["--gpu", "h100", "--gpu-memory-gib", "80"], "error: argument --gpu-memory-gib: not allowed with argument"),
     (["--gpu-memory-gib", "-1"], "error: --gpu-memory-gib: -1 is not a memory size"),
     (["--max-model-len", "999999"], "error: --max-model-len: 999,999 is longer than the model's"),
     (["--model", "nobody/Nothing-7B-AWQ"], "error: unknown model 'nobody/Nothing-7B-AWQ'"),
     (["--model", "bartowski/Meta-Llama-3.1-8B-Instruct-GGUF"], "error: --weights: bartowski/")],
)
def test_bad_input_is_one_line_and_exit_2(capsys: pytest.CaptureFixture[str], argv: list[str], message: str) -> None:
    argv = ["serve", *argv] if "--model" in argv else ["serve", "--model", "llama-3.1-8b", *argv]
    try:
        code = main(argv)
    except SystemExit as stop:  # argparse's own refusals exit from inside
        code = int(stop.code or 0)
    assert code == 2
    err = capsys.readouterr().err
    assert err.startswith(message)
    assert err.count("\n") == 1


def test_a_distill_is_not_its_teachers_format(capsys: pytest.CaptureFixture[str]) -> None:
    """DeepSeek-R1 ships FP8; DeepSeek-R1-Distill-Qwen-14B ships bf16 (a bug took its prefix for the teacher's)."""
    assert run_json(capsys, "--model", "deepseek-r1-distill-qwen-14b")["weights"] == "bf16"
    assert run_json(capsys, "--model", "deepseek-r1", "--gpu", "h200", "--tp", "8")["weights"] == "fp8"


def test_vllms_own_spellings_are_accepted(capsys: pytest.CaptureFixture[str]) -> None:
    """--tensor-parallel-size, --pipeline-parallel-size and --quantization as vLLM spells them."""
    data = run_json(capsys, "--model", "llama-3.1-70b", "--tensor-parallel-size", "4", "--pipeline-parallel-size",
                    "2", "--quantization", "awq_marlin")
    assert (data["tp"], data["pp"], data["weights"]) == (4, 2, "int4-awq")
