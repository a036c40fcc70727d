"""``python -m engine kv-cache``: the JSON contract."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from engine.cli import main


def test_kv_cache_json(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["kv-cache", "--model", "llama-2-13b", "--tokens", "4096", "--sequences", "3", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["bytes_per_sequence"] == 3_355_443_200
    assert data["bytes_per_token"] == 819_200
    assert data["bytes_total"] == 3 * 3_355_443_200
    assert data["attention"] == "MHA"
    assert "KV heads" in data["formula"]


def test_kv_cache_dtype_and_text(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["kv-cache", "--model", "deepseek-v2-lite", "--tokens", "10", "--dtype", "fp8"]) == 0
    assert "MLA" in capsys.readouterr().out


def test_kv_cache_bad_tokens_is_one_line(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["kv-cache", "--model", "llama-2-7b", "--tokens", "0"]) == 2
    assert capsys.readouterr().err.count("\n") == 1


def test_kv_cache_from_a_config(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Llama 2 70B's config.json (GQA, 8 KV heads): the seed's 1.34 GB."""
    config = {
        "architectures": ["LlamaForCausalLM"], "model_type": "llama", "hidden_size": 8192,
        "intermediate_size": 28672, "num_attention_heads": 64, "num_key_value_heads": 8,
        "num_hidden_layers": 80, "vocab_size": 32000, "max_position_embeddings": 4096,
    }
    path = tmp_path / "config.json"
    path.write_text(json.dumps(config), encoding="utf-8")
    assert main(["kv-cache", "--config", str(path), "--tokens", "4096", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["bytes_per_sequence"] == 1_342_177_280
    assert data["attention"] == "GQA"
