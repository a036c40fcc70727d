"""Importing Hugging Face configs: files, folders, the HF cache layout, safetensors headers, bad input."""

import json
import struct

import pytest

from engine.catalog import get_model
from engine.hf_import import ConfigImportError, RefusedLayerError, load_config
from engine.layers import runs
from engine.params import count_params
from engine.specs import MlpKind

LLAMA2_7B = {
    "model_type": "llama", "vocab_size": 32000, "hidden_size": 4096, "intermediate_size": 11008,
    "num_hidden_layers": 32, "num_attention_heads": 32, "num_key_value_heads": 32,
    "max_position_embeddings": 4096, "tie_word_embeddings": False,
}


def _write(folder, cfg):
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "config.json").write_text(json.dumps(cfg) if isinstance(cfg, dict) else cfg)
    return folder


def _safetensors(path, shapes, names=None):
    names = names or [f"t{i}" for i in range(len(shapes))]
    header = {n: {"dtype": "BF16", "shape": s, "data_offsets": [0, 0]} for n, s in zip(names, shapes, strict=True)}
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


UNKNOWN = {**LLAMA2_7B, "model_type": "brand-new"}


@pytest.mark.parametrize(
    ("content", "needle"),
    [
        ("{not json", "not valid JSON"),
        ("[1, 2]", "JSON object"),
        (json.dumps(LLAMA2_7B).replace("32000", "NaN"), "'vocab_size': expected a whole number, found the number NaN"),
        (json.dumps(LLAMA2_7B).replace("32000", "1e400"), "'vocab_size': expected a whole number, found the number "
                                                          "Infinity"),
        (json.dumps({k: v for k, v in UNKNOWN.items() if k != "vocab_size"}), "'vocab_size': missing"),
        (json.dumps({**LLAMA2_7B, "hidden_size": -5}), "'hidden_size': -5 is outside"),
        (json.dumps({**LLAMA2_7B, "hidden_size": "4096"}), "'hidden_size': expected a whole number, found the string"),
        (json.dumps({**LLAMA2_7B, "hidden_size": 4096.0}), "'hidden_size': expected a whole number, found the number"),
        (json.dumps({**LLAMA2_7B, "hidden_size": True}), "'hidden_size': expected a whole number, found the boolean"),
        (json.dumps({**LLAMA2_7B, "hidden_size": [4096]}), "'hidden_size': expected a whole number, found a list"),
        (json.dumps({**LLAMA2_7B, "num_attention_heads": "many"}), "'num_attention_heads'"),
        (json.dumps({**LLAMA2_7B, "num_key_value_heads": 5}), "'num_key_value_heads'"),
        (json.dumps({**LLAMA2_7B, "num_hidden_layers": 10**9}), "'num_hidden_layers': 1,000,000,000 is outside"),
        (json.dumps({**LLAMA2_7B, "tie_word_embeddings": "false"}), "'tie_word_embeddings': expected true or false"),
        (json.dumps({**LLAMA2_7B, "model_type": 7}), "'model_type': expected a string"),
        (json.dumps({**LLAMA2_7B, "model_type": ["llama"]}), "'model_type': expected a string, found a list"),
        (json.dumps({**LLAMA2_7B, "model_type": {"a": 1}}), "'model_type': expected a string, found an object"),
        (json.dumps({"model_type": "qwen3_5", "text_config": {"model_type": ["qwen3_5_text"]}}),
         "'text_config.model_type': expected a string"),
        (json.dumps({"model_type": "gemma3", "text_config": [1]}), "'text_config': expected an object"),
        (json.dumps({**LLAMA2_7B, "layer_types": ["full_attention"] * 3}), "'layer_types': 3 entries for 32"),
        (json.dumps({**LLAMA2_7B, "layer_types": ["teleport"] * 32}), "'layer_types': layer 0 has an unknown"),
        (json.dumps({"model_type": "qwen3_moe", "num_experts_per_tok": 999}), "'num_experts_per_tok'"),
    ],
)
def test_bad_configs_name_the_file_and_the_field(tmp_path, content, needle):
    folder = _write(tmp_path / "bad", content)
    with pytest.raises(ConfigImportError, match=needle) as info:
        load_config(folder)
    message = str(info.value)
    assert message.startswith("config.json")
    assert "\n" not in message


