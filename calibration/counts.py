"""Record what transformers and PEFT build for each config: total parameters and LoRA trainable counts.

    /work/calib-venv/bin/python -m calibration.counts                # our configs: rows recomputed, others kept
    /work/calib-venv/bin/python -m calibration.counts ID ...         # only these ids
    /work/calib-venv/bin/python -m calibration.counts --real DIR [ID ...]   # the published configs in DIR too

Each model is built on the `meta` device from its config (nothing is allocated or downloaded), as the model class
`AutoModelForCausalLM` picks (for a multimodal wrapper: the language model, from `text_config`); PEFT's
`get_peft_model` then wraps it with `LoraConfig(r=16, lora_alpha=32, target_modules=...)` for three target sets:
"all-linear" (PEFT's keyword), "attention" and "qv" (the family's own module names). The app's tests compare the
engine's counts with these numbers without importing torch (tests/engine/test_transformers_counts.py).

Configs, two kinds:

* ours, recorded with their ``config`` (the app's tests import it again): the calibration catalog
  (calibration/models.py), the catalog models we wrote (calibration/catalog_configs.py) and small probes of every
  family the engine imports (``FAMILY_PROBES``);
* published config.json files of catalog models, read from ``--real DIR`` (one JSON file per model, its config under
  ``"config"``; kept outside the repository) and the few the tests keep (calibration/catalog_configs.py
  ``published_configs``: tests/engine/data/configs): recorded without their ``config``; the app's tests compare
  the catalog entry of the same id (engine/catalog/models_hf.json) with the numbers.

Rows already in the file and not recomputed are kept.
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
#: a Mamba-2 mixer's sizes (BambaConfig / GraniteMoeHybridConfig names): 8 heads of 16 = 2 x hidden
MAMBA2 = {"mamba_n_heads": 8, "mamba_d_head": 16, "mamba_d_state": 16, "mamba_n_groups": 2, "mamba_chunk_size": 16}
#: a gated DeltaNet's widths: 2 key heads, 4 value heads (grouped value heads), 16 wide
LINEAR = {"linear_num_key_heads": 2, "linear_num_value_heads": 4, "linear_key_head_dim": 16,
          "linear_value_head_dim": 16}

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
    "probe-stablelm": {"model_type": "stablelm", "num_hidden_layers": 2, **SMALL, "use_qkv_bias": True,
                       "partial_rotary_factor": 0.25},
    "probe-gemma3-wrapped": {"model_type": "gemma3", "text_config": {
        "model_type": "gemma3_text", "num_hidden_layers": 7, **SMALL}},
    "probe-mistral3-wrapped": {"model_type": "mistral3", "text_config": {
        "model_type": "mistral", "num_hidden_layers": 2, **SMALL}},
    # hybrid layers (issue 27)
    "probe-qwen3.5": {"model_type": "qwen3_5_text", "num_hidden_layers": 4, **SMALL, **LINEAR},
    "probe-qwen3.5-wrapped": {"model_type": "qwen3_5", "tie_word_embeddings": True, "text_config": {
        "num_hidden_layers": 4, **SMALL, **LINEAR, "layer_types": ["linear_attention", "full_attention"] * 2}},
    "probe-qwen3.5-moe": {"model_type": "qwen3_5_moe_text", "num_hidden_layers": 4, **SMALL, **LINEAR, **MOE,
                          "num_experts": 4, "shared_expert_intermediate_size": 48},
    "probe-qwen3-next": {"model_type": "qwen3_next", "num_hidden_layers": 4, **SMALL, **LINEAR, **MOE,
                         "num_experts": 4, "shared_expert_intermediate_size": 48, "mlp_only_layers": [1]},
    "probe-bamba": {"model_type": "bamba", "num_hidden_layers": 3, **SMALL, **MAMBA2, "attn_layer_indices": [1]},
    "probe-granite4-h": {"model_type": "granitemoehybrid", "num_hidden_layers": 3, **SMALL, **MAMBA2,
                         "intermediate_size": 32, "shared_intermediate_size": 48, "num_local_experts": 4,
                         "num_experts_per_tok": 2, "layer_types": ["mamba", "attention", "mamba"]},
    "probe-granite4-h-dense": {"model_type": "granitemoehybrid", "num_hidden_layers": 2, **SMALL, **MAMBA2,
                               "shared_intermediate_size": 48, "num_local_experts": 0, "num_experts_per_tok": 0,
                               "layer_types": ["mamba", "attention"], "mamba_d_head": "auto"},
    "probe-nemotron-h": {"model_type": "nemotron_h", **SMALL, "hybrid_override_pattern": "M-M*E",
                         "mamba_num_heads": 4, "mamba_head_dim": 16, "ssm_state_size": 16, "n_groups": 2,
                         "n_routed_experts": 4, "num_experts_per_tok": 2, "moe_intermediate_size": 32,
                         "moe_shared_expert_intermediate_size": 48},
    "probe-nemotron-h-latent": {"model_type": "nemotron_h", **SMALL, "layers_block_type": ["mamba", "moe"],
                                "mamba_num_heads": 4, "mamba_head_dim": 16, "ssm_state_size": 16, "n_groups": 2,
                                "n_routed_experts": 4, "num_experts_per_tok": 2, "moe_intermediate_size": 32,
                                "moe_shared_expert_intermediate_size": 48, "moe_latent_size": 24},
    "probe-mamba2": {"model_type": "mamba2", "num_hidden_layers": 2, "hidden_size": 64, "vocab_size": 100,
                     "num_heads": 8, "head_dim": 16, "state_size": 16, "n_groups": 2, "expand": 2},
    "probe-gptj": {"model_type": "gptj", "n_layer": 2, "n_embd": 64, "n_head": 4, "rotary_dim": 8, "vocab_size": 100},
    "probe-gpt-neox": {"model_type": "gpt_neox", "num_hidden_layers": 2, **SMALL, "rotary_pct": 0.25},
    "probe-gpt-neox-sequential": {"model_type": "gpt_neox", "num_hidden_layers": 2, **SMALL,
                                  "use_parallel_residual": False, "tie_word_embeddings": True},
    "probe-phi": {"model_type": "phi", "num_hidden_layers": 2, **SMALL, "partial_rotary_factor": 0.4},
    "probe-jamba": {"model_type": "jamba", "num_hidden_layers": 4, **SMALL, "num_experts": 4, "num_experts_per_tok": 2,
                    "attn_layer_period": 4, "attn_layer_offset": 1, "expert_layer_period": 2,
                    "expert_layer_offset": 1, "mamba_d_state": 8, "mamba_dt_rank": "auto"},
    "probe-mamba": {"model_type": "mamba", "num_hidden_layers": 2, "hidden_size": 64, "vocab_size": 100,
                    "state_size": 8, "expand": 2, "time_step_rank": 6},
    "probe-kimi-linear": {"model_type": "kimi_linear", "num_hidden_layers": 4, **SMALL, **MOE, "num_local_experts": 4,
                          "n_shared_experts": 1, "kv_lora_rank": 32, "q_lora_rank": None, "qk_rope_head_dim": 8,
                          "qk_nope_head_dim": 16, "v_head_dim": 16, "linear_attn_config": {
                              "num_heads": 4, "head_dim": 16, "short_conv_kernel_size": 4,
                              "kda_layers": [1, 2, 4], "full_attn_layers": [3]}},
    "probe-lfm2": {"model_type": "lfm2", "num_hidden_layers": 4, **SMALL, "intermediate_size": 192,
                   "block_multiple_of": 32, "layer_types": ["conv", "conv", "full_attention", "conv"]},
    "probe-kimi-linear-checkpoint-names": {
        "model_type": "kimi_linear", "num_hidden_layers": 3, **SMALL, "moe_intermediate_size": 32,
        "num_experts": 4, "num_experts_per_token": 3, "num_shared_experts": 2, "kv_lora_rank": 32,
        "q_lora_rank": 24, "qk_rope_head_dim": 8, "qk_nope_head_dim": 16, "v_head_dim": 16,
        "linear_attn_config": {"num_heads": 4, "head_dim": 16, "kda_layers": [1, 3], "full_attn_layers": [2]}},
    "probe-cohere": {"model_type": "cohere", "num_hidden_layers": 2, **SMALL, "logit_scale": 0.0625},
    "probe-cohere-bias": {"model_type": "cohere", "num_hidden_layers": 2, **SMALL, "attention_bias": True,
                          "tie_word_embeddings": False},
    "probe-arcee": {"model_type": "arcee", "num_hidden_layers": 2, **SMALL},
    "probe-llama4-wrapped": {"model_type": "llama4", "text_config": {
        "model_type": "llama4_text", "num_hidden_layers": 4, **SMALL, "intermediate_size": 32,
        "intermediate_size_mlp": 96, "num_local_experts": 4, "num_experts_per_tok": 1,
        "interleave_moe_layer_step": 2}},
}

ATTENTION = {"default": ["q_proj", "k_proj", "v_proj", "o_proj"], "phi3": ["qkv_proj", "o_proj"],
             "gpt2": ["c_attn", "attn.c_proj"], "gptj": ["q_proj", "k_proj", "v_proj", "out_proj"],
             "gpt_neox": ["query_key_value", "attention.dense"],
             "lfm2": ["q_proj", "k_proj", "v_proj", "self_attn.out_proj"],
             "phi": ["q_proj", "k_proj", "v_proj", "self_attn.dense"],
             "mla": ["q_proj", "q_a_proj", "q_b_proj", "kv_a_proj_with_mqa", "kv_b_proj", "o_proj"],
             # Kimi Linear: MLA layers and KDA layers (q_proj, k_proj, v_proj, o_proj)
             "kimi_linear": ["q_proj", "k_proj", "v_proj", "q_a_proj", "q_b_proj", "kv_a_proj_with_mqa", "kv_b_proj",
                             "o_proj"]}
QV = {"default": ["q_proj", "v_proj"], "phi3": ["qkv_proj"], "gpt2": ["c_attn"], "gpt_neox": ["query_key_value"],
      "kimi_linear": ["q_proj", "v_proj", "q_b_proj", "kv_b_proj"], "mla": ["q_proj", "q_b_proj",
                                                                                         "kv_b_proj"]}
#: PEFT 0.21.2's all-linear wraps Llama 4's router, whose forward then fails (it returns a tuple): count
#: all-linear as users run it, every linear but the router
LLAMA4_ALL_LINEAR = ["q_proj", "k_proj", "v_proj", "o_proj", "gate_proj", "up_proj", "down_proj"]


#: model types whose layers the engine refuses and transformers builds (sparse-attention indexers, Gemma 4):
#: nothing to compare (engine/hf_families.py REFUSED)
SKIPPED = {"deepseek_v32", "glm_moe_dsa", "gemma4", "gemma4_text"}
#: model types whose out_proj and conv1d PEFT 0.21 refuses to adapt (tuners_utils._check_lora_target_modules_mamba):
#: their all-linear fails; what runs is every other linear, named
PEFT_MAMBA = {"falcon_h1", "mamba", "mamba2", "falcon_mamba", "nemotron_h"}


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
                               "qwen3_vl_moe": "qwen3_vl_moe_text", "qwen3_5": "qwen3_5_text",
                               "qwen3_5_moe": "qwen3_5_moe_text"}[cfg["model_type"]]
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


def _named_lora(cfg: dict[str, Any], names: list[str]) -> int:
    """Trainable LoRA parameters on named modules; 0 where the model has none of them (a Mamba model's q_proj:
    PEFT refuses with NoMatchingPeftModuleError)."""
    from peft.tuners.tuners_utils import NoMatchingPeftModuleError

    try:
        return _lora(cfg, names)[0]
    except NoMatchingPeftModuleError:
        return 0


def record(model_id: str, cfg: dict[str, Any], *, keep_config: bool = True) -> dict[str, Any]:
    """What transformers and PEFT build for one config (its ``config`` kept only when it is ours)."""
    model = _build(cfg)
    total = sum(p.numel() for p in model.parameters()) + getattr(model, "head_params", 0)
    all_linear: Any = LLAMA4_ALL_LINEAR if _text_type(cfg) == "llama4_text" else "all-linear"
    if _text_type(cfg) in PEFT_MAMBA:
        all_linear = linears_peft_accepts(model)
    n_all, modules, params = _lora(cfg, all_linear)
    return {"id": model_id, **({"config": cfg} if keep_config else {}), "total_params": total,
            "lora_r16": {"all-linear": n_all, "attention": _named_lora(cfg, _names(cfg, ATTENTION)),
                         "qv": _named_lora(cfg, _names(cfg, QV))},
            "all_linear_modules": modules, "all_linear_parameters": params}


def linears_peft_accepts(model: torch.nn.Module) -> list[str]:
    """Every nn.Linear's name but the output layer's and those PEFT 0.21 refuses on a Mamba model (out_proj)."""
    names = {n.rsplit(".", 1)[-1] for n, m in model.named_modules() if isinstance(m, torch.nn.Linear)}
    return sorted(names - {"out_proj", "lm_head"})


def configs() -> dict[str, dict[str, Any]]:
    """Our configs (module docstring): recorded with their ``config``."""
    from calibration.catalog_configs import configs as catalog_configs
    from calibration.models import CATALOG

    out = {k: v for k, v in CATALOG.items() if not k.startswith("tiny")}
    out.update(catalog_configs())
    out.update(FAMILY_PROBES)
    return out


def real_configs(folder: Path) -> dict[str, dict[str, Any]]:
    """The published configs of ``folder`` (``{"id", "config", ...}`` per file), by id."""
    out = {}
    for path in sorted(folder.glob("*.json")):
        entry = json.loads(path.read_text())
        out[entry["id"]] = entry["config"]
    return out


def _arguments(argv: list[str]) -> tuple[Path | None, set[str]]:
    if argv[:1] == ["--real"]:
        return Path(argv[1]), set(argv[2:])
    return None, set(argv)


def main() -> int:
    warnings.filterwarnings("ignore")
    from transformers.utils import logging

    logging.set_verbosity_error()
    real_dir, only = _arguments(sys.argv[1:])
    from calibration.catalog_configs import published_configs

    ours = configs()
    real = {**published_configs(), **(real_configs(real_dir) if real_dir else {})}
    real = {k: v for k, v in real.items() if k not in ours}
    todo = [(k, c, True) for k, c in ours.items()] + [(k, c, False) for k, c in real.items()]
    todo = [t for t in todo if not only or t[0] in only]
    done = {t[0] for t in todo}
    rows = [r for r in (json.loads(OUT.read_text())["models"] if OUT.exists() else []) if r["id"] not in done]
    for model_id, cfg, keep in todo:
        if {cfg.get("model_type"), _text_type(cfg)} & SKIPPED:
            continue
        try:
            rows.append(record(model_id, cfg, keep_config=keep))
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
