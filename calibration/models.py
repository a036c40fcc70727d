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
    # Current models (issue 13). Each is the published config.json reduced to the fields that shape the network;
    # "reduced" ones keep every layer kind of the real model with fewer layers (said in their id).
    "qwen3-0.6b": {
        "model_type": "qwen3", "vocab_size": 151936, "hidden_size": 1024, "intermediate_size": 3072,
        "num_hidden_layers": 28, "num_attention_heads": 16, "num_key_value_heads": 8, "head_dim": 128,
        "max_position_embeddings": 40960, "rms_norm_eps": 1e-6, "rope_theta": 1000000.0, "hidden_act": "silu",
        "tie_word_embeddings": True, "attention_bias": False, "bos_token_id": 151643, "eos_token_id": 151645,
    },
    "qwen3-8b": {
        "model_type": "qwen3", "vocab_size": 151936, "hidden_size": 4096, "intermediate_size": 12288,
        "num_hidden_layers": 36, "num_attention_heads": 32, "num_key_value_heads": 8, "head_dim": 128,
        "max_position_embeddings": 40960, "rms_norm_eps": 1e-6, "rope_theta": 1000000.0, "hidden_act": "silu",
        "tie_word_embeddings": False, "attention_bias": False, "bos_token_id": 151643, "eos_token_id": 151645,
    },
    "qwen3-30b-a3b": {
        "model_type": "qwen3_moe", "vocab_size": 151936, "hidden_size": 2048, "intermediate_size": 6144,
        "moe_intermediate_size": 768, "num_hidden_layers": 48, "num_attention_heads": 32,
        "num_key_value_heads": 4, "head_dim": 128, "num_experts": 128, "num_experts_per_tok": 8,
        "decoder_sparse_step": 1, "mlp_only_layers": [], "norm_topk_prob": True, "output_router_logits": False,
        "max_position_embeddings": 40960, "rms_norm_eps": 1e-6, "rope_theta": 1000000.0, "hidden_act": "silu",
        "tie_word_embeddings": False, "attention_bias": False, "bos_token_id": 151643, "eos_token_id": 151645,
    },
    "gemma-3-1b": {
        "model_type": "gemma3_text", "vocab_size": 262144, "hidden_size": 1152, "intermediate_size": 6912,
        "num_hidden_layers": 26, "num_attention_heads": 4, "num_key_value_heads": 1, "head_dim": 256,
        "max_position_embeddings": 32768, "rms_norm_eps": 1e-6, "rope_theta": 1000000.0,
        "rope_local_base_freq": 10000.0, "hidden_activation": "gelu_pytorch_tanh", "query_pre_attn_scalar": 256,
        "sliding_window": 512, "sliding_window_pattern": 6, "final_logit_softcapping": None,
        "attn_logit_softcapping": None, "tie_word_embeddings": True, "attention_bias": False,
        "bos_token_id": 2, "eos_token_id": 1, "pad_token_id": 0,
    },
    "gemma-3-4b": {  # the language model of the multimodal checkpoint (text_config)
        "model_type": "gemma3_text", "vocab_size": 262208, "hidden_size": 2560, "intermediate_size": 10240,
        "num_hidden_layers": 34, "num_attention_heads": 8, "num_key_value_heads": 4, "head_dim": 256,
        "max_position_embeddings": 131072, "rms_norm_eps": 1e-6, "rope_theta": 1000000.0,
        "rope_local_base_freq": 10000.0, "rope_scaling": {"rope_type": "linear", "factor": 8.0},
        "hidden_activation": "gelu_pytorch_tanh", "query_pre_attn_scalar": 256, "sliding_window": 1024,
        "sliding_window_pattern": 6, "tie_word_embeddings": True, "attention_bias": False,
        "bos_token_id": 2, "eos_token_id": 1, "pad_token_id": 0,
    },
    "gpt-oss-20b": {
        "model_type": "gpt_oss", "vocab_size": 201088, "hidden_size": 2880, "intermediate_size": 2880,
        "num_hidden_layers": 24, "num_attention_heads": 64, "num_key_value_heads": 8, "head_dim": 64,
        "num_local_experts": 32, "num_experts_per_tok": 4, "experts_per_token": 4, "sliding_window": 128,
        "layer_types": ["sliding_attention", "full_attention"] * 12, "attention_bias": True,
        "max_position_embeddings": 131072, "rms_norm_eps": 1e-5, "rope_theta": 150000.0,
        "rope_scaling": {"rope_type": "yarn", "factor": 32.0, "beta_fast": 32.0, "beta_slow": 1.0,
                         "truncate": False, "original_max_position_embeddings": 4096},
        "swiglu_limit": 7.0, "tie_word_embeddings": False, "output_router_logits": False,
        "router_aux_loss_coef": 0.9, "eos_token_id": 200002, "pad_token_id": 199999,
    },
    "deepseek-v3-5l": {  # DeepSeek-V3 (671B) with 5 of its 61 layers: its 3 dense layers, then 2 MoE layers
        "model_type": "deepseek_v3", "vocab_size": 129280, "hidden_size": 7168, "intermediate_size": 18432,
        "moe_intermediate_size": 2048, "num_hidden_layers": 5, "first_k_dense_replace": 3,
        "num_attention_heads": 128, "num_key_value_heads": 128, "q_lora_rank": 1536, "kv_lora_rank": 512,
        "qk_nope_head_dim": 128, "qk_rope_head_dim": 64, "v_head_dim": 128, "n_routed_experts": 256,
        "n_shared_experts": 1, "num_experts_per_tok": 8, "n_group": 8, "topk_group": 4, "norm_topk_prob": True,
        "routed_scaling_factor": 2.5, "scoring_func": "sigmoid", "topk_method": "noaux_tc",
        "max_position_embeddings": 163840, "rms_norm_eps": 1e-6, "rope_theta": 10000.0,
        "rope_scaling": {"rope_type": "yarn", "factor": 40.0, "beta_fast": 32.0, "beta_slow": 1.0, "mscale": 1.0,
                         "mscale_all_dim": 1.0, "original_max_position_embeddings": 4096},
        "hidden_act": "silu", "tie_word_embeddings": False, "attention_bias": False,
        "bos_token_id": 0, "eos_token_id": 1,
    },
    "phi-4-mini": {
        "model_type": "phi3", "vocab_size": 200064, "hidden_size": 3072, "intermediate_size": 8192,
        "num_hidden_layers": 32, "num_attention_heads": 24, "num_key_value_heads": 8,
        "max_position_embeddings": 131072, "original_max_position_embeddings": 4096, "partial_rotary_factor": 0.75,
        "rms_norm_eps": 1e-5, "rope_theta": 10000.0, "hidden_act": "silu", "tie_word_embeddings": True,
        "sliding_window": 262144, "bos_token_id": 199999, "eos_token_id": 199999, "pad_token_id": 199999,
    },
    "phi-4": {
        "model_type": "phi3", "vocab_size": 100352, "hidden_size": 5120, "intermediate_size": 17920,
        "num_hidden_layers": 40, "num_attention_heads": 40, "num_key_value_heads": 10,
        "max_position_embeddings": 16384, "original_max_position_embeddings": 16384, "rms_norm_eps": 1e-5,
        "rope_theta": 250000.0, "hidden_act": "silu", "tie_word_embeddings": False, "sliding_window": None,
        "bos_token_id": 100257, "eos_token_id": 100265, "pad_token_id": 100349,
    },
    "olmo-2-1b": {
        "model_type": "olmo2", "vocab_size": 100352, "hidden_size": 2048, "intermediate_size": 8192,
        "num_hidden_layers": 16, "num_attention_heads": 16, "num_key_value_heads": 16,
        "max_position_embeddings": 4096, "rms_norm_eps": 1e-6, "rope_theta": 500000.0, "hidden_act": "silu",
        "tie_word_embeddings": False, "attention_bias": False, "bos_token_id": None, "eos_token_id": 100257,
        "pad_token_id": 100277,
    },
    "olmo-3-7b": {
        "model_type": "olmo3", "vocab_size": 100278, "hidden_size": 4096, "intermediate_size": 11008,
        "num_hidden_layers": 32, "num_attention_heads": 32, "num_key_value_heads": 32,
        "max_position_embeddings": 65536, "rms_norm_eps": 1e-6, "rope_theta": 500000.0, "hidden_act": "silu",
        "sliding_window": 4096, "layer_types": (["sliding_attention"] * 3 + ["full_attention"]) * 8,
        "tie_word_embeddings": False, "attention_bias": False, "eos_token_id": 100257, "pad_token_id": 100277,
    },
    "llama-4-maverick-4l": {  # Llama 4 Maverick's language model with 4 of its 48 layers (dense, MoE, dense, MoE)
        "model_type": "llama4_text", "vocab_size": 202048, "hidden_size": 5120, "intermediate_size": 8192,
        "intermediate_size_mlp": 16384, "num_hidden_layers": 4, "num_attention_heads": 40,
        "num_key_value_heads": 8, "head_dim": 128, "num_local_experts": 128, "num_experts_per_tok": 1,
        "interleave_moe_layer_step": 2, "no_rope_layers": [1, 1, 1, 0], "use_qk_norm": True,
        "attention_chunk_size": 8192, "attn_temperature_tuning": True, "floor_scale": 8192, "attn_scale": 0.1,
        "max_position_embeddings": 1048576, "rms_norm_eps": 1e-5, "rope_theta": 500000.0,
        "hidden_act": "silu", "tie_word_embeddings": False, "attention_bias": False, "output_router_logits": False,
        "bos_token_id": 200000, "eos_token_id": [200001, 200007, 200008], "pad_token_id": 200018,
    },
    "mistral-small-3.1-24b": {  # the language model of Mistral-Small-3.1-24B (text_config)
        "model_type": "mistral", "vocab_size": 131072, "hidden_size": 5120, "intermediate_size": 32768,
        "num_hidden_layers": 40, "num_attention_heads": 32, "num_key_value_heads": 8, "head_dim": 128,
        "max_position_embeddings": 131072, "rms_norm_eps": 1e-5, "rope_theta": 1000000000.0,
        "hidden_act": "silu", "sliding_window": None, "tie_word_embeddings": False,
        "bos_token_id": 1, "eos_token_id": 2,
    },
    "exaone-4.0-1.2b": {
        "model_type": "exaone4", "vocab_size": 102400, "hidden_size": 2048, "intermediate_size": 4096,
        "num_hidden_layers": 30, "num_attention_heads": 32, "num_key_value_heads": 8, "head_dim": 64,
        "max_position_embeddings": 65536, "rms_norm_eps": 1e-5, "rope_theta": 1000000.0, "hidden_act": "silu",
        "rope_scaling": {"rope_type": "llama3", "factor": 16.0, "high_freq_factor": 4.0, "low_freq_factor": 1.0,
                         "original_max_position_embeddings": 8192},
        "sliding_window": None, "sliding_window_pattern": None, "layer_types": ["full_attention"] * 30,
        "tie_word_embeddings": True, "bos_token_id": 1, "eos_token_id": 361, "pad_token_id": 0,
    },
    "glm-4-9b": {  # GLM-4-9B-0414: fused gate_up, four norms per layer, RoPE on half of each head
        "model_type": "glm4", "vocab_size": 151552, "hidden_size": 4096, "intermediate_size": 13696,
        "num_hidden_layers": 40, "num_attention_heads": 32, "num_key_value_heads": 2, "head_dim": 128,
        "partial_rotary_factor": 0.5, "attention_bias": True, "max_position_embeddings": 32768,
        "rms_norm_eps": 1e-5, "rope_theta": 10000.0, "hidden_act": "silu", "tie_word_embeddings": False,
        "pad_token_id": 151329, "eos_token_id": [151329, 151336, 151338],
    },
    "glm-4.5-air-3l": {  # GLM-4.5-Air with 3 of its 46 layers: its dense first layer, then 2 MoE layers
        "model_type": "glm4_moe", "vocab_size": 151552, "hidden_size": 4096, "intermediate_size": 10944,
        "moe_intermediate_size": 1408, "num_hidden_layers": 3, "num_attention_heads": 96,
        "num_key_value_heads": 8, "head_dim": 128, "n_routed_experts": 128, "n_shared_experts": 1,
        "num_experts_per_tok": 8, "first_k_dense_replace": 1, "n_group": 1, "topk_group": 1,
        "norm_topk_prob": True, "routed_scaling_factor": 1.0, "partial_rotary_factor": 0.5, "attention_bias": True,
        "use_qk_norm": False, "max_position_embeddings": 131072, "rms_norm_eps": 1e-5, "rope_theta": 1000000.0,
        "hidden_act": "silu", "tie_word_embeddings": False, "pad_token_id": 151329, "eos_token_id": 151329,
    },
    "minimax-m2-3l": {  # MiniMax-M2.5 with 3 of its 62 layers
        "model_type": "minimax_m2", "vocab_size": 200064, "hidden_size": 3072, "intermediate_size": 1536,
        "num_hidden_layers": 3, "num_attention_heads": 48, "num_key_value_heads": 8, "head_dim": 128,
        "num_local_experts": 256, "num_experts_per_tok": 8, "rotary_dim": 64, "use_qk_norm": True,
        "qk_norm_type": "per_layer", "use_routing_bias": True, "scoring_func": "sigmoid",
        "max_position_embeddings": 196608, "rms_norm_eps": 1e-6, "rope_theta": 5000000.0, "hidden_act": "silu",
        "tie_word_embeddings": False, "output_router_logits": False,
    },
    "granite-3.1-1b-a400m": {
        "model_type": "granitemoe", "vocab_size": 49155, "hidden_size": 1024, "intermediate_size": 512,
        "num_hidden_layers": 24, "num_attention_heads": 16, "num_key_value_heads": 8, "num_local_experts": 32,
        "num_experts_per_tok": 8, "attention_multiplier": 0.015625, "embedding_multiplier": 12.0,
        "logits_scaling": 6.0, "residual_multiplier": 0.22, "max_position_embeddings": 131072,
        "rms_norm_eps": 1e-6, "rope_theta": 1500000.0, "hidden_act": "silu", "tie_word_embeddings": True,
        "output_router_logits": False, "router_aux_loss_coef": 0.0, "attention_bias": False,
        "bos_token_id": 0, "eos_token_id": 0, "pad_token_id": 0,
    },
    "smollm3-3b": {
        "model_type": "smollm3", "vocab_size": 128256, "hidden_size": 2048, "intermediate_size": 11008,
        "num_hidden_layers": 36, "num_attention_heads": 16, "num_key_value_heads": 4,
        "no_rope_layers": [1, 1, 1, 0] * 9, "max_position_embeddings": 65536, "rms_norm_eps": 1e-6,
        "rope_theta": 5000000.0, "hidden_act": "silu", "tie_word_embeddings": True, "attention_bias": False,
        "mlp_bias": False, "use_sliding_window": False, "sliding_window": None, "bos_token_id": 128000,
        "eos_token_id": 128012, "pad_token_id": 128004,
    },
    "exaone-4.0-32b-4l": {  # EXAONE 4.0 32B with 4 of its 64 layers: three sliding-window layers, one global
        "model_type": "exaone4", "vocab_size": 102400, "hidden_size": 5120, "intermediate_size": 27392,
        "num_hidden_layers": 4, "num_attention_heads": 40, "num_key_value_heads": 8, "head_dim": 128,
        "sliding_window": 4096, "sliding_window_pattern": 4,
        "layer_types": ["sliding_attention"] * 3 + ["full_attention"], "max_position_embeddings": 131072,
        "rms_norm_eps": 1e-5, "rope_theta": 1000000.0, "hidden_act": "silu", "tie_word_embeddings": False,
        "bos_token_id": 1, "eos_token_id": 361, "pad_token_id": 0,
    },
    # Families the training-config sweep (issue 16) brought into the catalog: StableLM 2 (LayerNorm with a bias,
    # q/k/v biases, RoPE on a quarter of each head), Gemma (1) (GeGLU, one key-value head), Qwen1.5-MoE (60 experts
    # with a gated shared expert)
    "stablelm-2-1.6b": {
        "model_type": "stablelm", "vocab_size": 100352, "hidden_size": 2048, "intermediate_size": 5632,
        "num_hidden_layers": 24, "num_attention_heads": 32, "num_key_value_heads": 32,
        "max_position_embeddings": 4096, "layer_norm_eps": 1e-5, "rope_theta": 10000, "partial_rotary_factor": 0.25,
        "hidden_act": "silu", "use_qkv_bias": True, "qk_layernorm": False, "use_parallel_residual": False,
        "tie_word_embeddings": False, "bos_token_id": 100257, "eos_token_id": 100257,
    },
    "gemma-2b": {
        "model_type": "gemma", "vocab_size": 256000, "hidden_size": 2048, "intermediate_size": 16384,
        "num_hidden_layers": 18, "num_attention_heads": 8, "num_key_value_heads": 1, "head_dim": 256,
        "max_position_embeddings": 8192, "rms_norm_eps": 1e-6, "rope_theta": 10000.0,
        "hidden_activation": "gelu_pytorch_tanh", "attention_bias": False, "tie_word_embeddings": True,
        "bos_token_id": 2, "eos_token_id": 1, "pad_token_id": 0,
    },
    "qwen1.5-moe-a2.7b": {
        "model_type": "qwen2_moe", "vocab_size": 151936, "hidden_size": 2048, "intermediate_size": 5632,
        "num_hidden_layers": 24, "num_attention_heads": 16, "num_key_value_heads": 16,
        "max_position_embeddings": 8192, "rms_norm_eps": 1e-6, "rope_theta": 1000000.0, "hidden_act": "silu",
        "decoder_sparse_step": 1, "moe_intermediate_size": 1408, "shared_expert_intermediate_size": 5632,
        "num_experts_per_tok": 4, "num_experts": 60, "norm_topk_prob": False, "use_sliding_window": False,
        "tie_word_embeddings": False, "bos_token_id": 151643, "eos_token_id": 151645,
    },
    # Hybrid layers (issue 27), traced with fakes of the kernels users install (calibration/kernels.py)
    "qwen3.5-0.8b": {  # the language model of Qwen3.5-0.8B (text_config): gated DeltaNet x 3, gated attention x 1
        "model_type": "qwen3_5_text", "vocab_size": 248320, "hidden_size": 1024, "intermediate_size": 3584,
        "num_hidden_layers": 24, "num_attention_heads": 8, "num_key_value_heads": 2, "head_dim": 256,
        "attention_bias": False, "linear_num_key_heads": 16, "linear_num_value_heads": 16,
        "linear_key_head_dim": 128, "linear_value_head_dim": 128, "linear_conv_kernel_dim": 4,
        "full_attention_interval": 4, "max_position_embeddings": 262144, "rms_norm_eps": 1e-6,
        "tie_word_embeddings": True, "hidden_act": "silu",
        "rope_parameters": {"rope_type": "default", "rope_theta": 10000000, "partial_rotary_factor": 0.25,
                            "mrope_section": [11, 11, 10], "mrope_interleaved": True},
        "eos_token_id": 248044,
    },
    "qwen3.5-35b-a3b-4l": {  # Qwen3.5-35B-A3B's language model with 4 of its 40 layers (3 DeltaNet, 1 attention)
        "model_type": "qwen3_5_moe_text", "vocab_size": 248320, "hidden_size": 2048, "num_hidden_layers": 4,
        "num_attention_heads": 16, "num_key_value_heads": 2, "head_dim": 256, "linear_num_key_heads": 16,
        "linear_num_value_heads": 32, "linear_key_head_dim": 128, "linear_value_head_dim": 128,
        "linear_conv_kernel_dim": 4, "full_attention_interval": 4, "moe_intermediate_size": 512,
        "num_experts": 256, "num_experts_per_tok": 8, "shared_expert_intermediate_size": 512,
        "max_position_embeddings": 262144, "rms_norm_eps": 1e-6, "tie_word_embeddings": False,
        "output_router_logits": False, "hidden_act": "silu",
        "rope_parameters": {"rope_type": "default", "rope_theta": 10000000, "partial_rotary_factor": 0.25,
                            "mrope_section": [11, 11, 10], "mrope_interleaved": True},
    },
    "qwen3-next-80b-a3b-4l": {  # Qwen3-Next-80B-A3B with 4 of its 48 layers (3 DeltaNet, 1 gated attention)
        "model_type": "qwen3_next", "vocab_size": 151936, "hidden_size": 2048, "intermediate_size": 5120,
        "num_hidden_layers": 4, "num_attention_heads": 16, "num_key_value_heads": 2, "head_dim": 256,
        "linear_num_key_heads": 16, "linear_num_value_heads": 32, "linear_key_head_dim": 128,
        "linear_value_head_dim": 128, "linear_conv_kernel_dim": 4, "full_attention_interval": 4,
        "decoder_sparse_step": 1, "mlp_only_layers": [], "moe_intermediate_size": 512, "num_experts": 512,
        "num_experts_per_tok": 10, "shared_expert_intermediate_size": 512, "norm_topk_prob": True,
        "partial_rotary_factor": 0.25, "max_position_embeddings": 262144, "rms_norm_eps": 1e-6,
        "rope_theta": 10000000, "tie_word_embeddings": False, "output_router_logits": False, "hidden_act": "silu",
        "bos_token_id": 151643, "eos_token_id": 151645,
    },
    "bamba-9b-4l": {  # Bamba-9B (ibm-ai-platform/Bamba-9B) with 4 of its 32 layers: Mamba-2, attention, 2 x Mamba-2
        "model_type": "bamba", "vocab_size": 128256, "hidden_size": 4096, "intermediate_size": 14336,
        "num_hidden_layers": 4, "num_attention_heads": 32, "num_key_value_heads": 8, "attn_layer_indices": [1],
        "mamba_n_heads": 128, "mamba_d_head": 64, "mamba_n_groups": 1, "mamba_d_state": 128, "mamba_d_conv": 4,
        "mamba_expand": 2, "mamba_chunk_size": 256, "mamba_conv_bias": True, "mamba_proj_bias": False,
        "max_position_embeddings": 262144, "rms_norm_eps": 1e-5, "rope_theta": 10000.0, "hidden_act": "silu",
        "tie_word_embeddings": False, "pad_token_id": 0, "bos_token_id": 1, "eos_token_id": 2,
    },
    "nemotron-nano-9b-v2-4l": {  # NVIDIA-Nemotron-Nano-9B-v2 with 4 of its 56 layers: Mamba-2, MLP, Mamba-2, attention
        "model_type": "nemotron_h", "vocab_size": 131072, "hidden_size": 4480, "intermediate_size": 15680,
        "hybrid_override_pattern": "M-M*", "num_attention_heads": 40, "num_key_value_heads": 8, "head_dim": 128,
        "mamba_num_heads": 128, "mamba_head_dim": 80, "n_groups": 8, "ssm_state_size": 128, "conv_kernel": 4,
        "chunk_size": 128, "use_conv_bias": True, "use_bias": False, "mlp_bias": False, "mlp_hidden_act": "relu2",
        "max_position_embeddings": 131072, "layer_norm_epsilon": 1e-5, "tie_word_embeddings": False,
        "bos_token_id": 1, "eos_token_id": 2, "pad_token_id": 12,
    },
    "nemotron-3-nano-30b-a3b-4l": {  # NVIDIA-Nemotron-3-Nano-30B-A3B with 4 of its 52 layers: M, E (MoE), M, *
        "model_type": "nemotron_h", "vocab_size": 131072, "hidden_size": 2688, "intermediate_size": 1856,
        "hybrid_override_pattern": "MEM*", "num_attention_heads": 32, "num_key_value_heads": 2, "head_dim": 128,
        "mamba_num_heads": 64, "mamba_head_dim": 64, "n_groups": 8, "ssm_state_size": 128, "conv_kernel": 4,
        "chunk_size": 128, "use_conv_bias": True, "use_bias": False, "mlp_bias": False, "mlp_hidden_act": "relu2",
        "n_routed_experts": 128, "n_shared_experts": 1, "num_experts_per_tok": 6, "moe_intermediate_size": 1856,
        "moe_shared_expert_intermediate_size": 3712, "n_group": 1, "topk_group": 1, "norm_topk_prob": True,
        "routed_scaling_factor": 2.5, "max_position_embeddings": 262144, "layer_norm_epsilon": 1e-5,
        "tie_word_embeddings": False, "bos_token_id": 1, "eos_token_id": 2, "pad_token_id": 0,
    },
    "kimi-linear-48b-a3b-4l": {  # Kimi-Linear-48B-A3B with 4 of its 27 layers: KDA (dense MLP), KDA, MLA, KDA (MoE)
        "model_type": "kimi_linear", "vocab_size": 163840, "hidden_size": 2304, "intermediate_size": 9216,
        "moe_intermediate_size": 1024, "num_hidden_layers": 4, "num_attention_heads": 32, "num_key_value_heads": 32,
        "head_dim": 72, "kv_lora_rank": 512, "q_lora_rank": None, "qk_nope_head_dim": 128, "qk_rope_head_dim": 64,
        "v_head_dim": 128, "num_experts": 256, "num_local_experts": 256, "num_experts_per_tok": 8,
        "n_shared_experts": 1, "first_k_dense_replace": 1, "moe_layer_freq": 1, "routed_scaling_factor": 2.446,
        "norm_topk_prob": True, "n_group": 1, "topk_group": 1, "max_position_embeddings": 1048576,
        "rms_norm_eps": 1e-5, "hidden_act": "silu", "tie_word_embeddings": False,
        "linear_attn_config": {"head_dim": 128, "num_heads": 32, "short_conv_kernel_size": 4,
                               "kda_layers": [1, 2, 4], "full_attn_layers": [3]},
        "bos_token_id": 163584, "eos_token_id": 163586, "pad_token_id": 163839,
    },
    "lfm2-1.2b": {  # LiquidAI/LFM2-1.2B: short convolutions, attention on 6 of its 16 layers
        "model_type": "lfm2", "vocab_size": 65536, "hidden_size": 2048, "intermediate_size": 12288,
        "block_ff_dim": 12288, "block_auto_adjust_ff_dim": True, "block_ffn_dim_multiplier": 1.0,
        "block_multiple_of": 256, "num_hidden_layers": 16, "num_attention_heads": 32, "num_key_value_heads": 8,
        "conv_L_cache": 3, "conv_bias": False, "full_attn_idxs": [2, 5, 8, 10, 12, 14], "norm_eps": 1e-5,
        "max_position_embeddings": 128000, "rope_theta": 1000000.0, "tie_embedding": True,
        "bos_token_id": 1, "eos_token_id": 7, "pad_token_id": 0,
    },
    "jamba-v0.1-4l": {  # Jamba-v0.1 with 4 layers, every kind kept: Mamba + MLP, Mamba + MoE, Mamba + MLP, attention +
        # MoE (the real model's attention period 8 from 4, here 4 from 3)
        "model_type": "jamba", "vocab_size": 65536, "hidden_size": 4096, "intermediate_size": 14336,
        "num_hidden_layers": 4, "num_attention_heads": 32, "num_key_value_heads": 8, "num_experts": 16,
        "num_experts_per_tok": 2, "expert_layer_period": 2, "expert_layer_offset": 1, "attn_layer_period": 4,
        "attn_layer_offset": 3, "mamba_d_state": 16, "mamba_d_conv": 4, "mamba_expand": 2, "mamba_dt_rank": 256,
        "mamba_conv_bias": True, "mamba_proj_bias": False, "max_position_embeddings": 262144,
        "rms_norm_eps": 1e-6, "hidden_act": "silu", "tie_word_embeddings": False, "output_router_logits": False,
        "bos_token_id": 1, "eos_token_id": 2, "pad_token_id": 0,
    },
    "mamba-130m": {  # state-spaces/mamba-130m-hf
        "model_type": "mamba", "vocab_size": 50280, "hidden_size": 768, "num_hidden_layers": 24, "state_size": 16,
        "expand": 2, "conv_kernel": 4, "time_step_rank": "auto", "use_bias": False, "use_conv_bias": True,
        "layer_norm_epsilon": 1e-5, "tie_word_embeddings": True, "bos_token_id": 0, "eos_token_id": 0,
        "pad_token_id": 0,
    },
    # Parallel attention / MLP blocks (issue 27)
    "pythia-1.4b": {
        "model_type": "gpt_neox", "vocab_size": 50304, "hidden_size": 2048, "intermediate_size": 8192,
        "num_hidden_layers": 24, "num_attention_heads": 16, "rotary_pct": 0.25, "rotary_emb_base": 10000,
        "max_position_embeddings": 2048, "layer_norm_eps": 1e-5, "hidden_act": "gelu", "use_parallel_residual": True,
        "hidden_dropout": 0.0, "attention_dropout": 0.0, "tie_word_embeddings": False,
        "bos_token_id": 0, "eos_token_id": 0,
    },
    "phi-1.5": {
        "model_type": "phi", "vocab_size": 51200, "hidden_size": 2048, "intermediate_size": 8192,
        "num_hidden_layers": 24, "num_attention_heads": 32, "partial_rotary_factor": 0.5, "hidden_act": "gelu_new",
        "max_position_embeddings": 2048, "layer_norm_eps": 1e-5, "resid_pdrop": 0.0, "embd_pdrop": 0.0,
        "attention_dropout": 0.0, "qk_layernorm": False, "rope_theta": 10000.0, "tie_word_embeddings": False,
        "bos_token_id": 1, "eos_token_id": 2,
    },
    "aya-23-8b-4l": {  # Aya 23 8B (CohereForCausalLM: mlc-llm's preset 'aya-23') with 4 of its 32 layers
        "model_type": "cohere", "vocab_size": 256000, "hidden_size": 4096, "intermediate_size": 14336,
        "num_hidden_layers": 4, "num_attention_heads": 32, "num_key_value_heads": 8, "attention_bias": False,
        "logit_scale": 0.0625, "layer_norm_eps": 1e-5, "max_position_embeddings": 8192, "rope_theta": 10000,
        "use_qk_norm": False, "hidden_act": "silu", "tie_word_embeddings": True,
        "bos_token_id": 5, "eos_token_id": 255001, "pad_token_id": 0,
    },
    "gpt-j-6b-4l": {  # GPT-J 6B with 4 of its 28 layers
        "model_type": "gptj", "vocab_size": 50400, "n_embd": 4096, "n_layer": 4, "n_head": 16, "rotary_dim": 64,
        "n_positions": 2048, "n_inner": None, "activation_function": "gelu_new", "layer_norm_epsilon": 1e-5,
        "resid_pdrop": 0.0, "embd_pdrop": 0.0, "attn_pdrop": 0.0, "tie_word_embeddings": False,
        "bos_token_id": 50256, "eos_token_id": 50256,
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
QV_TARGETS = {"gpt2": ["c_attn"], "phi-4": ["qkv_proj"], "phi-4-mini": ["qkv_proj"],  # one fused qkv projection
              "pythia-1.4b": ["query_key_value"]}
#: PEFT 0.21.2's all-linear wraps Llama 4's router, an nn.Linear whose forward returns a tuple, and the forward then
#: fails: users list the linears instead (every one but the router)
ALL_LINEAR_TARGETS = {"llama-4-maverick-4l": ["q_proj", "k_proj", "v_proj", "o_proj", "gate_proj", "up_proj",
                                              "down_proj"]}


def hf_config(model_id: str, attention: str) -> Any:
    """The transformers config object for a catalog entry."""
    from transformers import AutoConfig

    d = copy.deepcopy(CATALOG[model_id])
    model_type = d.pop("model_type")
    config = AutoConfig.for_model(model_type, **d)
    config._attn_implementation = attention
    return config


#: model types whose out_proj PEFT 0.21 refuses (tuners_utils._check_lora_target_modules_mamba): all-linear fails on
#: them, so users list the linears; "all-linear" here is every linear but out_proj
PEFT_MAMBA = {"falcon_h1", "mamba", "mamba2", "falcon_mamba", "nemotron_h"}


def lora_targets(model_id: str, targets: str, model: torch.nn.Module | None = None) -> Any:
    """PEFT `target_modules` for a targets name ("qv" or "all-linear")."""
    if targets == "all-linear" and CATALOG[model_id]["model_type"] in PEFT_MAMBA and model is not None:
        names = {n.rsplit(".", 1)[-1] for n, m in model.named_modules() if isinstance(m, torch.nn.Linear)}
        return sorted(names - {"out_proj", "lm_head"})
    if targets == "all-linear":
        return ALL_LINEAR_TARGETS.get(model_id, "all-linear")
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


def add_lora(case: dict[str, Any], model: torch.nn.Module) -> torch.nn.Module:
    """PEFT's LoRA on ``model`` as the case asks (calibration/options.py builds its bases, then this)."""
    model = _add_lora(model, case)
    model.train()
    return model


def _add_lora(model: torch.nn.Module, case: dict[str, Any]) -> torch.nn.Module:
    from peft import LoraConfig, get_peft_model

    lora = LoraConfig(r=case["lora_rank"], lora_alpha=case["lora_alpha"], lora_dropout=case["lora_dropout"],
                      target_modules=lora_targets(case["model"], case["lora_targets"], model), task_type="CAUSAL_LM",
                      use_dora=case.get("dora", False),  # issue 27's DoRA, modules_to_save and trainable tokens
                      modules_to_save=case.get("modules_to_save"),
                      trainable_token_indices=list(range(case["trainable_tokens"])) if case.get("trainable_tokens")
                      else None)
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
