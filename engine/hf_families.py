"""What each Hugging Face ``model_type`` builds, for importing its config.json.

A config.json saved by ``save_pretrained`` leaves out every value equal to its class default (transformers
``PretrainedConfig.to_json_string(use_diff=True)``), so an import needs each family's defaults: they are copied
here from the config dataclasses of transformers 5.24 (``models/<type>/configuration_<type>.py``, read with
``dataclasses.fields``), only for the fields the engine reads. ``Family`` adds what the modeling file fixes and no
config field says: which norms a layer holds and where, q/k norms, fused projections, sinks, how the experts are
stored and what PEFT 0.21.2 does with them (``engine.specs.ExpertLora``), and which layers are routed.

A ``model_type`` missing here imports with Llama's defaults and a note saying so; the hybrid families (gated
DeltaNet, Mamba, KDA or convolution layers beside attention; parallel attention / MLP blocks) are in
``engine.hf_mixers``. One whose layers the engine cannot cost (the rest of those kinds, cross-attention to an
image, sparse attention with an indexer, custom code transformers does not build) is refused by name
(``REFUSED``), as is a family switch that turns such layers on (``Family.refused_switches``: StableLM's
``use_parallel_residual``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from engine.specs import ExpertLora, MlpKind, NormKind, PositionKind, QkNorm

#: LlamaConfig's defaults (transformers 5.24 models/llama/configuration_llama.py), the base of every family
LLAMA_DEFAULTS: dict[str, Any] = {
    "vocab_size": 32000, "hidden_size": 4096, "intermediate_size": 11008, "num_hidden_layers": 32,
    "num_attention_heads": 32, "num_key_value_heads": None, "head_dim": None, "max_position_embeddings": 2048,
    "tie_word_embeddings": False, "attention_bias": False, "mlp_bias": False, "sliding_window": None,
}


@dataclass(frozen=True)
class Family:
    """One model_type: its config defaults (beyond Llama's) and the layer traits its modeling file fixes."""

    defaults: dict[str, Any] = field(default_factory=dict)
    norm: NormKind = NormKind.RMSNORM
    norms: int = 2
    qk_norm: QkNorm = QkNorm.NONE
    qk_switch: bool = False  # ``use_qk_norm`` turns ``qk_norm`` on or off (Llama 4, GLM-4.5)
    qkv_bias: bool | None = None  # fixed by the modeling file (Qwen2: always); None: read ``qkv_bias_key``
    qkv_bias_key: str = "attention_bias"  # the switch of the q/k/v biases (StableLM: use_qkv_bias)
    o_bias: bool | None = None  # None: as attention_bias
    fused_qkv: bool = False
    fused_gate_up: bool = False
    sinks: bool = False
    mla: bool = False
    #: which layers are routed: "all", "qwen" (decoder_sparse_step, mlp_only_layers), "first_k"
    #: (first_k_dense_replace), "interleave" (Llama 4's interleave_moe_layer_step), "none"
    moe_layers: str = "none"
    #: the shared expert: "" none, "deepseek" (n_shared_experts x moe_intermediate_size), "qwen2" (its own width
    #: and a sigmoid gate), "llama4" (intermediate_size), "granite" (shared_intermediate_size, fused gate_up)
    shared: str = ""
    expert_lora: ExpertLora = ExpertLora.PARAMETERS
    router_bias: bool = False
    expert_bias: bool = False
    dense_dispatch: bool = False  # every expert computes every token (Llama 4)
    #: how layer_types is computed when config.json has none: "none" (no window), "all", "qwen"
    #: (use_sliding_window from max_window_layers on), or a period p: layer i slides unless (i + 1) % p == 0
    sliding: str | int = "none"
    mlp: MlpKind = MlpKind.GATED
    positions: PositionKind = PositionKind.ROPE
    notes: tuple[str, ...] = ()
    #: switches that turn on layers the engine cannot cost: (config field, what it turns on)
    refused_switches: tuple[tuple[str, str], ...] = ()
    source: str = ""


def _src(model_type: str) -> str:
    return f"transformers 5.24 models/{model_type}/configuration_{model_type}.py and modeling_{model_type}.py"


_QWEN_MOE = {"use_sliding_window": False, "sliding_window": 4096, "decoder_sparse_step": 1, "mlp_only_layers": []}
_DEEPSEEK = {"first_k_dense_replace": 0, "kv_lora_rank": 512, "q_lora_rank": 1536, "qk_nope_head_dim": 128,
             "qk_rope_head_dim": 64, "v_head_dim": 128}
_LLAMA4_NOTE = ("PEFT 0.21.2's all-linear fails on Llama 4 (its router is an nn.Linear whose forward returns a "
                "tuple); LoRA all-linear is counted as users run it, without the router")

FAMILIES: dict[str, Family] = {
    "llama": Family(),
    "mistral": Family({"intermediate_size": 14336, "num_key_value_heads": 8, "max_position_embeddings": 131072,
                       "sliding_window": 4096}, sliding="all"),
    "ministral": Family({"intermediate_size": 14336, "num_key_value_heads": 8, "max_position_embeddings": 131072,
                         "sliding_window": 4096}, sliding="all"),
    "ministral3": Family({"vocab_size": 131072, "intermediate_size": 14336, "num_hidden_layers": 34,
                          "num_key_value_heads": 8, "head_dim": 128, "max_position_embeddings": 262144}),
    "internlm3": Family({"vocab_size": 128512, "intermediate_size": 10240, "num_hidden_layers": 48,
                         "num_key_value_heads": 2, "head_dim": 128, "max_position_embeddings": 32768}),
    "granite": Family(),
    "smollm3": Family({"vocab_size": 128256, "hidden_size": 2048, "num_hidden_layers": 36,
                       "num_attention_heads": 16, "num_key_value_heads": 4, "max_position_embeddings": 32768,
                       "tie_word_embeddings": True}),
    "qwen2": Family({"vocab_size": 151936, "intermediate_size": 22016, "num_key_value_heads": 32,
                     "max_position_embeddings": 32768, "use_sliding_window": False, "sliding_window": 4096,
                     "max_window_layers": 28}, qkv_bias=True, o_bias=False, sliding="qwen"),
    "qwen3": Family({"vocab_size": 151936, "intermediate_size": 22016, "num_key_value_heads": 32,
                     "head_dim": 128, "max_position_embeddings": 32768, "use_sliding_window": False,
                     "sliding_window": 4096, "max_window_layers": 28}, qk_norm=QkNorm.HEAD, sliding="qwen"),
    "qwen3_moe": Family({"vocab_size": 151936, "hidden_size": 2048, "intermediate_size": 6144,
                         "num_hidden_layers": 24, "num_key_value_heads": 4, "max_position_embeddings": 32768,
                         "moe_intermediate_size": 768, "num_experts": 128, "num_experts_per_tok": 8,
                         **_QWEN_MOE}, qk_norm=QkNorm.HEAD, moe_layers="qwen", sliding="qwen"),
    "qwen2_moe": Family({"vocab_size": 151936, "hidden_size": 2048, "intermediate_size": 5632,
                         "num_hidden_layers": 24, "num_attention_heads": 16, "num_key_value_heads": 16,
                         "max_position_embeddings": 32768, "moe_intermediate_size": 1408, "num_experts": 60,
                         "num_experts_per_tok": 4, "shared_expert_intermediate_size": 5632, "qkv_bias": True,
                         "max_window_layers": 28, **_QWEN_MOE},
                        qkv_bias=True, o_bias=False, moe_layers="qwen", shared="qwen2",
                        expert_lora=ExpertLora.NONE, sliding="qwen"),
    "gemma": Family({"vocab_size": 256000, "hidden_size": 3072, "intermediate_size": 24576,
                     "num_hidden_layers": 28, "num_attention_heads": 16, "num_key_value_heads": 16,
                     "head_dim": 256, "max_position_embeddings": 8192, "tie_word_embeddings": True},
                    norm=NormKind.RMSNORM_FP32),
    "gemma2": Family({"vocab_size": 256000, "hidden_size": 2304, "intermediate_size": 9216,
                      "num_hidden_layers": 26, "num_attention_heads": 8, "num_key_value_heads": 4, "head_dim": 256,
                      "max_position_embeddings": 8192, "tie_word_embeddings": True, "sliding_window": 4096,
                      "final_logit_softcapping": 30.0, "attn_logit_softcapping": 50.0},
                     norm=NormKind.RMSNORM_FP32, norms=4, sliding=2),
    "gemma3_text": Family({"vocab_size": 262208, "hidden_size": 2304, "intermediate_size": 9216,
                           "num_hidden_layers": 26, "num_attention_heads": 8, "num_key_value_heads": 4,
                           "head_dim": 256, "max_position_embeddings": 131072, "tie_word_embeddings": True,
                           "sliding_window": 4096, "sliding_window_pattern": 6},
                          norm=NormKind.RMSNORM_FP32, norms=4, qk_norm=QkNorm.HEAD, sliding="pattern"),
    "gpt_oss": Family({"num_hidden_layers": 36, "num_local_experts": 128, "vocab_size": 201088,
                       "hidden_size": 2880, "intermediate_size": 2880, "head_dim": 64, "num_attention_heads": 64,
                       "num_key_value_heads": 8, "sliding_window": 128, "max_position_embeddings": 131072,
                       "num_experts_per_tok": 4, "attention_bias": True},
                      sinks=True, moe_layers="all", expert_lora=ExpertLora.NONE, router_bias=True,
                      expert_bias=True, sliding=2, mlp=MlpKind.GATED_CLAMPED, norm=NormKind.RMSNORM_FP32),
    "deepseek_v2": Family({"vocab_size": 102400, "n_routed_experts": 64, "n_shared_experts": 2,
                           "moe_intermediate_size": 1407, **_DEEPSEEK},
                          mla=True, moe_layers="first_k", shared="deepseek"),
    "deepseek_v3": Family({"vocab_size": 129280, "hidden_size": 7168, "intermediate_size": 18432,
                           "moe_intermediate_size": 2048, "num_hidden_layers": 61, "num_attention_heads": 128,
                           "num_key_value_heads": 128, "n_shared_experts": 1, "n_routed_experts": 256,
                           "num_experts_per_tok": 8, "max_position_embeddings": 4096,
                           **_DEEPSEEK, "first_k_dense_replace": 3},
                          mla=True, moe_layers="first_k", shared="deepseek"),
    "glm4_moe_lite": Family({"vocab_size": 154880, "hidden_size": 2048, "intermediate_size": 10240,
                             "moe_intermediate_size": 1536, "num_hidden_layers": 47, "num_attention_heads": 20,
                             "num_key_value_heads": 20, "n_shared_experts": 1, "n_routed_experts": 64,
                             "kv_lora_rank": 512, "q_lora_rank": 768, "qk_rope_head_dim": 64, "v_head_dim": 256,
                             "qk_nope_head_dim": 192, "num_experts_per_tok": 4, "max_position_embeddings": 202752,
                             "first_k_dense_replace": 1},
                            mla=True, moe_layers="first_k", shared="deepseek"),
    "minimax_m2": Family({"vocab_size": 200064, "hidden_size": 3072, "intermediate_size": 1536,
                          "num_hidden_layers": 62, "num_attention_heads": 48, "num_key_value_heads": 8,
                          "head_dim": 128, "max_position_embeddings": 196608, "num_experts_per_tok": 8,
                          "num_local_experts": 256, "use_qk_norm": True},
                         qk_norm=QkNorm.PROJECTION, qk_switch=True, moe_layers="all"),
    "qwen3_vl_text": Family({"vocab_size": 151936, "intermediate_size": 22016, "num_key_value_heads": 32,
                             "head_dim": 128, "max_position_embeddings": 128000}, qk_norm=QkNorm.HEAD),
    "qwen3_vl_moe_text": Family({"vocab_size": 151936, "hidden_size": 2048, "intermediate_size": 5632,
                                 "num_hidden_layers": 24, "num_attention_heads": 16, "num_key_value_heads": 16,
                                 "max_position_embeddings": 128000, "tie_word_embeddings": True,
                                 "decoder_sparse_step": 1, "moe_intermediate_size": 1408, "num_experts_per_tok": 4,
                                 "num_experts": 60, "mlp_only_layers": []},
                                qk_norm=QkNorm.HEAD, moe_layers="qwen", expert_lora=ExpertLora.NONE),
    "phi3": Family({"vocab_size": 32064, "hidden_size": 3072, "intermediate_size": 8192,
                    "max_position_embeddings": 4096}, fused_qkv=True, fused_gate_up=True, qkv_bias=False,
                   o_bias=False),
    "olmo2": Family({"vocab_size": 50304, "intermediate_size": 11008}, norm=NormKind.RMSNORM_FP32,
                    qk_norm=QkNorm.PROJECTION),
    "olmo3": Family({"vocab_size": 50304, "sliding_window": 4096}, norm=NormKind.RMSNORM_FP32,
                    qk_norm=QkNorm.PROJECTION, sliding=4),
    "olmoe": Family({"vocab_size": 50304, "hidden_size": 2048, "intermediate_size": 2048,
                     "num_hidden_layers": 16, "num_attention_heads": 16, "max_position_embeddings": 4096,
                     "num_experts_per_tok": 8, "num_experts": 64}, qk_norm=QkNorm.PROJECTION, moe_layers="all"),
    "mixtral": Family({"intermediate_size": 14336, "num_key_value_heads": 8, "max_position_embeddings": 131072,
                       "num_experts_per_tok": 2, "num_local_experts": 8}, moe_layers="all"),
    "llama4_text": Family({"vocab_size": 202048, "hidden_size": 5120, "intermediate_size": 8192,
                           "intermediate_size_mlp": 16384, "num_hidden_layers": 48, "num_attention_heads": 40,
                           "num_key_value_heads": 8, "head_dim": 128, "max_position_embeddings": 131072,
                           "num_experts_per_tok": 1, "num_local_experts": 16, "interleave_moe_layer_step": 1,
                           "use_qk_norm": True},
                          qk_norm=QkNorm.L2, qk_switch=True, moe_layers="interleave", shared="llama4",
                          expert_lora=ExpertLora.NONE, dense_dispatch=True,
                          notes=(_LLAMA4_NOTE,)),
    "exaone4": Family({"vocab_size": 102400, "intermediate_size": 16384, "num_key_value_heads": 32,
                       "sliding_window": 4096, "sliding_window_pattern": 4}, qk_norm=QkNorm.HEAD,
                      sliding="pattern"),
    "glm4": Family({"vocab_size": 151552, "intermediate_size": 13696, "num_hidden_layers": 40,
                    "num_key_value_heads": 2, "head_dim": 128, "max_position_embeddings": 131072,
                    "attention_bias": True, "partial_rotary_factor": 0.5}, norms=4, fused_gate_up=True, o_bias=False),
    "glm4_moe": Family({"vocab_size": 151552, "intermediate_size": 10944, "num_hidden_layers": 46,
                        "num_attention_heads": 96, "num_key_value_heads": 8, "max_position_embeddings": 131072,
                        "moe_intermediate_size": 1408, "num_experts_per_tok": 8, "n_shared_experts": 1,
                        "n_routed_experts": 128, "first_k_dense_replace": 1, "use_qk_norm": False,
                        "partial_rotary_factor": 0.5},
                       o_bias=False, qk_norm=QkNorm.HEAD, qk_switch=True, moe_layers="first_k", shared="deepseek"),
    "granitemoe": Family({"num_local_experts": 8, "num_experts_per_tok": 2}, moe_layers="all",
                         expert_lora=ExpertLora.NONE),
    "granitemoeshared": Family({"num_local_experts": 8, "num_experts_per_tok": 2, "shared_intermediate_size": 0},
                               moe_layers="all", shared="granite", expert_lora=ExpertLora.NONE,
                               fused_gate_up=True),
    "granitemoehybrid": Family({"num_local_experts": 8, "num_experts_per_tok": 2, "shared_intermediate_size": 1024},
                               moe_layers="all", shared="granite", expert_lora=ExpertLora.NONE, fused_gate_up=True),
    # ArceeConfig (hidden_act "relu2"): Llama's layers with ArceeMLP's up_proj -> ReLU^2 -> down_proj
    "arcee": Family({"vocab_size": 32000, "hidden_size": 2560, "intermediate_size": 18432,
                     "max_position_embeddings": 4096}, mlp=MlpKind.RELU2),
    "stablelm": Family({"vocab_size": 50304, "hidden_size": 2560, "intermediate_size": 6912,
                        "max_position_embeddings": 4096, "use_qkv_bias": False, "partial_rotary_factor": 0.25,
                        "qk_layernorm": False, "use_parallel_residual": False},
                       norm=NormKind.LAYERNORM, qkv_bias_key="use_qkv_bias", o_bias=False,
                       refused_switches=(("use_parallel_residual", "parallel attention and MLP blocks"),
                                         ("qk_layernorm", "a LayerNorm per head on the queries and keys"))),
    "gpt2": Family({"vocab_size": 50257, "hidden_size": 768, "num_hidden_layers": 12, "num_attention_heads": 12,
                    "max_position_embeddings": 1024, "tie_word_embeddings": True},
                   norm=NormKind.LAYERNORM, fused_qkv=True, qkv_bias=True, o_bias=True, mlp=MlpKind.PLAIN,
                   positions=PositionKind.LEARNED),
}
for _name, _family in FAMILIES.items():
    object.__setattr__(_family, "source", _src(_name))

#: multimodal wrappers: the language model sits under ``text_config`` with this model_type when it has none
WRAPPERS: dict[str, str] = {
    "gemma3": "gemma3_text", "mistral3": "mistral", "llama4": "llama4_text", "qwen2_5_vl": "qwen2",
    "qwen2_vl": "qwen2", "qwen3_vl": "qwen3", "qwen3_vl_moe": "qwen3_moe", "llava": "llama",
    "paligemma": "gemma", "idefics3": "llama", "smolvlm": "llama",
}

#: wrappers whose published config.json keeps the language model's fields at the top level, beside
#: ``vision_config`` (Qwen2-VL and Qwen2.5-VL: transformers 5.24's Qwen2VLConfig reads them into its text_config)
FLAT_WRAPPERS = frozenset({"qwen2_vl", "qwen2_5_vl"})

#: other names of a family (custom-code checkpoints that transformers builds with a family's classes; the text
#: models of multimodal wrappers whose layers are a family's: transformers 5.24 Qwen2VLTextModel and
#: Qwen2_5_VLTextModel build Qwen2's decoder layers, q/k/v with biases, with multimodal RoPE)
ALIASES: dict[str, str] = {"kimi_k2": "deepseek_v3", "mimo": "qwen2", "qwen2_vl_text": "qwen2",
                           "qwen2_5_vl_text": "qwen2"}
#: what an alias adds to the import's notes
ALIAS_NOTES: dict[str, str] = {
    "kimi_k2": "Kimi K2 (custom code) is built as DeepSeek-V3, whose classes its config names",
    "mimo": "MiMo (custom code) is built as Qwen2, its base; its multi-token-prediction layers are not counted",
}

#: model types whose layers the engine cannot cost, and why (refused by name)
REFUSED: dict[str, str] = {
    "falcon_h1": "Mamba 2 beside attention in every layer, with muP multipliers (Falcon-H1)",
    "falcon_mamba": "Mamba layers whose fused kernel normalises B, C and dt (Falcon Mamba)",
    "zamba": "Mamba layers with a shared attention block (Zamba)",
    "zamba2": "Mamba 2 layers with shared attention blocks and their own adapters (Zamba2)",
    "lfm2_moe": "short convolution layers with sparse experts (LFM2-MoE: not modelled yet)",
    "minimax": "lightning (linear) attention layers",
    "kimi_k3": "attention residuals, latent experts and the SiTU activation around its KDA layers (Kimi K3: not "
               "modelled yet)",
    "recurrent_gemma": "RG-LRU recurrent layers",
    "rwkv": "RWKV recurrent layers",
    "xlstm": "xLSTM recurrent layers",
    "gemma3n": "AltUp / Laurel blocks and per-layer embeddings",
    "gemma4": "parallel dense and expert MLPs and shared key-value global attention (not modelled yet)",
    "gemma4_text": "parallel dense and expert MLPs and shared key-value global attention (not modelled yet)",
    "deepseek_v32": "DeepSeek sparse attention with a lightning indexer",
    "glm_moe_dsa": "DeepSeek sparse attention with a lightning indexer",
    "mllama": "cross-attention layers over the image features (Llama 3.2 Vision)",
    "mllama_text_model": "cross-attention layers over the image features (Llama 3.2 Vision)",
    "falcon": "parallel attention and MLP blocks whose keys and values are broadcast to every query head before "
              "attention (Falcon: not modelled yet)",
    "phi-msft": "parallel attention and MLP blocks (Phi-1, Phi-1.5, Phi-2)",
    "cohere2": "parallel blocks with sliding-window layers and global layers without positions (Command R7B, "
               "Command A: not modelled yet)",
    "dbrx": "bias-free LayerNorms, a clipped fused QKV projection and experts stored as flat parameters (DBRX)",
    "mpt": "ALiBi attention and bias-free LayerNorms (MPT)",
    "apertus": "xIELU activations with learned parameters (Apertus)",
    "qwen": "its own modeling code (QWenLMHeadModel, trust_remote_code) that transformers does not build",
    "bloom": "ALiBi attention, a LayerNorm on the embeddings and a plain GELU MLP (BLOOM)",
    "olmo": "LayerNorms without weight or bias, computed in fp32 (OLMo 1)",
    "baichuan": "its own modeling code (BaichuanForCausalLM, trust_remote_code) that transformers does not build: a "
                "fused W_pack projection, and ALiBi attention masks in the 13B models",
    "chatglm": "its own modeling code (ChatGLMModel, trust_remote_code) that transformers does not build",
    "internlm": "its own modeling code (InternLMForCausalLM, trust_remote_code) that transformers does not build",
    "internlm2": "its own modeling code (InternLM2ForCausalLM, trust_remote_code) that transformers does not build",
    "xverse": "its own modeling code (XverseForCausalLM, trust_remote_code) that transformers does not build",
    "orion": "its own modeling code (OrionForCausalLM, trust_remote_code) that transformers does not build",
    "minicpm": "its own modeling code (MiniCPMForCausalLM, trust_remote_code: muP-scaled embeddings and residuals) "
               "that transformers does not build",
    "minicpm3": "its own modeling code (MiniCPM3ForCausalLM, trust_remote_code: multi-head latent attention with "
                "muP scaling) that transformers does not build",
    "bitnet": "ternary BitNet linears",
    "rwkv5": "RWKV recurrent layers",
    "rwkv6": "RWKV recurrent layers",
    "rwkv7": "RWKV recurrent layers",
    "deepseek_v4": "compressed sparse attention with a lightning indexer and hyper-connections (DeepSeek-V4)",
    "mimo_v2_flash": "value heads narrower than its query and key heads (v_head_dim 128, head_dim 192: MiMo-V2-Flash)",
    "minimax_m3": "MiniMax Sparse Attention (block-sparse attention with its own index heads)",
    "minimax_m3_vl": "MiniMax Sparse Attention (block-sparse attention with its own index heads)",
    "step3p5": "sliding-window layers with their own head counts and a per-head attention gate (Step 3.5 / 3.7)",
    "step3p7": "sliding-window layers with their own head counts and a per-head attention gate (Step 3.5 / 3.7)",
}
#: layer_types values the engine cannot cost, and what they are
REFUSED_LAYER_TYPES: dict[str, str] = {
    "linear_attention": "linear attention (gated DeltaNet)",
    "mamba": "Mamba (state-space)",
    "mamba2": "Mamba 2 (state-space)",
    "conv": "short convolution",
    "recurrent": "recurrent",
}

#: layer_types values that are ordinary softmax attention (a window or chunking changes no parameter)
ATTENTION_LAYER_TYPES = frozenset({"full_attention", "sliding_attention", "chunked_attention", "attention"})