@pytest.mark.parametrize(
    ("cfg", "needle"),
    [
        ({**LLAMA2_7B, "layer_types": ["full_attention"] * 31 + ["mamba"]}, "layer 31 is Mamba"),
        ({**LLAMA2_7B, "layer_types": ["linear_attention"] * 32}, "layer 0 is linear attention"),
        ({"model_type": "mllama", "text_config": {"model_type": "mllama_text_model"}}, "cross-attention layers"),
        ({"model_type": "falcon", "hidden_size": 4544}, "'falcon' has parallel attention and MLP blocks"),
        ({"model_type": "stablelm", "use_parallel_residual": True}, "'use_parallel_residual' is true: parallel"),
        ({"model_type": "stablelm", "qk_layernorm": True}, "'qk_layernorm' is true: a LayerNorm per head"),
    ],
)
def test_layer_kinds_the_engine_cannot_cost_are_refused_by_name(tmp_path, cfg, needle):
    with pytest.raises(RefusedLayerError, match=needle):
        load_config(_write(tmp_path / "m", cfg))


def test_tie_word_embeddings_false_as_a_boolean_unties(tmp_path):
    tied = load_config(_write(tmp_path / "a", {**LLAMA2_7B, "tie_word_embeddings": True}))
    untied = load_config(_write(tmp_path / "b", {**LLAMA2_7B, "tie_word_embeddings": False}))
    assert count_params(untied).total - count_params(tied).total == 32000 * 4096


def test_an_unknown_model_type_imports_with_a_note_of_the_defaults(tmp_path):
    m = load_config(_write(tmp_path / "u", UNKNOWN))
    assert count_params(m).total == count_params(get_model("llama-2-7b")).total
    assert any("'brand-new' is not one the engine knows" in n and "Llama" in n for n in m.notes)


def test_a_known_model_type_takes_its_transformers_defaults(tmp_path):
    # Qwen3's config leaves out head_dim (128 by default) and tie_word_embeddings (false)
    m = load_config(_write(tmp_path / "q", {"model_type": "qwen3", "vocab_size": 151936, "hidden_size": 1024,
                                            "intermediate_size": 3072, "num_hidden_layers": 28,
                                            "num_attention_heads": 16, "num_key_value_heads": 8}))
    assert m.head_dim == 128
    assert not m.tie_embeddings
    assert m.notes == ()


def test_text_config_counts_the_language_model_and_reports_the_vision_tower(tmp_path):
    cfg = {"model_type": "mistral3", "text_config": {**LLAMA2_7B, "model_type": "mistral"},
           "vision_config": {"hidden_size": 1024}}
    folder = _write(tmp_path / "mm", cfg)
    _safetensors(folder / "model.safetensors", [[32000, 4096], [1024, 1024]],
                 names=["language_model.model.embed_tokens.weight", "vision_tower.patch_conv.weight"])
    m = load_config(folder)
    assert count_params(m).total == count_params(load_config(_write(tmp_path / "l", LLAMA2_7B))).total
    assert m.vision_params == 1024 * 1024
    assert m.published_params == 32000 * 4096
    assert any("vision tower" in n for n in m.notes)


def test_qwen2_vl_keeps_its_language_model_at_the_top_level(tmp_path):
    """Qwen2-VL-7B-Instruct's published config.json has no text_config: its language model's fields sit beside
    vision_config (transformers 5.24 Qwen2VLConfig reads them into its text_config). It is Qwen2-7B's decoder,
    q/k/v with biases, and the catalog entry written with a text_config counts the same."""
    flat = {"model_type": "qwen2_vl", "vocab_size": 152064, "hidden_size": 3584, "intermediate_size": 18944,
            "num_hidden_layers": 28, "num_attention_heads": 28, "num_key_value_heads": 4,
            "max_position_embeddings": 32768, "tie_word_embeddings": False, "vision_config": {"depth": 32}}
    m = load_config(_write(tmp_path / "vl", flat))
    assert count_params(m).total == count_params(get_model("qwen2-vl-7b")).total == 7_615_616_512
    assert m.qkv_bias
    assert not m.o_bias
    assert any("vision tower is not counted" in n for n in m.notes)
    assert not any("not one the engine knows" in n for n in m.notes)


