"""Record what transformers and PEFT build for each config: total parameters and LoRA trainable counts.

    /work/calib-venv/bin/python -m calibration.counts     # rewrites tests/engine/data/transformers_counts.json
    /work/calib-venv/bin/python -m calibration.counts DIR ID ...   # configs from DIR too; only these ids, merged

Each model is built on the `meta` device from its config (nothing is allocated or downloaded), as the model class
`AutoModelForCausalLM` picks (for a multimodal wrapper: the language model, from `text_config`); PEFT's
`get_peft_model` then wraps it with `LoraConfig(r=16, lora_alpha=32, target_modules=...)` for three target sets:
"all-linear" (PEFT's keyword), "attention" and "qv" (the family's own module names). The app's tests compare the
engine's counts with these numbers without importing torch (tests/engine/test_transformers_counts.py).

Configs: the calibration catalog (calibration/models.py), the real config.json files of the bundled catalog
(engine/catalog/hf_configs/*.json, when present) and small configs of every family the engine imports.
"""

from __future__ import annotations

import copy
import json
import sys
import warnings
from pathlib import Path
from typing import Any

import torch

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "tests" / "engine" / "data" / "transformers_counts.json"
SMALL = {"hidden_size": 64, "intermediate_size": 96, "num_attention_heads": 4, "num_key_value_heads": 2,
         "head_dim": 16, "vocab_size": 100, "pad_token_id": 0}
MOE = {"moe_intermediate_size": 32, "num_experts_per_tok": 2}

#: small configs of families the catalog may not hold (every layer kind the engine reads)
FAMILY_PROBES: dict[str, dict[str, Any]] = {
    "probe-qwen2-moe": {"model_type": "qwen2_moe", "num_hidden_layers": 3, **SMALL, **MOE, "num_experts": 4,
                        "shared_expert_intermediate_size": 48, "mlp_only_layers": [0], "decoder_sparse_step": 1},
    "probe-qwen3-moe-step2": {"model_type": "qwen3_moe", "num_hidden_layers": 4, **SMALL, **MOE, "num_experts": 4,
                              "decoder_sparse_step": 2},
    "probe-olmoe": {"model_type": "olmoe", "num_hidden_layers": 2, **SMALL, "intermediate_size": 32,
                    "num_experts": 4, "num_experts_per_tok": 2},
    "probe-mixtral": {"model_type": "mixtral", "num_hidden_layers": 2, **SMALL, "num_local_experts": 4,
                      "num_experts_per_tok": 2},
    "probe-glm4": {"model_type": "glm4", "num_hidden_layers": 2, **SMALL},
    "probe-glm4-moe": {"model_type": "glm4_moe", "num_hidden_layers": 3, **SMALL, **MOE, "n_routed_experts": 4,
                       "n_shared_experts": 1, "first_k_dense_replace": 1, "n_group": 1, "topk_group": 1,
                       "use_qk_norm": True, "attention_bias": True},
    "probe-deepseek-v2-lite": {"model_type": "deepseek_v2", "num_hidden_layers": 3, **SMALL, **MOE,
                               "n_routed_experts": 4, "n_shared_experts": 2, "first_k_dense_replace": 1,
                               "q_lora_rank": None, "kv_lora_rank": 32, "qk_rope_head_dim": 8,
                               "qk_nope_head_dim": 16, "v_head_dim": 16, "n_group": 1, "topk_group": 1},
    "probe-granite": {"model_type": "granite", "num_hidden_layers": 2, **SMALL},
    "probe-granitemoe": {"model_type": "granitemoe", "num_hidden_layers": 2, **SMALL, "intermediate_size": 32,
                         "num_local_experts": 4, "num_experts_per_tok": 2},
    "probe-granitemoeshared": {"model_type": "granitemoeshared", "num_hidden_layers": 2, **SMALL,
                               "intermediate_size": 32, "shared_intermediate_size": 48, "num_local_experts": 4,
                               "num_experts_per_tok": 2},
    "probe-granite4-dense": {"model_type": "granitemoehybrid", "num_hidden_layers": 2, **SMALL,
                             "shared_intermediate_size": 48, "num_local_experts": 0, "num_experts_per_tok": 0,
                             "layer_types": ["attention", "attention"]},
    "probe-granite4-moe": {"model_type": "granitemoehybrid", "num_hidden_layers": 2, **SMALL,
                           "intermediate_size": 32, "shared_intermediate_size": 48, "num_local_experts": 4,
                           "num_experts_per_tok": 2, "layer_types": ["attention", "attention"]},
    "probe-smollm3": {"model_type": "smollm3", "num_hidden_layers": 4, **SMALL},
    "probe-internlm3": {"model_type": "internlm3", "num_hidden_layers": 2, **SMALL},
    "probe-ministral3": {"model_type": "ministral3", "num_hidden_layers": 2, **SMALL},
    "probe-mistral": {"model_type": "mistral", "num_hidden_layers": 2, **SMALL},
    "probe-gemma2": {"model_type": "gemma2", "num_hidden_layers": 3, **SMALL},
    "probe-exaone4-swa": {"model_type": "exaone4", "num_hidden_layers": 8, **SMALL, "sliding_window": 32,
                          "sliding_window_pattern": 4},
    "probe-olmo3": {"model_type": "olmo3", "num_hidden_layers": 4, **SMALL},
    "probe-qwen2": {"model_type": "qwen2", "num_hidden_layers": 2, **SMALL},
    "probe-gemma3-wrapped": {"model_type": "gemma3", "text_config": {
        "model_type": "gemma3_text", "num_hidden_layers": 7, **SMALL}},
    "probe-mistral3-wrapped": {"model_type": "mistral3", "text_config": {
        "model_type": "mistral", "num_hidden_layers": 2, **SMALL}},
    "probe-llama4-wrapped": {"model_type": "llama4", "text_config": {
        "model_type": "llama4_text", "num_hidden_layers": 4, **SMALL, "intermediate_size": 32,
        "intermediate_size_mlp": 96, "num_local_experts": 4, "num_experts_per_tok": 1,
        "interleave_moe_layer_step": 2}},
}

