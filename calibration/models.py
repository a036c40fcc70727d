"""The model catalog (Hugging Face config dicts written out by hand) and how a traced model is built.

Nothing is downloaded: each entry is the published `config.json` of the model, reduced to the fields that shape
the network, and `build_model` makes the model from it on the `meta` device. `materialize` then gives it storage:
fake storage inside a `FakeTensorMode`, real storage outside one.
"""

from __future__ import annotations

import copy
from typing import Any

import torch

LLAMA3_ROPE = {"rope_type": "llama3", "high_freq_factor": 4.0, "low_freq_factor": 1.0,
               "original_max_position_embeddings": 8192}

CATALOG: dict[str, dict[str, Any]] = {
    "llama-2-7b": {
        "model_type": "llama", "vocab_size": 32000, "hidden_size": 4096, "intermediate_size": 11008,
        "num_hidden_layers": 32, "num_attention_heads": 32, "num_key_value_heads": 32,
        "max_position_embeddings": 4096, "rms_norm_eps": 1e-5, "rope_theta": 10000.0, "hidden_act": "silu",
        "tie_word_embeddings": False, "attention_bias": False, "mlp_bias": False,
        "bos_token_id": 1, "eos_token_id": 2,
    },
    "llama-3.2-1b": {
        "model_type": "llama", "vocab_size": 128256, "hidden_size": 2048, "intermediate_size": 8192,
        "num_hidden_layers": 16, "num_attention_heads": 32, "num_key_value_heads": 8, "head_dim": 64,
        "max_position_embeddings": 131072, "rms_norm_eps": 1e-5, "rope_theta": 500000.0,
        "rope_scaling": {**LLAMA3_ROPE, "factor": 32.0}, "hidden_act": "silu", "tie_word_embeddings": True,
        "attention_bias": False, "mlp_bias": False, "bos_token_id": 128000, "eos_token_id": 128001,
    },
    "llama-3.1-8b": {
        "model_type": "llama", "vocab_size": 128256, "hidden_size": 4096, "intermediate_size": 14336,
        "num_hidden_layers": 32, "num_attention_heads": 32, "num_key_value_heads": 8, "head_dim": 128,
        "max_position_embeddings": 131072, "rms_norm_eps": 1e-5, "rope_theta": 500000.0,
        "rope_scaling": {**LLAMA3_ROPE, "factor": 8.0}, "hidden_act": "silu", "tie_word_embeddings": False,
        "attention_bias": False, "mlp_bias": False, "bos_token_id": 128000, "eos_token_id": 128001,
    },
    "qwen2.5-0.5b": {
        "model_type": "qwen2", "vocab_size": 151936, "hidden_size": 896, "intermediate_size": 4864,
        "num_hidden_layers": 24, "num_attention_heads": 14, "num_key_value_heads": 2,
        "max_position_embeddings": 32768, "rms_norm_eps": 1e-6, "rope_theta": 1000000.0, "hidden_act": "silu",
        "tie_word_embeddings": True, "use_sliding_window": False, "sliding_window": 32768,
        "max_window_layers": 24, "bos_token_id": 151643, "eos_token_id": 151643,
    },
    "gpt2": {
        "model_type": "gpt2", "vocab_size": 50257, "n_positions": 1024, "n_embd": 768, "n_layer": 12, "n_head": 12,
        "n_inner": None, "activation_function": "gelu_new", "layer_norm_epsilon": 1e-5,
        "tie_word_embeddings": True, "bos_token_id": 50256, "eos_token_id": 50256,
    },
    "tiny-moe": {
        "model_type": "mixtral", "vocab_size": 32000, "hidden_size": 1024, "intermediate_size": 2816,
        "num_hidden_layers": 8, "num_attention_heads": 16, "num_key_value_heads": 4, "head_dim": 64,
        "num_local_experts": 8, "num_experts_per_tok": 2, "max_position_embeddings": 4096,
        "rms_norm_eps": 1e-5, "rope_theta": 1000000.0, "hidden_act": "silu", "tie_word_embeddings": False,
        "output_router_logits": False, "router_aux_loss_coef": 0.02, "sliding_window": None,
        "bos_token_id": 1, "eos_token_id": 2,
    },
    "gemma-2-2b": {
        "model_type": "gemma2", "vocab_size": 256000, "hidden_size": 2304, "intermediate_size": 9216,
        "num_hidden_layers": 26, "num_attention_heads": 8, "num_key_value_heads": 4, "head_dim": 256,
        "max_position_embeddings": 8192, "rms_norm_eps": 1e-6, "rope_theta": 10000.0,
        "hidden_activation": "gelu_pytorch_tanh", "query_pre_attn_scalar": 256, "sliding_window": 4096,
        "attn_logit_softcapping": 50.0, "final_logit_softcapping": 30.0, "tie_word_embeddings": True,
        "attention_bias": False, "bos_token_id": 2, "eos_token_id": 1, "pad_token_id": 0,
    },
    # The tiny ones are used only to check the fake trace against a real run (validate.py).
    "tiny-llama": {
        "model_type": "llama", "vocab_size": 512, "hidden_size": 64, "intermediate_size": 176,
        "num_hidden_layers": 2, "num_attention_heads": 4, "num_key_value_heads": 2,
        "max_position_embeddings": 1024, "rms_norm_eps": 1e-5, "rope_theta": 10000.0, "hidden_act": "silu",
        "tie_word_embeddings": False,
    },
    "tiny-gpt2": {"model_type": "gpt2", "vocab_size": 512, "n_positions": 256, "n_embd": 64, "n_layer": 2, "n_head": 4,
                  "bos_token_id": 0, "eos_token_id": 0},
    "tiny-moe-2": {
        "model_type": "mixtral", "vocab_size": 512, "hidden_size": 64, "intermediate_size": 128,
        "num_hidden_layers": 2, "num_attention_heads": 4, "num_key_value_heads": 2, "num_local_experts": 4,
        "num_experts_per_tok": 2, "max_position_embeddings": 256, "tie_word_embeddings": False,
    },
}