def test_stablelm_reads_its_own_bias_switch(tmp_path):
    """StableLM 2: LayerNorm with bias, q/k/v biases from use_qkv_bias (not attention_bias), partial RoPE."""
    cfg = {"model_type": "stablelm", "vocab_size": 100352, "hidden_size": 2048, "intermediate_size": 5632,
           "num_hidden_layers": 24, "num_attention_heads": 32, "num_key_value_heads": 32, "use_qkv_bias": True}
    m = load_config(_write(tmp_path / "s", cfg))
    assert count_params(m).total == count_params(get_model("stablelm-2-1.6b")).total == 1_644_515_328
    off = load_config(_write(tmp_path / "t", {**cfg, "use_qkv_bias": False}))
    assert count_params(m).total - count_params(off).total == 24 * 3 * 2048
    assert m.layers is not None
    assert m.layers[0].attn.partial_rotary


def test_multi_token_prediction_layers_are_left_out(tmp_path):
    folder = _write(tmp_path / "mtp", {**LLAMA2_7B, "num_hidden_layers": 2})
    _safetensors(folder / "model.safetensors", [[8, 8], [4, 4]],
                 names=["model.layers.1.mlp.down_proj.weight", "model.layers.2.eh_proj.weight"])
    m = load_config(folder)
    assert m.published_params == 64
    assert any("16 parameters in layers past" in n for n in m.notes)


def test_mxfp4_blocks_count_two_values_per_byte(tmp_path):
    folder = _write(tmp_path / "oss", LLAMA2_7B)
    header = {"a_blocks": {"dtype": "U8", "shape": [2, 4, 3, 16], "data_offsets": [0, 0]},
              "a_scales": {"dtype": "U8", "shape": [2, 4, 3], "data_offsets": [0, 0]}}
    raw = json.dumps(header).encode()
    (folder / "model.safetensors").write_bytes(struct.pack("<Q", len(raw)) + raw)
    assert load_config(folder).published_params == 2 * 4 * 3 * 16 * 2


def test_missing_path_and_empty_folder(tmp_path):
    with pytest.raises(ConfigImportError, match="no such file"):
        load_config(tmp_path / "nope")
    with pytest.raises(ConfigImportError, match=r"no config\.json"):
        load_config(tmp_path)


@pytest.mark.parametrize(
    "raw",
    [
        struct.pack("<Q", 12) + b"not json!!!!",
        struct.pack("<Q", 500) + b"{}",
        b"\x01\x02",
        struct.pack("<Q", 2) + b"[]",
        struct.pack("<Q", 40) + b'{"t": {"dtype": "BF16", "shape": "big"}}'.ljust(40),
        struct.pack("<Q", 30) + b'{"t": {"shape": [NaN]}}'.ljust(30),
    ],
    ids=["not-json", "truncated", "short", "not-object", "bad-shape", "nan"],
)
def test_corrupt_safetensors_headers_are_reported_as_such(tmp_path, raw):
    folder = _write(tmp_path / "m", LLAMA2_7B)
    (folder / "model.safetensors").write_bytes(raw)
    with pytest.raises(ConfigImportError, match=r"^model\.safetensors: safetensors header: ") as info:
        load_config(folder)
    assert "config.json" not in str(info.value)  # a fault of the header, never of a config field
    assert "published_params" not in str(info.value)


# -- configs transformers reads that the engine stopped on (issue 27) ---------------------------------------------

def test_infinity_and_nan_in_fields_the_engine_does_not_read_are_read_as_transformers_does(tmp_path):
    """Nemotron-H's ``time_step_limit: [0.0, Infinity]``: Python's json (and so transformers'
    ``PretrainedConfig._dict_from_json_file``) reads it; only a field the engine reads refuses a non-finite number."""
    text = json.dumps(LLAMA2_7B)[:-1] + ', "time_step_limit": [0.0, Infinity], "initializer_range": NaN}'
    m = load_config(_write(tmp_path / "m", text))
    assert count_params(m).total == count_params(get_model("llama-2-7b")).total
    nemotron = '{"model_type": "nemotron_h", "time_step_limit": [0.0, Infinity], "hidden_size": 4096}'
    kinds = [r.mixer_kind for r in runs(load_config(_write(tmp_path / "n", nemotron)))]
    assert kinds == ["mamba2", "none", "attention", "none"]  # NemotronHConfig's default stack: M, E, *, -