ATTENTION = {"default": ["q_proj", "k_proj", "v_proj", "o_proj"], "phi3": ["qkv_proj", "o_proj"],
             "gpt2": ["c_attn", "attn.c_proj"],
             "mla": ["q_proj", "q_a_proj", "q_b_proj", "kv_a_proj_with_mqa", "kv_b_proj", "o_proj"]}
QV = {"default": ["q_proj", "v_proj"], "phi3": ["qkv_proj"], "gpt2": ["c_attn"], "mla": ["q_proj", "q_b_proj",
                                                                                         "kv_b_proj"]}
#: PEFT 0.21.2's all-linear wraps Llama 4's router, whose forward then fails (it returns a tuple): count
#: all-linear as users run it, every linear but the router
LLAMA4_ALL_LINEAR = ["q_proj", "k_proj", "v_proj", "o_proj", "gate_proj", "up_proj", "down_proj"]


#: model types whose layers the engine refuses (state-space, linear attention, sparse-attention indexers, Gemma 4):
#: nothing to compare (engine/hf_families.py REFUSED)
SKIPPED = {"qwen3_5", "qwen3_5_moe", "qwen3_5_text", "qwen3_5_moe_text", "nemotron_h", "deepseek_v32", "glm_moe_dsa",
           "gemma4", "gemma4_text", "qwen3_next"}


def _text_type(cfg: dict[str, Any]) -> str:
    return str(cfg.get("text_config", cfg).get("model_type") or cfg["model_type"])


def _names(cfg: dict[str, Any], table: dict[str, list[str]]) -> list[str]:
    t = _text_type(cfg)
    key = "mla" if t.startswith(("deepseek", "kimi_k2", "glm4_moe_lite")) else t if t in table else "default"
    return table[key]