# PEFT's short names for the LoRA targets used in the cases. "all-linear" is PEFT's own keyword: every
# nn.Linear / Conv1D of the decoder blocks, the output head excluded.
QV_TARGETS = {"gpt2": ["c_attn"]}  # GPT-2 has one fused qkv projection


def hf_config(model_id: str, attention: str) -> Any:
    """The transformers config object for a catalog entry."""
    from transformers import AutoConfig

    d = copy.deepcopy(CATALOG[model_id])
    model_type = d.pop("model_type")
    config = AutoConfig.for_model(model_type, **d)
    config._attn_implementation = attention
    return config


def lora_targets(model_id: str, targets: str) -> Any:
    """PEFT `target_modules` for a targets name ("qv" or "all-linear")."""
    if targets == "all-linear":
        return "all-linear"
    return QV_TARGETS.get(model_id, ["q_proj", "v_proj"])


def build_model(case: dict[str, Any]) -> torch.nn.Module:
    """The case's model on `meta`, with LoRA and checkpointing applied as the Trainer + PEFT would."""
    from transformers import AutoModelForCausalLM

    dtype = torch.bfloat16 if case["precision"] == "bf16" else torch.float32
    config = hf_config(case["model"], case["attention"])
    with torch.device("meta"):
        model = AutoModelForCausalLM.from_config(config, dtype=dtype, attn_implementation=case["attention"])
    model.config.use_cache = False  # the Trainer turns the KV cache off when checkpointing; off for all here
    if case["checkpointing"] == "full":
        model.gradient_checkpointing_enable(gradient_checkpointing_kwargs={"use_reentrant": False})
    if case["method"] == "lora":
        model = _add_lora(model, case)
    model.train()
    return model


def _add_lora(model: torch.nn.Module, case: dict[str, Any]) -> torch.nn.Module:
    from peft import LoraConfig, get_peft_model

    lora = LoraConfig(r=case["lora_rank"], lora_alpha=case["lora_alpha"], lora_dropout=case["lora_dropout"],
                      target_modules=lora_targets(case["model"], case["lora_targets"]), task_type="CAUSAL_LM")
    model = get_peft_model(model, lora)  # adapters in fp32 (autocast_adapter_dtype=True, PEFT's default)
    if case["checkpointing"] == "full":
        model.enable_input_require_grads()  # what PEFT does for a checkpointed base model
    return model


def materialize(model: torch.nn.Module) -> torch.nn.Module:
    """Give a meta model storage on the CPU (fake storage under FakeTensorMode), with plausible values."""
    shared: dict[int, list[tuple[torch.nn.Module, str]]] = {}
    for module in model.modules():
        for name, p in module._parameters.items():
            if p is not None:
                shared.setdefault(id(p), []).append((module, name))
    model.to_empty(device="cpu")  # this unties tied weights (meta -> fake makes new Parameters): tie them again
    for owners in shared.values():
        first = owners[0][0]._parameters[owners[0][1]]
        for module, name in owners[1:]:
            module._parameters[name] = first
    with torch.no_grad():
        for name, p in model.named_parameters():
            if "norm" in name or name.endswith(("ln_1.weight", "ln_2.weight")):
                p.fill_(1.0)
            elif "lora_B" in name or name.endswith(".bias"):
                p.zero_()
            else:
                p.normal_(0.0, 0.02)
        _reset_rotary(model)
    return model


def _reset_rotary(model: torch.nn.Module) -> None:
    """Recompute rotary `inv_freq` buffers, which `to_empty` leaves uninitialised."""
    from transformers.modeling_rope_utils import ROPE_INIT_FUNCTIONS

    for module in model.modules():
        rope_type = getattr(module, "rope_type", None)
        if rope_type is None or not hasattr(module, "inv_freq"):
            continue
        init = ROPE_INIT_FUNCTIONS.get(rope_type) or module.compute_default_rope_parameters
        inv_freq, _ = init(module.config)
        module.inv_freq.copy_(inv_freq)
        if isinstance(getattr(module, "original_inv_freq", None), torch.Tensor):
            module.original_inv_freq.copy_(inv_freq)
