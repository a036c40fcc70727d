"""Importing Hugging Face configs: files, folders, the HF cache layout, safetensors headers, bad input."""

import json
import struct

import pytest

from engine.catalog import get_model
from engine.hf_import import ConfigImportError, load_config
from engine.params import count_params

LLAMA2_7B = {
    "model_type": "llama", "vocab_size": 32000, "hidden_size": 4096, "intermediate_size": 11008,
    "num_hidden_layers": 32, "num_attention_heads": 32, "num_key_value_heads": 32,
    "max_position_embeddings": 4096, "tie_word_embeddings": False,
}


def _write(folder, cfg):
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "config.json").write_text(json.dumps(cfg) if isinstance(cfg, dict) else cfg)
    return folder


def _safetensors(path, shapes):
    header = {f"t{i}": {"dtype": "BF16", "shape": s, "data_offsets": [0, 0]} for i, s in enumerate(shapes)}
    raw = json.dumps(header).encode()
    path.write_bytes(struct.pack("<Q", len(raw)) + raw)


def test_config_file_and_folder_give_the_catalog_architecture(tmp_path):
    folder = _write(tmp_path / "llama", LLAMA2_7B)
    for target in (folder, folder / "config.json"):
        m = load_config(target)
        assert count_params(m).total == count_params(get_model("llama-2-7b")).total


def test_hf_cache_layout_names_the_repo(tmp_path):
    snap = _write(tmp_path / "models--meta-llama--Llama-2-7b-hf" / "snapshots" / "abc123", LLAMA2_7B)
    assert snap.exists()
    m = load_config(tmp_path / "models--meta-llama--Llama-2-7b-hf")
    assert m.id == "meta-llama/Llama-2-7b-hf"


def test_safetensors_headers_give_exact_counts(tmp_path):
    folder = _write(tmp_path / "m", LLAMA2_7B)
    _safetensors(folder / "model-00001-of-00002.safetensors", [[32000, 4096], [4096]])
    _safetensors(folder / "model-00002-of-00002.safetensors", [[11008, 4096]])
    assert load_config(folder).published_params == 32000 * 4096 + 4096 + 11008 * 4096


def test_gpt2_style_names(tmp_path):
    cfg = {"model_type": "gpt2", "vocab_size": 50257, "n_embd": 768, "n_layer": 12, "n_head": 12, "n_positions": 1024}
    assert count_params(load_config(_write(tmp_path / "g", cfg))).total == 124_439_808


@pytest.mark.parametrize(
    ("content", "needle"),
    [
        ("{not json", "not valid JSON"),
        ("[1, 2]", "JSON object"),
        (json.dumps({k: v for k, v in LLAMA2_7B.items() if k != "vocab_size"}), "vocab_size"),
        (json.dumps({**LLAMA2_7B, "hidden_size": -5}), "hidden_size"),
        (json.dumps({**LLAMA2_7B, "num_attention_heads": "many"}), "num_heads"),
        (json.dumps({**LLAMA2_7B, "num_key_value_heads": 5}), "num_kv_heads"),
        (json.dumps({**LLAMA2_7B, "num_hidden_layers": 10**9}), "num_layers"),
    ],
)
def test_bad_configs_name_the_problem(tmp_path, content, needle):
    folder = _write(tmp_path / "bad", content)
    with pytest.raises(ConfigImportError, match=needle):
        load_config(folder)


def test_missing_path_and_empty_folder(tmp_path):
    with pytest.raises(ConfigImportError, match="no such file"):
        load_config(tmp_path / "nope")
    with pytest.raises(ConfigImportError, match=r"no config\.json"):
        load_config(tmp_path)


def test_corrupt_safetensors_header(tmp_path):
    folder = _write(tmp_path / "m", LLAMA2_7B)
    (folder / "model.safetensors").write_bytes(struct.pack("<Q", 12) + b"not json!!!!")
    with pytest.raises(ConfigImportError, match="safetensors"):
        load_config(folder)
