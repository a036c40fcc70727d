"""Architectures of catalog models written by us (no published config.json file ships): minimal config dicts; and
the catalog models whose published config.json the tests keep (``published``: tests/engine/data/configs).

Each entry holds only the fields that shape the network, in Hugging Face's field names, written from public
sources read through the project's search index (model cards, the models' own READMEs, configs quoted in public
code); ``read_from`` says which. ``tools/catalog_import.py`` imports them with the engine's own importer
(:func:`engine.hf_import.spec_from_config`) into ``engine/catalog/models_hf.json``, and
``python -m calibration.counts`` records what transformers 5.24 builds from the same dicts
(tests/engine/data/transformers_counts.json, ``config`` kept). Nothing here imports torch.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

HF = "https://huggingface.co/{}/blob/main/config.json"


def _qwen3(hidden: int, inter: int, layers: int, heads: int, kv: int, *, tie: bool) -> dict[str, Any]:
    return {"model_type": "qwen3", "vocab_size": 151936, "hidden_size": hidden, "intermediate_size": inter,
            "num_hidden_layers": layers, "num_attention_heads": heads, "num_key_value_heads": kv, "head_dim": 128,
            "max_position_embeddings": 40960, "rms_norm_eps": 1e-6, "rope_theta": 1000000.0, "hidden_act": "silu",
            "attention_bias": False, "tie_word_embeddings": tie}


def _qwen2(hidden: int, inter: int, layers: int, heads: int, kv: int) -> dict[str, Any]:
    return {"model_type": "qwen2", "vocab_size": 152064, "hidden_size": hidden, "intermediate_size": inter,
            "num_hidden_layers": layers, "num_attention_heads": heads, "num_key_value_heads": kv,
            "max_position_embeddings": 131072, "rms_norm_eps": 1e-5, "rope_theta": 1000000.0, "hidden_act": "silu",
            "use_sliding_window": False, "tie_word_embeddings": False}


def _qwen15(hidden: int, inter: int, layers: int, heads: int, *, tie: bool) -> dict[str, Any]:
    """Qwen1.5 (model_type qwen2, q/k/v with biases): every head its own key-value head below 32B."""
    return {"model_type": "qwen2", "vocab_size": 151936, "hidden_size": hidden, "intermediate_size": inter,
            "num_hidden_layers": layers, "num_attention_heads": heads, "num_key_value_heads": heads,
            "max_position_embeddings": 32768, "rms_norm_eps": 1e-6, "rope_theta": 1000000.0, "hidden_act": "silu",
            "use_sliding_window": False, "tie_word_embeddings": tie}


def _llama3(hidden: int, inter: int, layers: int, heads: int) -> dict[str, Any]:
    return {"model_type": "llama", "vocab_size": 128256, "hidden_size": hidden, "intermediate_size": inter,
            "num_hidden_layers": layers, "num_attention_heads": heads, "num_key_value_heads": 8, "head_dim": 128,
            "max_position_embeddings": 131072, "rms_norm_eps": 1e-5, "rope_theta": 500000.0, "hidden_act": "silu",
            "attention_bias": False, "mlp_bias": False, "tie_word_embeddings": False}


def _gemma3(hidden: int, inter: int, layers: int, heads: int, kv: int, *, head_dim: int,
            scalar: int) -> dict[str, Any]:
    """The language model (``text_config``) of a Gemma 3 checkpoint: 5 sliding-window layers to 1 global."""
    return {"model_type": "gemma3_text", "vocab_size": 262208, "hidden_size": hidden, "intermediate_size": inter,
            "num_hidden_layers": layers, "num_attention_heads": heads, "num_key_value_heads": kv,
            "head_dim": head_dim, "query_pre_attn_scalar": scalar, "sliding_window": 1024,
            "sliding_window_pattern": 6, "max_position_embeddings": 131072, "rms_norm_eps": 1e-6,
            "hidden_activation": "gelu_pytorch_tanh", "attention_bias": False, "tie_word_embeddings": True}


def _mistral_small() -> dict[str, Any]:
    """Mistral Small 3.1's language model, also Devstral Small's whole model (params.json: dim 5120, 40 layers,
    head_dim 128, hidden_dim 32768, 32 heads, 8 kv heads, vocab 131072)."""
    return {"model_type": "mistral", "vocab_size": 131072, "hidden_size": 5120, "intermediate_size": 32768,
            "num_hidden_layers": 40, "num_attention_heads": 32, "num_key_value_heads": 8, "head_dim": 128,
            "max_position_embeddings": 131072, "rms_norm_eps": 1e-5, "rope_theta": 1000000000.0,
            "hidden_act": "silu", "sliding_window": None, "tie_word_embeddings": False}


def _exaone4(hidden: int, inter: int, layers: int, heads: int, head_dim: int, *, hybrid: bool,
             tie: bool) -> dict[str, Any]:
    """EXAONE 4.0: the 32B alternates 3 sliding-window (4,096) layers with 1 global; the 1.2B is all global."""
    types = (["sliding_attention"] * 3 + ["full_attention"]) * (layers // 4) if hybrid else ["full_attention"] * layers
    return {"model_type": "exaone4", "vocab_size": 102400, "hidden_size": hidden, "intermediate_size": inter,
            "num_hidden_layers": layers, "num_attention_heads": heads, "num_key_value_heads": 8,
            "head_dim": head_dim, "sliding_window": 4096 if hybrid else None, "layer_types": types,
            "max_position_embeddings": 131072, "rms_norm_eps": 1e-5, "rope_theta": 1000000.0, "hidden_act": "silu",
            "tie_word_embeddings": tie}


def _llama(vocab: int, shape: tuple[int, int, int, int, int], *, positions: int, theta: float, eps: float = 1e-5,
           tie: bool = False) -> dict[str, Any]:
    """A Llama-architecture decoder (LlamaForCausalLM): RMSNorm, SwiGLU, no biases; ``shape``: hidden, MLP width,
    layers, heads, key-value heads."""
    hidden, inter, layers, heads, kv = shape
    return {"model_type": "llama", "vocab_size": vocab, "hidden_size": hidden, "intermediate_size": inter,
            "num_hidden_layers": layers, "num_attention_heads": heads, "num_key_value_heads": kv,
            "max_position_embeddings": positions, "rms_norm_eps": eps, "rope_theta": theta, "hidden_act": "silu",
            "attention_bias": False, "mlp_bias": False, "tie_word_embeddings": tie}


def _qwen2_vl(wrapper: str, positions: int) -> dict[str, Any]:
    """Qwen2-VL 7B / Qwen2.5-VL 7B: the language model (Qwen2-7B's / Qwen2.5-7B's shape) under text_config."""
    text = {**_qwen2(3584, 18944, 28, 28, 4), "model_type": f"{wrapper}_text", "max_position_embeddings": positions,
            "rms_norm_eps": 1e-6}
    return {"model_type": wrapper, "text_config": text, "tie_word_embeddings": False}


#: published config.json files kept for the tests (tests/engine/data/configs/SOURCES.md says where each was copied)
_CONFIGS = Path(__file__).resolve().parents[1] / "tests" / "engine" / "data" / "configs"
_AIC = ("a copy of the published config.json in github.com/ai-dynamo/aiconfigurator aic-core/src/aiconfigurator_core/"
        "model_configs/{} @ 095f58a51c4ca8e61b66ec108d86f223f8d559ce (tests/engine/data/configs/{}.json)")


def _published(name: str) -> dict[str, Any]:
    """A published config.json the tests keep (tests/engine/data/configs), as it is."""
    data: dict[str, Any] = json.loads((_CONFIGS / f"{name}.json").read_text(encoding="utf-8"))
    return data


def _pythia(hidden: int, layers: int, heads: int, vocab: int) -> dict[str, Any]:
    """A Pythia model (GPTNeoXForCausalLM): parallel attention and MLP blocks, LayerNorms and biases, a quarter of
    each head rotated, a 4 x hidden erf-GELU MLP, its own output layer; the vocabulary 50,254 padded up
    (litgpt's padding_multiple)."""
    return {"model_type": "gpt_neox", "vocab_size": vocab, "hidden_size": hidden, "intermediate_size": 4 * hidden,
            "num_hidden_layers": layers, "num_attention_heads": heads, "rotary_pct": 0.25, "rotary_emb_base": 10000,
            "max_position_embeddings": 2048, "layer_norm_eps": 1e-5, "hidden_act": "gelu",
            "use_parallel_residual": True, "tie_word_embeddings": False}


def _phi(hidden: int, layers: int) -> dict[str, Any]:
    """Phi-1.5 / Phi-2 (PhiForCausalLM, model_type phi): one LayerNorm feeding attention and a 4 x hidden GELU MLP
    in parallel, q / k / v / dense with biases, RoPE on 32 dimensions of each head, an output layer with a bias."""
    heads = 32
    return {"model_type": "phi", "vocab_size": 51200, "hidden_size": hidden, "intermediate_size": 4 * hidden,
            "num_hidden_layers": layers, "num_attention_heads": heads, "num_key_value_heads": heads,
            "partial_rotary_factor": 32 / (hidden // heads), "hidden_act": "gelu_new",
            "max_position_embeddings": 2048, "layer_norm_eps": 1e-5, "qk_layernorm": False, "rope_theta": 10000.0,
            "tie_word_embeddings": False}


def _jamba(**extra: Any) -> dict[str, Any]:
    """Jamba (JambaForCausalLM): 32 layers, attention on every 8th from 4 and Mamba elsewhere, 16 experts on every
    other layer from 1 (top 2), dense SwiGLU MLPs between."""
    return {"model_type": "jamba", "vocab_size": 65536, "hidden_size": 4096, "intermediate_size": 14336,
            "num_hidden_layers": 32, "num_attention_heads": 32, "num_key_value_heads": 8, "attn_layer_offset": 4,
            "attn_layer_period": 8, "expert_layer_offset": 1, "expert_layer_period": 2, "num_experts": 16,
            "num_experts_per_tok": 2, "mamba_d_conv": 4, "mamba_d_state": 16, "mamba_expand": 2,
            "mamba_dt_rank": 256, "mamba_conv_bias": True, "mamba_proj_bias": False,
            "max_position_embeddings": 262144, "rms_norm_eps": 1e-6, "hidden_act": "silu",
            "tie_word_embeddings": False, **extra}


_TORCHTUNE = "github.com/pytorch/torchtune @ bd2a0fc7c31430972728494fa01aaeeb0ebf1ba1"
_LITGPT = "github.com/Lightning-AI/litgpt litgpt/config.py @ 26857050fe3ff627cd714fe92f5838f51a3d5efa"
_MLC = ("a copy of the published config.json in github.com/mlc-ai/mlc-llm python/mlc_llm/model/model_preset.py @ "
        "79d603f085f50500e9509fa01785ffa7ecfaaa93")
_DEEPSEEK_README = ("the distill table of github.com/deepseek-ai/DeepSeek-R1 README.md (base model of each "
                    "distill), with that base's architecture")
_VISION = "the language model of a multimodal checkpoint (text_config)"
_PYTHIA = ("github.com/Lightning-AI/litgpt litgpt/config.py @ 26857050fe3ff627cd714fe92f5838f51a3d5efa (the pythia "
           "list, each entry linking the model's config.json: layers, width, heads, padding_multiple; litgpt's "
           "Config defaults for the rest: vocabulary 50254 padded up, rotary_percentage 0.25, parallel_residual, "
           "bias, a GptNeoxMLP of 4 x n_embd)")

#: catalog id -> name, family, Hugging Face repository, aliases, where the numbers were read, and the config
ENTRIES: dict[str, dict[str, Any]] = {
    "qwen3-4b": {
        "name": "Qwen3 4B", "family": "Qwen3", "hf_repo": "Qwen/Qwen3-4B",
        "aliases": ["Qwen/Qwen3-4B-Base", "Qwen/Qwen3-4B-Instruct-2507", "Qwen/Qwen3-4B-Thinking-2507"],
        "read_from": "Qwen3-4B config.json quoted in public code (search index); same text model as Qwen3-VL 4B",
        "config": _qwen3(2560, 9728, 36, 32, 8, tie=True),
    },
    "qwen3-14b": {
        "name": "Qwen3 14B", "family": "Qwen3", "hf_repo": "Qwen/Qwen3-14B", "aliases": ["Qwen/Qwen3-14B-Base"],
        "read_from": "Qwen3-14B config.json quoted in public code (search index)",
        "config": _qwen3(5120, 17408, 40, 40, 8, tie=False),
    },
    "gemma-3-4b": {
        "name": "Gemma 3 4B", "family": "Gemma 3", "hf_repo": "google/gemma-3-4b-it",
        "aliases": ["google/gemma-3-4b-pt"], "vision": True,
        "read_from": f"{_VISION}: calibration/models.py's hand-written config (traced in docs/accuracy.md)",
        "config": _gemma3(2560, 10240, 34, 8, 4, head_dim=256, scalar=256),
    },
    "gemma-3-12b": {
        "name": "Gemma 3 12B", "family": "Gemma 3", "hf_repo": "google/gemma-3-12b-it",
        "aliases": ["google/gemma-3-12b-pt"], "vision": True,
        "read_from": f"{_VISION}: gemma-3-12b text_config quoted in public code (search index)",
        "config": _gemma3(3840, 15360, 48, 16, 8, head_dim=256, scalar=256),
    },
    "gemma-3-27b": {
        "name": "Gemma 3 27B", "family": "Gemma 3", "hf_repo": "google/gemma-3-27b-it",
        "aliases": ["google/gemma-3-27b-pt"], "vision": True,
        "read_from": f"{_VISION}: gemma-3-27b-it text_config quoted in public code (search index); "
                     "query_pre_attn_scalar 168",
        "config": _gemma3(5376, 21504, 62, 32, 16, head_dim=128, scalar=168),
    },
    "phi-4": {
        "name": "Phi-4 (14B)", "family": "Phi-4", "hf_repo": "microsoft/phi-4", "aliases": [],
        "read_from": "calibration/models.py's hand-written config (traced in docs/accuracy.md)",
        "config": {"model_type": "phi3", "vocab_size": 100352, "hidden_size": 5120, "intermediate_size": 17920,
                   "num_hidden_layers": 40, "num_attention_heads": 40, "num_key_value_heads": 10,
                   "max_position_embeddings": 16384, "rms_norm_eps": 1e-5, "rope_theta": 250000.0,
                   "hidden_act": "silu", "sliding_window": None, "tie_word_embeddings": False},
    },
    "mistral-small-3.1-24b": {
        "name": "Mistral Small 3.1 24B", "family": "Mistral",
        "hf_repo": "mistralai/Mistral-Small-3.1-24B-Instruct-2503",
        "aliases": ["mistralai/Mistral-Small-3.1-24B-Base-2503", "mistralai/Mistral-Small-3.2-24B-Instruct-2506"],
        "vision": True,
        "read_from": f"{_VISION}: calibration/models.py's hand-written config; the same numbers as Devstral "
                     "Small 2507's params.json",
        "config": _mistral_small(),
    },
    "devstral-small-2507": {
        "name": "Devstral Small 2507 (24B)", "family": "Mistral", "hf_repo": "mistralai/Devstral-Small-2507",
        "aliases": ["mistralai/Devstral-Small-2505"],
        "read_from": "params.json and model.safetensors.index.json of github.com/fetchwiki/"
                     "mistralai-Devstral-Small-2507 (a copy of the Hugging Face repository)",
        "config": _mistral_small(),
    },
    "olmo-2-1b": {
        "name": "OLMo 2 1B", "family": "OLMo 2", "hf_repo": "allenai/OLMo-2-0425-1B",
        "aliases": ["allenai/OLMo-2-0425-1B-Instruct"],
        "read_from": "calibration/models.py's hand-written config (traced in docs/accuracy.md)",
        "config": {"model_type": "olmo2", "vocab_size": 100352, "hidden_size": 2048, "intermediate_size": 8192,
                   "num_hidden_layers": 16, "num_attention_heads": 16, "num_key_value_heads": 16,
                   "max_position_embeddings": 4096, "rms_norm_eps": 1e-6, "rope_theta": 500000.0,
                   "hidden_act": "silu", "attention_bias": False, "tie_word_embeddings": False},
    },
    "olmo-3-7b": {
        "name": "Olmo 3 7B", "family": "OLMo 3", "hf_repo": "allenai/Olmo-3-1025-7B",
        "aliases": ["allenai/Olmo-3-7B-Instruct", "allenai/Olmo-3-7B-Think"],
        "read_from": "calibration/models.py's hand-written config (traced in docs/accuracy.md); 3 sliding-window "
                     "layers to 1 global",
        "config": {"model_type": "olmo3", "vocab_size": 100278, "hidden_size": 4096, "intermediate_size": 11008,
                   "num_hidden_layers": 32, "num_attention_heads": 32, "num_key_value_heads": 32,
                   "max_position_embeddings": 65536, "rms_norm_eps": 1e-6, "rope_theta": 500000.0,
                   "hidden_act": "silu", "sliding_window": 4096,
                   "layer_types": (["sliding_attention"] * 3 + ["full_attention"]) * 8,
                   "attention_bias": False, "tie_word_embeddings": False},
    },
    "exaone-4.0-1.2b": {
        "name": "EXAONE 4.0 1.2B", "family": "EXAONE 4", "hf_repo": "LGAI-EXAONE/EXAONE-4.0-1.2B", "aliases": [],
        "read_from": "calibration/models.py's hand-written config (traced in docs/accuracy.md)",
        "config": _exaone4(2048, 4096, 30, 32, 64, hybrid=False, tie=True),
    },
    "exaone-4.0-32b": {
        "name": "EXAONE 4.0 32B", "family": "EXAONE 4", "hf_repo": "LGAI-EXAONE/EXAONE-4.0-32B", "aliases": [],
        "read_from": "EXAONE-4.0-32B's config quoted in TensorRT-LLM's tests (search index; 64 layers, pattern "
                     "LLLG); calibration/models.py's 4-layer cut of it is traced in docs/accuracy.md",
        "config": _exaone4(5120, 27392, 64, 40, 128, hybrid=True, tie=False),
    },
    "glm-4-9b-0414": {
        "name": "GLM-4 9B (0414)", "family": "GLM-4", "hf_repo": "zai-org/GLM-4-9B-0414",
        "aliases": ["THUDM/GLM-4-9B-0414", "zai-org/GLM-Z1-9B-0414", "THUDM/GLM-Z1-9B-0414"],
        "read_from": "calibration/models.py's hand-written config (traced in docs/accuracy.md)",
        "config": {"model_type": "glm4", "vocab_size": 151552, "hidden_size": 4096, "intermediate_size": 13696,
                   "num_hidden_layers": 40, "num_attention_heads": 32, "num_key_value_heads": 2, "head_dim": 128,
                   "partial_rotary_factor": 0.5, "attention_bias": True, "max_position_embeddings": 32768,
                   "rms_norm_eps": 1e-5, "rope_theta": 10000.0, "hidden_act": "silu", "tie_word_embeddings": False},
    },
    "deepseek-r1-distill-qwen-7b": {
        "name": "DeepSeek-R1-Distill-Qwen 7B", "family": "DeepSeek", "aliases": [],
        "hf_repo": "deepseek-ai/DeepSeek-R1-Distill-Qwen-7B",
        "read_from": f"{_DEEPSEEK_README} (Qwen2.5-Math-7B: 28 layers, hidden 3584, intermediate 18944, 28 heads, "
                     "4 kv heads, vocabulary 152064, untied), as a public training recipe quotes its config.json",
        "config": _qwen2(3584, 18944, 28, 28, 4),
    },
    "deepseek-r1-distill-qwen-14b": {
        "name": "DeepSeek-R1-Distill-Qwen 14B", "family": "DeepSeek", "aliases": [],
        "hf_repo": "deepseek-ai/DeepSeek-R1-Distill-Qwen-14B",
        "read_from": f"{_DEEPSEEK_README} (Qwen2.5-14B, whose config.json is quoted in public code)",
        "config": _qwen2(5120, 13824, 48, 40, 8),
    },
    "deepseek-r1-distill-qwen-32b": {
        "name": "DeepSeek-R1-Distill-Qwen 32B", "family": "DeepSeek", "aliases": [],
        "hf_repo": "deepseek-ai/DeepSeek-R1-Distill-Qwen-32B",
        "read_from": f"{_DEEPSEEK_README} (Qwen2.5-32B, whose config.json is quoted in public code)",
        "config": _qwen2(5120, 27648, 64, 40, 8),
    },
    "deepseek-r1-distill-llama-8b": {
        "name": "DeepSeek-R1-Distill-Llama 8B", "family": "DeepSeek", "aliases": [],
        "hf_repo": "deepseek-ai/DeepSeek-R1-Distill-Llama-8B",
        "read_from": f"{_DEEPSEEK_README} (Llama-3.1-8B)",
        "config": _llama3(4096, 14336, 32, 32),
    },
    "deepseek-r1-distill-llama-70b": {
        "name": "DeepSeek-R1-Distill-Llama 70B", "family": "DeepSeek", "aliases": [],
        "hf_repo": "deepseek-ai/DeepSeek-R1-Distill-Llama-70B",
        "read_from": f"{_DEEPSEEK_README} (Llama-3.3-70B-Instruct)",
        "config": _llama3(8192, 28672, 80, 64),
    },
    "glm-4.5-air": {
        "name": "GLM-4.5-Air (106B-A12B)", "family": "GLM-4", "hf_repo": "zai-org/GLM-4.5-Air",
        "aliases": ["zai-org/GLM-4.5-Air-Base", "THUDM/GLM-4.5-Air"],
        "read_from": "calibration/models.py's hand-written glm-4.5-air-3l (GLM-4.5-Air's config cut to 3 of its 46 "
                     "layers, traced in docs/accuracy.md) with its 46 layers: one dense, 45 with 128 experts; its "
                     "multi-token-prediction layer (num_nextn_predict_layers) is not built by transformers",
        "config": {"model_type": "glm4_moe", "vocab_size": 151552, "hidden_size": 4096, "intermediate_size": 10944,
                   "moe_intermediate_size": 1408, "num_hidden_layers": 46, "num_attention_heads": 96,
                   "num_key_value_heads": 8, "head_dim": 128, "n_routed_experts": 128, "n_shared_experts": 1,
                   "num_experts_per_tok": 8, "first_k_dense_replace": 1, "n_group": 1, "topk_group": 1,
                   "partial_rotary_factor": 0.5, "attention_bias": True, "use_qk_norm": False,
                   "max_position_embeddings": 131072, "rms_norm_eps": 1e-5, "rope_theta": 1000000.0,
                   "hidden_act": "silu", "tie_word_embeddings": False},
    },
    "qwen2.5-1.5b": {
        "name": "Qwen2.5 1.5B", "family": "Qwen2.5", "hf_repo": "Qwen/Qwen2.5-1.5B",
        "aliases": ["Qwen/Qwen2.5-1.5B-Instruct"],
        "read_from": f"{_TORCHTUNE} torchtune/models/qwen2_5/_model_builders.py (qwen2_5_1_5b_instruct, "
                     "qwen2_5_1_5b_base: 28 layers, width 1536, MLP 8960, 12 heads, 2 key-value heads, vocabulary "
                     "151936, tied embeddings); Qwen2.5-1.5B-Instruct's config.json quoted in public code agrees",
        "config": {**_qwen2(1536, 8960, 28, 12, 2), "vocab_size": 151936, "max_position_embeddings": 32768,
                   "rms_norm_eps": 1e-6, "tie_word_embeddings": True},
    },
    "gemma-7b": {
        "name": "Gemma 7B", "family": "Gemma", "hf_repo": "google/gemma-7b",
        "aliases": ["google/gemma-7b-it", "HuggingFaceH4/zephyr-7b-gemma-sft-v0.1"],
        "alias_source": "zephyr-7b-gemma-sft-v0.1 is a full fine-tune of google/gemma-7b that adds no tokens: "
                        "github.com/huggingface/alignment-handbook recipes/zephyr-7b-gemma/sft/config_full.yaml @ "
                        "925acdfe4b2b4e38c3dabd1851bc418f0b656351 starts from it and gives a chat_template",
        "read_from": "github.com/google/gemma_pytorch gemma/config.py (get_config_for_7b) @ "
                     f"03e657582d17cb5a8617ebf333c1c16f3694670e; the same numbers as {_TORCHTUNE} "
                     "torchtune/models/gemma/_model_builders.py (gemma_7b) and transformers' GemmaConfig defaults",
        "config": {"model_type": "gemma", "vocab_size": 256000, "hidden_size": 3072, "intermediate_size": 24576,
                   "num_hidden_layers": 28, "num_attention_heads": 16, "num_key_value_heads": 16, "head_dim": 256,
                   "max_position_embeddings": 8192, "rms_norm_eps": 1e-6, "rope_theta": 10000.0,
                   "hidden_activation": "gelu_pytorch_tanh", "attention_bias": False, "tie_word_embeddings": True},
    },
    "codellama-34b": {
        "name": "Code Llama 34B", "family": "Code Llama", "hf_repo": "codellama/CodeLlama-34b-hf",
        "aliases": ["codellama/CodeLlama-34b-Instruct-hf"],
        "read_from": f"{_LITGPT} (CodeLlama-34b-hf and -Instruct-hf: vocabulary 32000, 48 layers, width 8192, 64 "
                     "heads in 8 query groups, MLP 22016, RoPE base 1e6, 16384 positions)",
        "config": _llama(32000, (8192, 22016, 48, 64, 8), positions=16384, theta=1000000.0),
    },
    "mistral-7b-v0.2": {
        "name": "Mistral 7B v0.2", "family": "Mistral", "hf_repo": "mistralai/Mistral-7B-Instruct-v0.2",
        "aliases": ["mistral-community/Mistral-7B-v0.2", "unsloth/mistral-7b-v0.2"],
        "read_from": f"{_LITGPT} (Mistral-7B-Instruct-v0.2 and Mistral-7B-v0.2: 32 layers, 8 query groups, MLP "
                     "14336, vocabulary 32000, RoPE base 1e6, 32768 positions, no sliding window, unlike v0.1)",
        "config": {"model_type": "mistral", "vocab_size": 32000, "hidden_size": 4096, "intermediate_size": 14336,
                   "num_hidden_layers": 32, "num_attention_heads": 32, "num_key_value_heads": 8,
                   "max_position_embeddings": 32768, "rms_norm_eps": 1e-5, "rope_theta": 1000000.0,
                   "hidden_act": "silu", "sliding_window": None, "tie_word_embeddings": False},
    },
    "open-llama-3b": {
        "name": "OpenLLaMA 3B", "family": "OpenLLaMA", "hf_repo": "openlm-research/open_llama_3b",
        "aliases": ["openlm-research/open_llama_3b_v2"],
        "alias_source": "open_llama_3b_v2 keeps v1's shape (26 layers, width 3200, 32 heads, vocabulary 32000, as "
                        "quoted for open_llama_3b_v2 in public code found through the search index)",
        "read_from": f"{_LITGPT} (open_llama_3b: vocabulary 32000, 26 layers, width 3200, MLP 8640, RMSNorm eps "
                     "1e-6, 2048 positions)",
        "config": _llama(32000, (3200, 8640, 26, 32, 32), positions=2048, theta=10000.0, eps=1e-6),
    },
    "yi-34b": {
        "name": "Yi 34B", "family": "Yi", "hf_repo": "01-ai/Yi-34B", "aliases": ["01-ai/Yi-34B-Chat"],
        "read_from": "Yi-34B's config.json quoted in public code (search index; several copies agree: 60 layers, "
                     "width 7168, 56 heads, 8 key-value heads, MLP 20480, vocabulary 64000, untied, RoPE base 5e6)",
        "config": _llama(64000, (7168, 20480, 60, 56, 8), positions=4096, theta=5000000.0, eps=1e-6),
    },
    "yi-6b": {
        "name": "Yi 6B", "family": "Yi", "hf_repo": "01-ai/Yi-6B", "aliases": [],
        "read_from": "Yi-6B's config.json as the defaults of YiConfig in github.com/InternLM/InternEvo-HFModels "
                     "huggingface_model/yi/yi_6B/configuration_yi.py @ 2cbc0493db4b35fea9f121374db20582f2ecf759 "
                     "(architectures LlamaForCausalLM: 32 layers, width 4096, 32 heads, 4 key-value heads, MLP "
                     "11008, vocabulary 64000, untied, RoPE base 5e6, 4096 positions)",
        "config": _llama(64000, (4096, 11008, 32, 32, 4), positions=4096, theta=5000000.0),
    },
    "qwen2-vl-7b": {
        "name": "Qwen2-VL 7B", "family": "Qwen2-VL", "hf_repo": "Qwen/Qwen2-VL-7B-Instruct",
        "aliases": ["Qwen/Qwen2-VL-7B"], "vision": True,
        "read_from": f"{_VISION}: Qwen2-VL-7B-Instruct's config.json (its language model's fields at the top "
                     "level) quoted in public code (search index): width 3584, MLP 18944, 28 layers, 28 heads, 4 "
                     "key-value heads, vocabulary 152064, Qwen2-7B's shape",
        "config": _qwen2_vl("qwen2_vl", 32768),
    },
    "qwen2.5-vl-7b": {
        "name": "Qwen2.5-VL 7B", "family": "Qwen2-VL", "hf_repo": "Qwen/Qwen2.5-VL-7B-Instruct", "aliases": [],
        "vision": True,
        "read_from": f"{_VISION}: Qwen2.5-VL-7B-Instruct's config.json quoted in public code (search index): width "
                     "3584, MLP 18944, 28 heads, 4 key-value heads, vocabulary 152064; 28 layers, Qwen2.5-7B's shape",
        "config": _qwen2_vl("qwen2_5_vl", 128000),
    },
    # -- models the training configs of issue 27 name --------------------------------------------------------------
    "qwen1.5-0.5b": {
        "name": "Qwen1.5 0.5B", "family": "Qwen2", "hf_repo": "Qwen/Qwen1.5-0.5B",
        "aliases": ["Qwen/Qwen1.5-0.5B-Chat"],
        "read_from": "Qwen1.5-0.5B's Qwen2Config as printed by public code (search index: hidden 1024, MLP 2816, 24 "
                     "layers, 16 heads, 16 key-value heads, 32768 positions, tied); its vocabulary 151936, Qwen1.5's "
                     "(the 1.8B and 7B configs below)",
        "config": _qwen15(1024, 2816, 24, 16, tie=True),
    },
    "qwen1.5-1.8b": {
        "name": "Qwen1.5 1.8B", "family": "Qwen2", "hf_repo": "Qwen/Qwen1.5-1.8B",
        "aliases": ["Qwen/Qwen1.5-1.8B-Chat"],
        "read_from": f"{_MLC} MODEL_PRESETS['qwen2'] (Qwen/Qwen1.5-1.8B-Chat's config.json: hidden 2048, MLP 5504, "
                     "24 layers, 16 heads, 16 key-value heads, vocabulary 151936, tied)",
        "config": _qwen15(2048, 5504, 24, 16, tie=True),
    },
    "qwen1.5-7b": {
        "name": "Qwen1.5 7B", "family": "Qwen2", "hf_repo": "Qwen/Qwen1.5-7B", "aliases": ["Qwen/Qwen1.5-7B-Chat"],
        "read_from": "Qwen1.5-7B's config.json as kept in github.com/huggingface/transformers "
                     "examples/pytorch/torchacc/qwen/Qwen1.5-7B/config.json @ f092c38c0bf55916e1c78bcf0f800a7f8a54860b",
        "config": _qwen15(4096, 11008, 32, 32, tie=False),
    },
    "mistral-7b-v0.3": {
        "name": "Mistral 7B v0.3", "family": "Mistral", "hf_repo": "mistralai/Mistral-7B-v0.3",
        "aliases": ["mistralai/Mistral-7B-Instruct-v0.3", "unsloth/mistral-7b-v0.3",
                    "unsloth/mistral-7b-instruct-v0.3"],
        "alias_source": f"Mistral-7B-Instruct-v0.3 has v0.3's shape ({_LITGPT}: vocabulary 32768, 32 layers, 8 query "
                        "groups, MLP 14336); unsloth's repositories of those names are their 16-bit re-uploads",
        "read_from": f"{_MLC} MODEL_PRESETS['mistral_7b_v03'] (Mistral-7B-v0.3's config.json: vocabulary 32768, no "
                     "sliding window)",
        "config": {"model_type": "mistral", "vocab_size": 32768, "hidden_size": 4096, "intermediate_size": 14336,
                   "num_hidden_layers": 32, "num_attention_heads": 32, "num_key_value_heads": 8,
                   "max_position_embeddings": 32768, "rms_norm_eps": 1e-5, "rope_theta": 1000000.0,
                   "hidden_act": "silu", "sliding_window": None, "tie_word_embeddings": False},
    },
    "deepseek-r1-distill-qwen-1.5b": {
        "name": "DeepSeek-R1-Distill-Qwen 1.5B", "family": "DeepSeek", "aliases": [],
        "hf_repo": "deepseek-ai/DeepSeek-R1-Distill-Qwen-1.5B",
        "read_from": f"{_DEEPSEEK_README} (Qwen2.5-Math-1.5B: 28 layers, hidden 1536, MLP 8960, 12 heads, 2 key-value "
                     f"heads, vocabulary 151936: {_LITGPT}); unlike its base, the distill's output layer is its own "
                     "(tie_word_embeddings false: its 16-bit checkpoint is 3.39 GB as a public quantization report "
                     "gives it, where a tied one would hold 3.09 GB)",
        "config": {"model_type": "qwen2", "vocab_size": 151936, "hidden_size": 1536, "intermediate_size": 8960,
                   "num_hidden_layers": 28, "num_attention_heads": 12, "num_key_value_heads": 2,
                   "max_position_embeddings": 131072, "rms_norm_eps": 1e-6, "rope_theta": 10000.0,
                   "hidden_act": "silu", "use_sliding_window": False, "tie_word_embeddings": False},
    },
    # Hybrid layers and parallel blocks (issue 27): gated DeltaNet, Mamba-2, Mamba, KDA, short convolutions
    "qwen3.5-27b": {
        "name": "Qwen3.5 27B", "family": "Qwen3.5", "hf_repo": "Qwen/Qwen3.5-27B", "aliases": [], "vision": True,
        "read_from": _AIC.format("Qwen--Qwen3.5-27B_config.json", "qwen3_5_27b"),
        "published": True, "config": _published("qwen3_5_27b"),
    },
    "qwen3.5-35b-a3b": {
        "name": "Qwen3.5 35B-A3B", "family": "Qwen3.5", "hf_repo": "Qwen/Qwen3.5-35B-A3B", "aliases": [],
        "vision": True, "read_from": _AIC.format("Qwen--Qwen3.5-35B-A3B_config.json", "qwen3_5_35b_a3b"),
        "published": True, "config": _published("qwen3_5_35b_a3b"),
    },
    "qwen3.5-122b-a10b": {
        "name": "Qwen3.5 122B-A10B", "family": "Qwen3.5", "hf_repo": "Qwen/Qwen3.5-122B-A10B", "aliases": [],
        "vision": True, "read_from": _AIC.format("Qwen--Qwen3.5-122B-A10B_config.json", "qwen3_5_122b_a10b"),
        "published": True, "config": _published("qwen3_5_122b_a10b"),
    },
    "qwen3.5-397b-a17b": {
        "name": "Qwen3.5 397B-A17B", "family": "Qwen3.5", "hf_repo": "Qwen/Qwen3.5-397B-A17B", "aliases": [],
        "vision": True, "read_from": _AIC.format("Qwen--Qwen3.5-397B-A17B_config.json", "qwen3_5_397b_a17b"),
        "published": True, "config": _published("qwen3_5_397b_a17b"),
    },
    "qwen3-next-80b-a3b-thinking": {
        "name": "Qwen3-Next 80B-A3B Thinking", "family": "Qwen3-Next", "hf_repo": "Qwen/Qwen3-Next-80B-A3B-Thinking",
        "aliases": [],
        "read_from": "a copy of the published config.json in github.com/ai-dynamo/aiconfigurator src/aiconfigurator/"
                     "model_configs/Qwen--Qwen3-Next-80B-A3B-Thinking_config.json @ "
                     "1b7cfb10a6fa06880ad7911db5ddb949882ff76a (tests/engine/data/configs/"
                     "qwen3_next_80b_a3b_thinking.json)",
        "published": True, "config": _published("qwen3_next_80b_a3b_thinking"),
    },
    "nemotron-3-nano-30b-a3b": {
        "name": "Nemotron 3 Nano 30B-A3B", "family": "Nemotron",
        "hf_repo": "nvidia/NVIDIA-Nemotron-3-Nano-30B-A3B-BF16",
        "aliases": [],
        "read_from": _AIC.format("nvidia--NVIDIA-Nemotron-3-Nano-30B-A3B-BF16_config.json", "nemotron_3_nano_30b_a3b"),
        "published": True, "config": _published("nemotron_3_nano_30b_a3b"),
    },
    "nemotron-h-56b": {
        "name": "Nemotron-H 56B", "family": "Nemotron", "hf_repo": "nvidia/Nemotron-H-56B-Base-8K", "aliases": [],
        "read_from": _AIC.format("nvidia--Nemotron-H-56B-Base-8K_config.json", "nemotron_h_56b"),
        "published": True, "config": _published("nemotron_h_56b"),
    },
    "nemotron-3-ultra-550b-a55b": {
        "name": "Nemotron 3 Ultra 550B-A55B", "family": "Nemotron",
        "hf_repo": "nvidia/NVIDIA-Nemotron-3-Ultra-550B-A55B-BF16", "aliases": [],
        "read_from": _AIC.format("nvidia--NVIDIA-Nemotron-3-Ultra-550B-A55B-BF16_config.json",
                                 "nemotron_3_ultra_550b_a55b"),
        "published": True, "config": _published("nemotron_3_ultra_550b_a55b"),
    },
    "kimi-linear-48b-a3b": {
        "name": "Kimi Linear 48B-A3B", "family": "Kimi Linear", "hf_repo": "moonshotai/Kimi-Linear-48B-A3B-Instruct",
        "aliases": [],
        "read_from": "Kimi-Linear-48B-A3B's config.json quoted in public code (search index: a test named for the "
                     "released 48B config): 27 layers, hidden 2304, MLA on the 1-indexed layers 4, 8, ..., 24, 27 "
                     "(kv_lora_rank 512, no q_lora, 32 heads), KDA (32 heads of 128, kernel 4) elsewhere, 256 experts "
                     "of 1024 (top 8) and 1 shared after the first dense layer (9216)",
        "config": {"model_type": "kimi_linear", "vocab_size": 163840, "hidden_size": 2304, "intermediate_size": 9216,
                   "moe_intermediate_size": 1024, "num_hidden_layers": 27, "num_attention_heads": 32,
                   "num_key_value_heads": 32, "kv_lora_rank": 512, "q_lora_rank": None, "qk_nope_head_dim": 128,
                   "qk_rope_head_dim": 64, "v_head_dim": 128, "num_experts": 256, "num_experts_per_token": 8,
                   "num_shared_experts": 1, "first_k_dense_replace": 1, "moe_layer_freq": 1,
                   "routed_scaling_factor": 2.446, "moe_renormalize": True, "num_expert_group": 1, "topk_group": 1,
                   "mla_use_nope": True, "moe_router_activation_func": "sigmoid", "rms_norm_eps": 1e-5,
                   "hidden_act": "silu", "tie_word_embeddings": False,
                   "linear_attn_config": {"head_dim": 128, "num_heads": 32, "short_conv_kernel_size": 4,
                                          "full_attn_layers": [4, 8, 12, 16, 20, 24, 27],
                                          "kda_layers": [1, 2, 3, 5, 6, 7, 9, 10, 11, 13, 14, 15, 17, 18, 19, 21, 22,
                                                         23, 25, 26]}},
    },
    "lfm2-1.2b": {
        "name": "LFM2 1.2B", "family": "LFM2", "hf_repo": "LiquidAI/LFM2-1.2B", "aliases": [],
        "read_from": "LFM2-1.2B's config.json quoted in public code (search index: one test quoting the published "
                     "file's shape, 16 layers, hidden 2048, 32 heads, 8 key-value heads, attention at full_attn_idxs "
                     "2, 5, 8, 10, 12, 14, conv_L_cache 3; another a verbatim copy with block_ff_dim 12288, "
                     "block_multiple_of 256, block_auto_adjust_ff_dim true); calibration/models.py's config, traced "
                     "in docs/accuracy.md",
        "config": {"model_type": "lfm2", "vocab_size": 65536, "hidden_size": 2048, "intermediate_size": 12288,
                   "block_ff_dim": 12288, "block_auto_adjust_ff_dim": True, "block_ffn_dim_multiplier": 1.0,
                   "block_multiple_of": 256, "num_hidden_layers": 16, "num_attention_heads": 32,
                   "num_key_value_heads": 8, "conv_L_cache": 3, "conv_bias": False,
                   "full_attn_idxs": [2, 5, 8, 10, 12, 14], "norm_eps": 1e-5, "max_position_embeddings": 128000,
                   "rope_theta": 1000000.0, "tie_embedding": True},
    },
    "jamba-v0.1": {
        "name": "Jamba v0.1 (52B)", "family": "Jamba", "hf_repo": "ai21labs/Jamba-v0.1", "aliases": [],
        "read_from": "Jamba-v0.1's config.json as quoted in public code (search index, trimmed to its shape: "
                     "hidden 4096, 32 layers, 32 heads, 8 key-value heads, attention period 8 from 4, 16 experts top "
                     "2 on every other layer from 1, mamba d_state 16, d_conv 4, expand 2, vocabulary 65536); the "
                     "Mamba fields it leaves out as AI21-Jamba-1.5-Mini's full copy gives them (dt rank 256, conv "
                     "bias, no projection bias)",
        "config": _jamba(),
    },
    "jamba-1.5-mini": {
        "name": "Jamba 1.5 Mini (52B)", "family": "Jamba", "hf_repo": "ai21labs/AI21-Jamba-1.5-Mini", "aliases": [],
        "read_from": "AI21-Jamba-1.5-Mini's config.json quoted in public code (search index: a model builder that "
                     "links huggingface.co/ai21labs/AI21-Jamba-1.5-Mini/blob/main/config.json)",
        "config": _jamba(eos_token_id=[2, 518]),
    },
    "gpt-j-6b": {
        "name": "GPT-J 6B", "family": "GPT-J", "hf_repo": "EleutherAI/gpt-j-6b", "aliases": [],
        "read_from": f"{_MLC} MODEL_PRESETS['gpt_j'] (GPT-J 6B's config.json: n_embd 4096, 28 layers, 16 heads, "
                     "rotary_dim 64, vocabulary 50400)",
        "config": {"model_type": "gptj", "vocab_size": 50400, "n_embd": 4096, "n_layer": 28, "n_head": 16,
                   "n_inner": None, "rotary_dim": 64, "n_positions": 2048, "activation_function": "gelu_new",
                   "layer_norm_epsilon": 1e-5, "tie_word_embeddings": False},
    },
    "redpajama-incite-3b": {
        "name": "RedPajama-INCITE Chat 3B", "family": "RedPajama",
        "hf_repo": "togethercomputer/RedPajama-INCITE-Chat-3B-v1", "aliases": [],
        "read_from": f"{_MLC} MODEL_PRESETS['redpajama_3b_v1'] (sequential GPT-NeoX blocks: use_parallel_residual "
                     "false, rotary_pct 1.0, hidden 2560, 32 layers, 32 heads, MLP 10240, vocabulary 50432)",
        "config": {"model_type": "gpt_neox", "vocab_size": 50432, "hidden_size": 2560, "intermediate_size": 10240,
                   "num_hidden_layers": 32, "num_attention_heads": 32, "rotary_pct": 1.0, "rotary_emb_base": 10000,
                   "max_position_embeddings": 2048, "layer_norm_eps": 1e-5, "hidden_act": "gelu",
                   "use_parallel_residual": False, "tie_word_embeddings": False},
    },
    "aya-23-8b": {
        "name": "Aya 23 8B", "family": "Cohere", "hf_repo": "CohereForAI/aya-23-8B", "aliases": [],
        "read_from": f"{_MLC} MODEL_PRESETS['aya-23'] (Aya 23 8B's config.json: CohereForCausalLM, hidden 4096, 32 "
                     "layers, 32 heads, 8 key-value heads, MLP 14336, vocabulary 256000, use_qk_norm false, "
                     "embeddings tied by CohereConfig's default)",
        "config": {"model_type": "cohere", "vocab_size": 256000, "hidden_size": 4096, "intermediate_size": 14336,
                   "num_hidden_layers": 32, "num_attention_heads": 32, "num_key_value_heads": 8,
                   "attention_bias": False, "logit_scale": 0.0625, "layer_norm_eps": 1e-5,
                   "max_position_embeddings": 8192, "rope_theta": 10000, "use_qk_norm": False, "hidden_act": "silu"},
    },
    "phi-1.5": {
        "name": "Phi-1.5 (1.4B)", "family": "Phi-2", "hf_repo": "microsoft/phi-1_5", "aliases": [],
        "read_from": f"{_MLC} MODEL_PRESETS['phi-1_5'] (the first phi-msft file: n_embd 2048, 24 layers, 32 heads, "
                     "rotary_dim 32, n_inner 4 x n_embd, vocabulary 51200), written with transformers' PhiConfig "
                     "names (the repository's config.json since its conversion to model_type phi)",
        "config": _phi(2048, 24),
    },
    "phi-2": {
        "name": "Phi-2 (2.7B)", "family": "Phi-2", "hf_repo": "microsoft/phi-2", "aliases": [],
        "read_from": f"{_MLC} MODEL_PRESETS['phi-2'] (the first phi-msft file: n_embd 2560, 32 layers, 32 heads, "
                     "rotary_dim 32, n_inner 4 x n_embd, vocabulary 51200), written with transformers' PhiConfig "
                     "names (the repository's config.json since its conversion to model_type phi)",
        "config": _phi(2560, 32),
    },
}
#: Pythia: name -> hidden, layers, heads, padded vocabulary (litgpt's list: padding_multiple 128, 256 for 6.9B, the
#: default 512 for 12B)
_PYTHIAS = {"160m": (768, 12, 12, 50304), "410m": (1024, 24, 16, 50304), "1b": (2048, 16, 8, 50304),
            "1.4b": (2048, 24, 16, 50304), "2.8b": (2560, 32, 32, 50304), "6.9b": (4096, 32, 32, 50432),
            "12b": (5120, 36, 40, 50688)}
ENTRIES.update({f"pythia-{size}": {"name": f"Pythia {size.upper()}", "family": "Pythia",
                                   "hf_repo": f"EleutherAI/pythia-{size}",
                                   "aliases": [f"EleutherAI/pythia-{size}-deduped"],
                                   "alias_source": "the deduped models are trained on the deduplicated Pile with the "
                                                   "same architecture (litgpt copies each entry to its -deduped name)",
                                   "read_from": _PYTHIA, "config": _pythia(*shape)}
                for size, shape in _PYTHIAS.items()})


def configs() -> dict[str, dict[str, Any]]:
    """Catalog id -> config dict, of the configs written by us."""
    return {k: v["config"] for k, v in ENTRIES.items() if not v.get("published")}


def published_configs() -> dict[str, dict[str, Any]]:
    """Catalog id -> published config dict (tests/engine/data/configs): counted, not kept in the counts file."""
    return {k: v["config"] for k, v in ENTRIES.items() if v.get("published")}