@pytest.mark.parametrize(("text", "field"), [
    ('{"model_type": "gemma3", "text_config": {"hidden_size": NaN}}', "'text_config.hidden_size'"),
    (json.dumps(LLAMA2_7B)[:-1] + ', "rope_scaling": {"partial_rotary_factor": NaN}}',
     "'rope_scaling.partial_rotary_factor'"),
])
def test_a_non_finite_number_where_the_engine_reads_one_is_named_by_its_dotted_field(tmp_path, text, field):
    with pytest.raises(ConfigImportError, match=f"field {field}: expected a"):
        load_config(_write(tmp_path / "m", text))


@pytest.mark.parametrize(("cfg", "needle"), [
    ({"model_type": "deepseek_v4", "hidden_size": 4096}, "'deepseek_v4' has compressed sparse attention"),
    ({"model_type": "rwkv5", "hidden_size": 2048, "num_hidden_layers": 24}, "'rwkv5' has RWKV recurrent"),
    ({"model_type": "rwkv6"}, "'rwkv6' has RWKV recurrent"),
])
def test_families_that_failed_on_a_missing_field_are_refused_by_name(tmp_path, cfg, needle):
    """DeepSeek-V4 and RWKV-5 stopped on a field they lack ('num_attention_heads': missing): refused by name."""
    with pytest.raises(RefusedLayerError, match=needle):
        load_config(_write(tmp_path / "m", cfg))


NEOX = {"model_type": "gpt_neox", "vocab_size": 50432, "hidden_size": 2560, "num_hidden_layers": 32,
        "num_attention_heads": 32, "intermediate_size": 10240, "rotary_pct": 1.0, "hidden_act": "gelu",
        "max_position_embeddings": 2048, "tie_word_embeddings": False}


def test_gpt_neox_is_parallel_only_when_its_config_says_parallel(tmp_path):
    """GPTNeoXConfig's use_parallel_residual is true by default (Pythia); RedPajama-INCITE's config sets it false
    (a sequential block); both have the erf GELU MLP (MlpKind.GELU)."""
    parallel = load_config(_write(tmp_path / "p", NEOX))
    sequential = load_config(_write(tmp_path / "s", {**NEOX, "use_parallel_residual": False}))
    assert [r.parallel for r in runs(parallel)] == [True]
    assert [r.parallel for r in runs(sequential)] == [False]
    assert runs(sequential)[0].ffn.kind is MlpKind.GELU
    assert count_params(parallel).total == count_params(sequential).total


@pytest.mark.parametrize(("cfg", "kinds"), [
    ({"model_type": "qwen3_next"}, ["gated-deltanet", "attention"] * 1),
    ({"model_type": "qwen3_5", "text_config": {"model_type": "qwen3_5_text"}}, ["gated-deltanet", "attention"]),
    ({"model_type": "granitemoehybrid"}, ["mamba2"]),
    ({"model_type": "granitemoehybrid", "layer_types": ["mamba"] * 31 + ["attention"]}, ["mamba2", "attention"]),
    ({"model_type": "bamba", "attn_layer_indices": [9, 18, 27]}, ["mamba2", "attention"] * 3 + ["mamba2"]),
    ({"model_type": "jamba"}, ["mamba1", "attention"] * 4 + ["mamba1"]),
    ({"model_type": "mamba"}, ["mamba1"]),
])
def test_hybrid_layer_kinds_are_read_from_their_configs(tmp_path, cfg, kinds):
    """Families refused before issue 27, now costed layer kind by layer kind (with their config classes'
    defaults for what the file leaves out)."""
    m = load_config(_write(tmp_path / "h", cfg))
    folded = [k for i, k in enumerate(r.mixer_kind for r in runs(m)) if i == 0 or k != [
        r.mixer_kind for r in runs(m)][i - 1]]
    assert folded[:len(kinds)] == kinds
