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
    ("Qwen/Qwen2-7B", "qwen2-7b", True),
    ("Qwen/Qwen2-1.5B-Instruct", "qwen2-1.5b", False),
    ("/tmp/Qwen2.5-1.5B-Instruct", "qwen2.5-1.5b", False),
    ("google/gemma-7b", "gemma-7b", True),
    ("mhenrichsen/gemma-7b", "gemma-7b", False),  # a mirror
    ("codellama/CodeLlama-13b-Instruct-hf", "codellama-13b", False),
    ("TinyLlama/TinyLlama-1.1B-Chat-v1.0", "tinyllama-1.1b", False),
    ("/tmp/TinyLlama_v1.1/", "tinyllama-1.1b", False),
    ("openlm-research/open_llama_3b_v2", "open-llama-3b", False),
    ("alignment-handbook/zephyr-7b-sft-full", "mistral-7b", False),  # a fine-tune: alias_source says why
    ("HuggingFaceH4/zephyr-7b-beta", "mistral-7b", False),
    ("mistralai/Mistral-7B-Instruct-v0.2", "mistral-7b-v0.2", True),
    ("HuggingFaceTB/SmolLM3-3B-checkpoints", "smollm3-3b", False),
    ("Qwen/Qwen2-VL-7B-Instruct", "qwen2-vl-7b", True),
])
def test_catalog_matches(name: str, model_id: str, exact: bool) -> None:
    found = catalog_match(name)
    assert found is not None
    assert (found[0].id, found[1]) == (model_id, exact)


@pytest.mark.parametrize("name", ["mistralai/Mistral-Nemo-Base-2407", "TheBloke/Llama-2-7B-GPTQ",
                                  "unsloth/llama-3-8b-bnb-4bit", "codellama/CodeLlama-7b-Python-hf",
                                  "teknium/OpenHermes-2.5-Mistral-7B", "deepcogito/cogito-v1-preview-llama-3B"])
def test_other_versions_and_quantized_repositories_match_nothing(name: str) -> None:
    """Code Llama Python has 32,000 tokens to the base's 32,016; OpenHermes 2.5 adds two tokens to Mistral 7B."""
    assert catalog_match(name) is None


def test_an_unknown_model_is_one_line_naming_key_and_value(imported):
    with pytest.raises(ConfigRefusedError) as info:
        imported({"a.yaml": "base_model: someorg/some-model-7b\nsequence_len: 512\n"})
    text = str(info.value)
    assert text.startswith("a.yaml: base_model: someorg/some-model-7b is not a model VRAM Lab knows")
    assert "--model" in text
    assert "--config" in text


@pytest.mark.parametrize(("key", "value", "says"), [
    ("base_model", "tiiuae/falcon-7b", "is Falcon 7B / 40B / 180B, which has parallel attention and MLP blocks"),
    ("base_model", "LnL-AI/dbrx-base-converted-v2", "is DBRX, which has bias-free LayerNorms"),
    ("base_model", "tiiuae/Falcon-H1-7B-Base", "is Falcon-H1, which has Mamba 2 beside attention in every layer"),
    ("base_model", "google/gemma-3n-E2B-it", "is Gemma 3n, which has AltUp"),
    ("base_model", "LiquidAI/LFM2-8B-A1B", "is LFM2-MoE, which has short convolution layers with sparse experts"),
    ("base_model", "CohereForAI/c4ai-command-r7b-12-2024", "is Command R7B, Command A"),
    ("base_model", "deepseek-ai/DeepSeek-V3.2", "DeepSeek sparse attention with a lightning indexer"),
    ("base_model", "google/gemma-4-12B-it", "is Gemma 4, which has parallel dense and expert MLPs and "
                                            "shared key-value global attention (not modelled yet)"),
])
def test_a_model_the_engine_refuses_is_refused_by_name_with_its_layer_kind(imported, key: str, value: str,
                                                                            says: str):
    """Not "unknown": the file names a model VRAM Lab knows and cannot cost (engine/catalog/refused.json); the
    reason is whole, not cut to a value's 80 characters."""
    with pytest.raises(ConfigRefusedError) as info:
        imported({"a.yaml": f"{key}: {value}\nsequence_len: 512\n"})
    text = str(info.value)
    assert text.startswith(f"a.yaml: {key}: {value} is ")
    assert says in text
    assert "VRAM Lab cannot cost that yet" in text
    assert "not a model VRAM Lab knows" not in text
    assert "\n" not in text


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