def _build(cfg: dict[str, Any]) -> torch.nn.Module:
    from transformers import AutoConfig, AutoModelForCausalLM

    d = copy.deepcopy(cfg)
    if "text_config" in d:  # the language model of a multimodal checkpoint
        d = {**d["text_config"]}
        if "model_type" not in d:
            d["model_type"] = {"gemma3": "gemma3_text", "mistral3": "mistral", "llama4": "llama4_text",
                               "kimi_k25": "kimi_k2", "qwen3_vl": "qwen3_vl_text",
                               "qwen3_vl_moe": "qwen3_vl_moe_text"}[cfg["model_type"]]
        if "tie_word_embeddings" not in d and "tie_word_embeddings" in cfg:
            d["tie_word_embeddings"] = cfg["tie_word_embeddings"]
    model_type = d.pop("model_type")
    model_type = {"kimi_k2": "deepseek_v3", "mimo": "qwen2"}.get(model_type, model_type)
    for key in ("architectures", "auto_map", "quantization_config", "torch_dtype", "transformers_version"):
        d.pop(key, None)
    config = AutoConfig.for_model(model_type, **d)
    with torch.device("meta"):
        try:
            return AutoModelForCausalLM.from_config(config, dtype=torch.bfloat16)
        except ValueError:  # a text model with no causal-LM class of its own (Qwen3-VL): the model + its head
            from transformers import AutoModel

            model = AutoModel.from_config(config, dtype=torch.bfloat16)
            head = 0 if getattr(config, "tie_word_embeddings", False) else config.hidden_size * config.vocab_size
            model.head_params = head  # counted apart: a Linear added here would be adapted by all-linear
            return model


def _lora(cfg: dict[str, Any], targets: Any) -> tuple[int, list[str], list[str]]:
    from peft import LoraConfig, get_peft_model

    base = _build(cfg)
    task = "CAUSAL_LM" if hasattr(base, "prepare_inputs_for_generation") else None  # a bare text model: no task
    model = get_peft_model(base, LoraConfig(r=16, lora_alpha=32, target_modules=targets, task_type=task))
    c = model.peft_config["default"]
    trainable = sum(p.numel() for p in model.parameters() if p.requires_grad)
    leaf = sorted({t.rsplit(".", 1)[-1] for t in (c.target_modules or [])})
    return trainable, leaf, sorted(c.target_parameters or [])


def record(model_id: str, cfg: dict[str, Any]) -> dict[str, Any]:
    """What transformers and PEFT build for one config."""
    model = _build(cfg)
    total = sum(p.numel() for p in model.parameters()) + getattr(model, "head_params", 0)
    all_linear = LLAMA4_ALL_LINEAR if _text_type(cfg) == "llama4_text" else "all-linear"
    n_all, modules, params = _lora(cfg, all_linear)
    return {"id": model_id, "config": cfg, "total_params": total,
            "lora_r16": {"all-linear": n_all, "attention": _lora(cfg, _names(cfg, ATTENTION))[0],
                         "qv": _lora(cfg, _names(cfg, QV))[0]},
            "all_linear_modules": modules, "all_linear_parameters": params}


def configs(extra: Path | None = None) -> dict[str, dict[str, Any]]:
    from calibration.models import CATALOG

    out = {k: v for k, v in CATALOG.items() if not k.startswith("tiny")}
    folder = extra or ROOT / "engine" / "catalog" / "hf_configs"
    for path in sorted(folder.glob("*.json")):
        entry = json.loads(path.read_text())
        out[entry["id"]] = entry["config"]
    out.update(FAMILY_PROBES)
    return out


def main() -> int:
    warnings.filterwarnings("ignore")
    from transformers.utils import logging

    logging.set_verbosity_error()
    only = set(sys.argv[2:])
    kept = json.loads(OUT.read_text())["models"] if only and OUT.exists() else []
    rows = [r for r in kept if r["id"] not in only]
    for model_id, cfg in configs(Path(sys.argv[1]) if len(sys.argv) > 1 else None).items():
        if {cfg.get("model_type"), _text_type(cfg)} & SKIPPED or (only and model_id not in only):
            continue
        try:
            rows.append(record(model_id, cfg))
        except Exception as exc:  # keep going; say which failed
            print(f"{model_id}: FAILED {type(exc).__name__}: {str(exc)[:200]}", flush=True)
            continue
        print(f"{model_id:36s} {rows[-1]['total_params']:>18,} {rows[-1]['lora_r16']}", flush=True)
    import peft
    import transformers

    OUT.write_text(json.dumps({"transformers": transformers.__version__, "peft": peft.__version__,
                               "torch": torch.__version__.split("+")[0], "models": rows}, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
