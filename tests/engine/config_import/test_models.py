"""The model a config names: the catalog, its mirrors and fine-tuned variants, a local config.json, or a refusal."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from engine.catalog import get_model
from engine.config_import.models import catalog_match
from engine.config_import.report import ConfigRefusedError


@pytest.mark.parametrize(("name", "model_id", "exact"), [
    ("llama-3.1-8b", "llama-3.1-8b", True),
    ("meta-llama/Llama-3.1-8B", "llama-3.1-8b", True),
    ("NousResearch/Llama-2-7b-hf", "llama-2-7b", False),  # a mirror
    ("meta-llama/Meta-Llama-3-8B-Instruct", "llama-3-8b", False),
    ("meta-llama/Llama-2-7b-chat-hf", "llama-2-7b", False),
    ("unsloth/Meta-Llama-3.1-8B-Instruct", "llama-3.1-8b", False),
    ("Qwen/Qwen2.5-7B-Instruct", "qwen2.5-7b", False),
    ("google/gemma-2-9b-it", "gemma-2-9b", False),
    ("mistralai/Mistral-7B-Instruct-v0.1", "mistral-7b", False),
    ("/tmp/Meta-Llama-3.1-8B-Instruct/", "llama-3.1-8b", False),  # torchtune's checkpoint_dir
])
def test_catalog_matches(name: str, model_id: str, exact: bool) -> None:
    found = catalog_match(name)
    assert found is not None
    assert (found[0].id, found[1]) == (model_id, exact)


@pytest.mark.parametrize("name", ["mistralai/Mistral-7B-Instruct-v0.2", "TheBloke/Llama-2-7B-GPTQ",
                                  "unsloth/llama-3-8b-bnb-4bit", "Qwen/Qwen2-7B", "HuggingFaceH4/zephyr-7b-beta"])
def test_other_versions_and_quantized_repositories_match_nothing(name: str) -> None:
    assert catalog_match(name) is None


def test_an_unknown_model_is_one_line_naming_key_and_value(imported):
    with pytest.raises(ConfigRefusedError) as info:
        imported({"a.yaml": "base_model: tiiuae/falcon-7b\nsequence_len: 512\n"})
    text = str(info.value)
    assert text.startswith("a.yaml: base_model: tiiuae/falcon-7b is not a model VRAM Lab knows")
    assert "--model" in text
    assert "--config" in text


def test_an_explicit_model_overrides_the_file(imported):
    r = imported({"a.yaml": "base_model: tiiuae/falcon-7b\nsequence_len: 512\n"}, model=get_model("gpt2"))
    assert r.model.id == "gpt2"
    assert any(i.key == "base_model" and "explicitly" in str(i.why) for i in r.report.ignored)


def test_a_local_folder_with_config_json_is_imported(imported, tmp_path: Path):
    folder = tmp_path / "my-model"
    folder.mkdir()
    config = {"model_type": "llama", "vocab_size": 1000, "hidden_size": 64, "num_hidden_layers": 2,
              "num_attention_heads": 4, "intermediate_size": 128}
    (folder / "config.json").write_text(json.dumps(config), encoding="utf-8")
    r = imported({"a.yaml": "base_model: my-model\nsequence_len: 512\n"})  # relative to the config's folder
    assert r.model.hidden_size == 64
    assert r.model.num_layers == 2
    assert "model" not in r.report.assumed


def test_files_naming_no_model_use_the_default_or_refuse(imported):
    r = imported({"ds.json": '{"zero_optimization": {"stage": 3}}'})
    assert r.model.id == "llama-2-7b"
    assert r.report.assumed["model"] == "llama-2-7b"
    with pytest.raises(ConfigRefusedError, match="name no model"):
        imported({"ds2.json": '{"zero_optimization": {"stage": 3}}'}, default_model=None)