@pytest.mark.parametrize(("name", "model_id"), [
    ("deepseek-ai/DeepSeek-R1-Distill-Qwen-1.5B", "deepseek-r1-distill-qwen-1.5b"),
    ("Qwen/Qwen2.5-Coder-0.5B", "qwen2.5-0.5b"),
    ("Qwen/Qwen2.5-Coder-1.5B-Instruct", "qwen2.5-1.5b"),
    ("Qwen/Qwen2.5-Coder-3B-Instruct", "qwen2.5-3b"),
    ("Qwen/Qwen2.5-Coder-7B-Instruct", "qwen2.5-7b"),
    ("unsloth/Qwen2.5-Coder-7B-Instruct", "qwen2.5-7b"),
    ("Qwen/Qwen2.5-Coder-14B", "qwen2.5-14b"),
    ("Qwen/Qwen2.5-Coder-32B-Instruct", "qwen2.5-32b"),
    ("Qwen/Qwen2.5-Math-7B", "qwen2.5-7b"),
    ("Qwen/Qwen1.5-0.5B-Chat", "qwen1.5-0.5b"),
    ("Qwen/Qwen1.5-1.8B", "qwen1.5-1.8b"),
    ("Qwen/Qwen1.5-7B-Chat", "qwen1.5-7b"),
    ("mistralai/Mistral-7B-v0.3", "mistral-7b-v0.3"),
    ("mistralai/Mistral-7B-Instruct-v0.3", "mistral-7b-v0.3"),
    ("unsloth/mistral-7b-instruct-v0.3", "mistral-7b-v0.3"),
    ("meta-llama/Llama-2-7b", "llama-2-7b"),  # the original format's repository, beside the -hf conversion
    ("TheBloke/Llama-2-7B-fp16", "llama-2-7b"),  # a 16-bit re-upload
    ("TheBloke/Llama-2-13B-Chat-fp16", "llama-2-13b"),
    ("unsloth/llama-2-7b", "llama-2-7b"),
    ("lmsys/vicuna-13b-v1.5", "llama-2-13b"),  # a fine-tune of Llama 2 that adds no token
    ("microsoft/Phi-3.5-mini-instruct", "phi-3-mini"),
    ("01-ai/Yi-6B", "yi-6b"),
    ("01-ai/Yi-6B-Chat", "yi-6b"),
    ("allenai/OLMo-2-1124-13B-SFT", "olmo-2-13b"),  # the step before -Instruct
    ("allenai/OLMo-2-1124-7B-DPO", "olmo-2-7b"),
    ("NovaSky-AI/Sky-T1-32B-Preview", "qwen2.5-32b"),  # a full fine-tune of Qwen2.5-32B-Instruct, no new token
    ("open-r1/Qwen2.5-Math-7B-RoPE-300k", "qwen2.5-7b"),  # another RoPE base, no other shape
])
def test_the_public_repositories_issue_27_found_unknown_resolve_to_their_base(name: str, model_id: str) -> None:
    """Fine-tunes, distills and re-uploads the catalog lists (their alias_source says why each keeps the base's
    architecture) or that its name rules match: the repository named in others' training configs."""
    found = catalog_match(name)
    assert found is not None
    assert found[0].id == model_id


@pytest.mark.parametrize(("name", "model_id"), [
    ("Qwen/Qwen3.5-35B-A3B", "qwen3.5-35b-a3b"),
    ("Qwen/Qwen3-Next-80B-A3B-Thinking", "qwen3-next-80b-a3b-thinking"),
    ("nvidia/NVIDIA-Nemotron-3-Nano-30B-A3B-BF16", "nemotron-3-nano-30b-a3b"),
    ("ai21labs/Jamba-v0.1", "jamba-v0.1"),
    ("LiquidAI/LFM2-1.2B", "lfm2-1.2b"),
    ("moonshotai/Kimi-Linear-48B-A3B-Instruct", "kimi-linear-48b-a3b"),
    ("microsoft/phi-1_5", "phi-1.5"),
    ("EleutherAI/pythia-1.4b-deduped", "pythia-1.4b"),
    ("EleutherAI/gpt-j-6b", "gpt-j-6b"),
    ("togethercomputer/RedPajama-INCITE-Chat-3B-v1", "redpajama-incite-3b"),
    ("CohereForAI/aya-23-8B", "aya-23-8b"),
])
def test_the_models_once_refused_for_their_layers_are_catalog_models(name: str, model_id: str) -> None:
    """Issue 27's layer kinds (gated DeltaNet, Mamba-2, Mamba, KDA, short convolutions, parallel blocks, Cohere's): the
    names refused.json once refused are the catalog's now."""
    found = catalog_match(name)
    assert found is not None
    assert found[0].id == model_id


def test_the_distill_keeps_its_own_output_layer_unlike_its_base() -> None:
    """DeepSeek-R1-Distill-Qwen-1.5B unties Qwen2.5-Math-1.5B's output layer: 1,777,088,000 parameters (the count
    transformers builds), 151,936 x 1,536 more than the tied Qwen2.5-1.5B shape."""
    from engine.params import count_params

    distill, qwen = get_model("deepseek-r1-distill-qwen-1.5b"), get_model("qwen2.5-1.5b")
    assert count_params(distill).total == 1_777_088_000
    assert count_params(distill).total - count_params(qwen).total == 151936 * 1536


@pytest.mark.parametrize(("name", "base"), [("unsloth/llama-3-8b-bnb-4bit", "llama-3-8b"),
                                            ("TheBloke/Llama-2-7B-GPTQ", "llama-2-7b"),
                                            ("ISTA-DASLab/Meta-Llama-3-8B-Instruct-AQLM-2Bit-1x16", "llama-3-8b"),
                                            ("unsloth/mistral-7b-v0.3-bnb-4bit", "mistral-7b-v0.3")])
def test_a_repository_quantized_ahead_is_refused_naming_its_base(imported, name: str, base: str) -> None:
    with pytest.raises(ConfigRefusedError, match=f"^a.yaml: base_model: {name} is .* quantized ahead of training"
                                                 f".*--model {base}"):
        imported({"a.yaml": f"base_model: {name}\nadapter: qlora\nload_in_4bit: true\n"})


@pytest.mark.parametrize("value", ["/model", "/oe-adapt-default/checkpoints/base_models/L3.1-70B-v3.9/", "./my-model",
                                   "~/models/llama"])
def test_a_path_on_another_machine_is_named_as_such(imported, value: str) -> None:
    """open-instruct's DPO configs name ``/model`` (the container mount of their cluster jobs): a path with no
    config.json here, not an unknown model."""
    with pytest.raises(ConfigRefusedError) as info:
        imported({"a.yaml": f"base_model: {value}\nsequence_len: 512\n"})
    text = str(info.value)
    assert text.startswith(f"a.yaml: base_model: {value} is a path on the machine the config was written for")
    assert "--model" in text
    assert "not a model VRAM Lab knows" not in text
