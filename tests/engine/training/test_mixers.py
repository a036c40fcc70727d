"""What a hybrid layer's token mixer saves for backward, per token, derived by hand from the kernels' saved tensors
(engine/training/saved/mixers.py; traced with registered fakes of the kernels: calibration/kernels.py)."""

import pytest

from engine.hf_import import spec_from_config
from engine.layers import runs
from engine.specs import Method, TrainingSetup
from engine.training.activations import activation_coeffs

#: Qwen3.5-0.8B's language model (calibration/models.py ``qwen3.5-0.8b``): h 1024, 16 key and 16 value heads of 128
QWEN35 = {
    "model_type": "qwen3_5_text", "vocab_size": 248320, "hidden_size": 1024, "intermediate_size": 3584,
    "num_hidden_layers": 4, "num_attention_heads": 8, "num_key_value_heads": 2, "head_dim": 256,
    "linear_num_key_heads": 16, "linear_num_value_heads": 16, "linear_key_head_dim": 128,
    "linear_value_head_dim": 128, "linear_conv_kernel_dim": 4, "tie_word_embeddings": True,
}
H, K, V, HV, HK, MLP = 1024, 2048, 2048, 16, 16, 3584


def _layers(method: Method) -> dict[str, float]:
    m = spec_from_config(QWEN35, "q")
    s = TrainingSetup(method=method, precision="bf16")
    ac = activation_coeffs(m, s)
    return {kind.mixer_kind: lc.saved for (_, lc), kind in zip(ac.segments, ac.kinds, strict=True)}


def test_qwen35_stacks_three_deltanet_layers_to_one_gated_attention():
    m = spec_from_config(QWEN35, "q")
    assert [(r.count, r.mixer_kind) for r in runs(m)] == [(3, "gated-deltanet"), (1, "attention")]
    assert runs(m)[1].attn.output_gate


def test_gated_deltanet_full_fine_tuning_bytes_per_token():
    """bf16 (c = 2), full fine-tuning, one layer: the two (1 + w) fp32 RMSNorms keep their fp32 input and output
    (2 x 8 h); the in_proj_* keep the normed input once (2 h); causal-conv1d keeps the qkv projection's output
    ((2K + V) 2); fla keeps q, k after L2 norm (2K x 2), their rstd (2 x HK x 4), v (2V), the decay's cumsum
    (HV x 4), beta (HV x 2) and A (64 HV x 2); softplus keeps its input and the product its output (2 x HV x 4);
    the gated RMSNorm its fp32 input (4V), rstd (HV x 4), the normalised tensor (2V), weight x it (2V), the fp32
    gate and its SiLU (2 x 4V); out_proj its input (2V); the SwiGLU MLP gate, up, act and down's input (4 x 2I)
    and its input (2h)."""
    norms = 2 * (4 * H + 4 * H)
    mixer = (2 * H + (2 * K + V) * 2 + 2 * K * 2 + 2 * HK * 4 + 2 * V + HV * 4 + HV * 2 + 64 * HV * 2
             + 2 * HV * 4 + 4 * V + HV * 4 + 2 * V + 2 * V + 2 * 4 * V + 2 * V)
    mlp = 4 * 2 * MLP + 2 * H
    assert _layers(Method.FULL)["gated-deltanet"] == norms + mixer + mlp == 113_056


def test_gated_deltanet_lora_bytes_per_token():
    """LoRA r16 on all linears, bf16 under autocast: each adapted linear keeps its own 16-bit copy of its input and
    lora_A's output (16 x 2); frozen norms keep only their fp32 input; the decay keeps softplus's input only
    (A_log frozen); the gated norm no normalised copy (its weight frozen)."""
    rank = 16 * 2
    norms = 2 * 4 * H
    mixer = (4 * (2 * H + rank) + (2 * V + rank) + (2 * K + V) * 2 + 2 * K * 2 + 2 * HK * 4 + 2 * V + HV * 4
             + HV * 2 + 64 * HV * 2 + HV * 4 + 4 * V + HV * 4 + 2 * V + 2 * 4 * V)
    mlp = 3 * 2 * MLP + (2 * MLP + rank) + 2 * (2 * H + rank)
    assert _layers(Method.LORA)["gated-deltanet"] == norms + mixer + mlp == 109_152


def test_gated_attention_keeps_its_sigmoid_and_the_copied_output():
    """Qwen3.5's attention layer: RoPE on a quarter of each head makes SDPA write heads-first, so the output is
    copied before ``attn_output * sigmoid(gate)``: the product keeps that copy and the sigmoid's output (2 x 2 x
    heads x head_dim more than the same layer without the gate); o_proj keeps the product."""
    gated = _layers(Method.FULL)["attention"]
    plain = spec_from_config({**QWEN35, "layer_types": ["full_attention"] * 4}, "p")
    s = TrainingSetup(precision="bf16")
    ungated = plain.model_copy(update={"layers": tuple(r.model_copy(update={
        "attention": r.attn.model_copy(update={"output_gate": False})}) for r in runs(plain))})
    assert gated - activation_coeffs(ungated, s).segments[0][1].saved == 2 * 2 * 8 * 256


@pytest.mark.parametrize("method", [Method.FULL, Method.LORA])
def test_the_kernels_backward_peaks_after_the_mlp_freed_its_tensors(method):
    """fla's backward (h and dh: 2 x HV x 128 x 128 / 64 x 2 bytes a token, with w, u, v_new, dv, dq, dk, dw,
    dg, db and the incoming gradients: 61,664) runs after the MLP, the second norm, the gated norm and out_proj
    freed what they kept: here more than that, so the layer's peak stays the MLP's (2 h r + 3 x 2 I)."""
    m = spec_from_config(QWEN35, "q")
    ac = activation_coeffs(m, TrainingSetup(method=method, precision="bf16"))
    assert ac.segments[0][1].transient == 2 * 2 * H + 3 * 2 * MLP


#: Bamba-9B (calibration/models.py ``bamba-9b-4l``): h 4096, Mamba-2 of 128 heads x 64 (I 8192), one group of 128
#: states; attention on layer 1
BAMBA = {
    "model_type": "bamba", "vocab_size": 128256, "hidden_size": 4096, "intermediate_size": 14336,
    "num_hidden_layers": 4, "num_attention_heads": 32, "num_key_value_heads": 8, "attn_layer_indices": [1],
    "mamba_n_heads": 128, "mamba_d_head": 64, "mamba_n_groups": 1, "mamba_d_state": 128, "mamba_chunk_size": 256,
}


def test_mamba2_keeps_in_proj_s_output_the_scan_s_output_and_the_norm_s_rstd():
    """bf16, full fine-tuning: mamba-ssm's fused MambaSplitConv1dScanCombinedFn keeps zxbcdt (2I + 2GN + H = 16,768
    wide, x 2), the scan's output before the gated norm (2I) and one fp32 rstd per group (4); in_proj its input (2h);
    Bamba's two Llama RMSNorms their fp32 input and their output (2 x (4h + 2h)); the SwiGLU MLP 4 x 2 x 14,336 and
    its input (2h). Nothing else: the convolution's output, the chunk states and out_proj's input are recomputed."""
    m = spec_from_config(BAMBA, "b")
    ac = activation_coeffs(m, TrainingSetup(precision="bf16"))
    mamba = next(lc.saved for (_, lc), kind in zip(ac.segments, ac.kinds, strict=True) if kind.mixer is not None)
    h, inner = 4096, 8192
    width = inner + (inner + 2 * 128) + 128
    assert mamba == 2 * (4 * h + 2 * h) + 2 * h + 2 * width + 2 * inner + 4 + 4 * 2 * 14336 + 2 * h == 230_148


def test_mamba2_backward_holds_the_chunk_states_four_times():
    """Nemotron-Nano-9B-v2's Mamba-2 (128 heads x 80, 8 groups of 128 states, 128-token chunks): the backward's
    peak, at _state_passing_bwd, holds the states of every chunk in fp32, their fp32 gradients, the 16-bit
    gradients and the converted states (12 bytes x heads x head_dim x state / chunk = 122,880 a token), with
    dzxbcdt, the recomputed convolution, dxBC, three out_proj-wide tensors, dt's clone, the chunk cumsums and
    C^T B; a layer without MLP frees nothing before it (traced: lc-nemotron-nano-9b-v2-4l_*_chunked)."""
    cfg = {"model_type": "nemotron_h", "vocab_size": 131072, "hidden_size": 4480, "intermediate_size": 15680,
           "hybrid_override_pattern": "M-M*", "num_attention_heads": 40, "num_key_value_heads": 8, "head_dim": 128,
           "mamba_num_heads": 128, "mamba_head_dim": 80, "n_groups": 8, "ssm_state_size": 128, "chunk_size": 128}
    ac = activation_coeffs(spec_from_config(cfg, "n"), TrainingSetup(method=Method.LORA, precision="bf16"))
    h, inner, conv = 4480, 10240, 10240 + 2 * 8 * 128
    width = inner + conv + 128
    states = 128 * 80 * 128 // 128 * (4 + 4 + 2 + 2)
    outer = 2 * width + 2 * 2 * conv + 3 * 2 * inner + 2 * 128
    scan = 2 * 128 * 4 + 8 * 128 * 4
    assert ac.segments[0][1].transient == 2 * 2 * h + outer + scan + states == 302_080


@pytest.mark.parametrize("cfg", [QWEN35, BAMBA], ids=["gated-deltanet", "mamba2"])
def test_a_hybrid_spec_survives_its_json(cfg):
    """Catalog entries and traced rows store specs with exclude_defaults: the mixer's kind (its discriminator)
    must be kept."""
    m = spec_from_config(cfg, "x")
    from engine.specs import ModelSpec

    assert ModelSpec.model_validate(m.model_dump(mode="json", exclude_defaults=True)) == m


#: Pythia-1.4B (GPT-NeoX with use_parallel_residual): h 2048, 16 heads of 128, exact-GELU MLP of 8192
PYTHIA = {"model_type": "gpt_neox", "vocab_size": 50304, "hidden_size": 2048, "intermediate_size": 8192,
          "num_hidden_layers": 24, "num_attention_heads": 16, "rotary_pct": 0.25}


def test_a_parallel_block_keeps_the_shared_input_once():
    """bf16, full fine-tuning: GPT-NeoX's two LayerNorms read the same residual, kept once (2h) with each norm's
    fp32 mean and rstd (2 x 8); the fused qkv keeps the normed input (2h) and, RoPE on a quarter of each head making
    q and k new tensors while v stays a view, its whole output (2 x 3h - ... : c x (heads + kv) x d = 2 x 4096);
    SDPA q, k, v, o and an fp32 log-sum-exp per head (4 x 2h + 16 x 4); dense its input (2h: the query is made by
    torch.cat, so the output is copied); the MLP its input (2h) and the exact GELU's input and output
    (2 x 2 x 8192)."""
    m = spec_from_config(PYTHIA, "p")
    assert runs(m)[0].parallel
    h = 2048
    saved = (2 * h + 2 * 8) + 2 * h + (4 * 2 * h + 16 * 4) + 2 * 2 * h + 2 * h + 2 * h + 2 * 2 * 8192
    assert activation_coeffs(m, TrainingSetup(precision="bf16")).segments[0][1].saved == saved == 73_808
    sequential = spec_from_config({**PYTHIA, "use_parallel_residual": False}, "s")
    assert not runs(sequential)[0].parallel
    assert activation_coeffs(sequential, TrainingSetup(precision="bf16")).segments[0][1].saved == saved + 2 * h


def test_jamba_s_mamba_keeps_what_its_pieces_and_the_selective_scan_keep():
    """Jamba-v0.1's Mamba layer (d 8192, 16 states, dt rank 256), bf16, full fine-tuning: causal-conv1d keeps a
    view of in_proj's output (2d x 2); mamba-ssm's SelectiveScanFn keeps u (the convolution's output, which x_proj
    shares), delta, the gate z and B, C made contiguous, and its ungated output (4 x 2d + 2 x 2 x 16); the dt, B and
    C RMSNorms their fp32 inputs and normalised tensors ((256 + 32) x (4 + 2)); dt_proj's matmul its input (2 x 256);
    out_proj its input (2d); in_proj its input (2h); the two RMSNorms and the dense MLP as a Llama layer's."""
    cfg = {"model_type": "jamba", "vocab_size": 65536, "hidden_size": 4096, "intermediate_size": 14336,
           "num_hidden_layers": 4, "num_attention_heads": 32, "num_key_value_heads": 8, "num_experts": 16,
           "attn_layer_period": 4, "attn_layer_offset": 3, "mamba_dt_rank": 256}
    m = spec_from_config(cfg, "j")
    assert [r.mixer_kind for r in runs(m)] == ["mamba1", "mamba1", "mamba1", "attention"]
    h, d = 4096, 8192
    mixer = 2 * h + 2 * d * 2 + 4 * 2 * d + 2 * 2 * 16 + (256 + 32) * (4 + 2) + 2 * 256 + 2 * d
    llama_rest = 2 * (4 * h + 2 * h) + 4 * 2 * 14336 + 2 * h
    assert activation_coeffs(m, TrainingSetup(precision="bf16")).segments[0][1].saved == mixer + llama_rest


def test_mamba_s_fused_inner_fn_keeps_xz_x_dbl_b_c_and_the_ungated_output():
    """mamba-130m (d 1536, 16 states, dt rank 48), bf16, full fine-tuning: MambaInnerFn keeps xz made contiguous
    (2d x 2), x_dbl ((48 + 32) x 2), B and C contiguous (2 x 16 x 2) and the scan's ungated output (2d); in_proj its
    input (2h); the block's RMSNorm its fp32 input and normalised output (4h + 2h). The residual stream is fp32
    (residual_in_fp32): a checkpoint holds 4h."""
    cfg = {"model_type": "mamba", "vocab_size": 50280, "hidden_size": 768, "num_hidden_layers": 24,
           "state_size": 16, "expand": 2}
    m = spec_from_config(cfg, "m")
    assert m.residual_fp32
    h, d = 768, 1536
    lc = activation_coeffs(m, TrainingSetup(precision="bf16")).segments[0][1]
    assert lc.saved == (4 * h + 2 * h) + 2 * h + 2 * d * 2 + (48 + 32) * 2 + 2 * 16 * 2 + 2 * d == 15_584
    assert lc.checkpoint == 4 * h


def test_kda_keeps_its_per_channel_gates_in_fp32():
    """Kimi-Linear-48B-A3B's KDA layer (32 heads of 128: K = V = 4096; h 2304), bf16, full fine-tuning: the six
    linears reading the normed input keep it once (2h); f_b and g_b their 128-wide input (2 x 2 x 128); causal-conv1d
    the concatenated q, k, v (3 x 2 x 4096); the forget gate exp's output, 1 + exp (fp32), the where's mask and
    softplus' output (2 x 4K + K + 4K); fla q and k after their L2 norm (2 x 2K), their rstd (2 x 32 x 4), v (2V),
    the decay and its cumsum (2 x 4K), beta (2 x 32) and Aqk, Akk (2 x 64 x 32 x 2); the fp32 gated norm its input,
    rstd, normalised, weighted and sigmoid tensors (4V + 128 + 4V + 2 x 4V); o_proj its input (2V); the norms and
    the dense MLP (9,216) as a Llama layer's. Traced: kimi-linear-48b-a3b-4l (328,648 a token)."""
    cfg = {"model_type": "kimi_linear", "vocab_size": 163840, "hidden_size": 2304, "intermediate_size": 9216,
           "moe_intermediate_size": 1024, "num_hidden_layers": 4, "num_attention_heads": 32, "kv_lora_rank": 512,
           "q_lora_rank": None, "qk_nope_head_dim": 128, "qk_rope_head_dim": 64, "v_head_dim": 128,
           "num_local_experts": 256, "num_experts_per_tok": 8, "n_shared_experts": 1, "first_k_dense_replace": 1,
           "linear_attn_config": {"head_dim": 128, "num_heads": 32, "short_conv_kernel_size": 4,
                                  "kda_layers": [1, 2, 4], "full_attn_layers": [3]}}
    m = spec_from_config(cfg, "k")
    assert [r.mixer_kind for r in runs(m)] == ["kda", "kda", "attention", "kda"]
    h, k, heads = 2304, 4096, 32
    mixer = (2 * h + 2 * 2 * 128 + 3 * 2 * k + (2 * 4 * k + k + 4 * k)
             + (2 * 2 * k + 2 * heads * 4 + 2 * k + 2 * 4 * k + 2 * heads + 2 * 64 * heads * 2)
             + (4 * k + 4 * heads + 4 * k + 2 * 4 * k) + 2 * k)
    rest = 2 * (4 * h + 2 * h) + 4 * 2 * 9216 + 2 * h
    assert activation_coeffs(m, TrainingSetup(precision="bf16")).segments[0][1].saved == mixer + rest == 328_640


def test_lfm2_s_short_convolution_keeps_in_proj_s_output_the_gated_input_and_the_convolution_s_output():
    """LFM2-1.2B (h 2048, SwiGLU of 2/3 x 12,288 = 8,192), bf16, full fine-tuning: ``B * x`` keeps in_proj's whole
    output through its two views (3h x 2), causal-conv1d its input B x (2h), ``C * conv`` the convolution's output
    (2h), out_proj the contiguous product (2h), in_proj its input (2h); the two RMSNorms and the MLP as a Llama
    layer's. Traced: lfm2-1.2b (-0.02%)."""
    cfg = {"model_type": "lfm2", "vocab_size": 65536, "hidden_size": 2048, "block_ff_dim": 12288,
           "num_hidden_layers": 16, "num_attention_heads": 32, "num_key_value_heads": 8,
           "full_attn_idxs": [2, 5, 8, 10, 12, 14]}
    m = spec_from_config(cfg, "l")
    assert runs(m)[0].ffn.intermediate_size == 8192
    h = 2048
    mixer = 2 * h + 3 * h * 2 + 2 * h * 2 + 2 * h
    rest = 2 * (4 * h + 2 * h) + 4 * 2 * 8192 + 2 * h
    assert activation_coeffs(m, TrainingSetup(precision="bf16")).segments[0][1].saved == mixer + rest


#: Aya 23 8B's layer (calibration/models.py ``aya-23-8b-4l``): Cohere's parallel block on one CohereLayerNorm
AYA = {"model_type": "cohere", "vocab_size": 256000, "hidden_size": 4096, "intermediate_size": 14336,
       "num_hidden_layers": 2, "num_attention_heads": 32, "num_key_value_heads": 8, "logit_scale": 0.0625}


def test_cohere_parallel_block_bytes_per_token():
    """bf16, full fine-tuning: CohereLayerNorm computes ``x - mean`` twice in fp32 (pow keeps one, the product by
    rstd the other: 2 x 4h), rstd (4) and the fp32 normalised tensor for its weight (4h); q, k, v, gate and up read
    its one bf16 output (2h); SDPA keeps q after RoPE, k, v, its output and the fp32 log-sum-exp (2 x 4096 + 2 x
    1024 x 2 + 2 x 4096 + 32 x 4); the SwiGLU MLP gate, up, SiLU and down's input (4 x 2I). LoRA r16 on all
    linears (traced: PEFT's LoRA layers keep their own 2-D view of their input): no normalised tensor; q, k, v, o,
    gate and up each keep their input (2h) and lora_A's output (16 x 2), down its lora_A output."""
    h, i = 4096, 14336
    norm = 2 * 4 * h + 4 + 4 * h
    attention = 2 * 4096 + 2 * 1024 * 2 + 2 * 4096 + 32 * 4
    full = norm + 2 * h + attention + 4 * 2 * i
    m = spec_from_config(AYA, "aya")
    assert runs(m)[0].parallel
    ac = activation_coeffs(m, TrainingSetup(method=Method.FULL, precision="bf16"))
    assert ac.segments[0][1].saved == full == 192_644
    ac = activation_coeffs(m, TrainingSetup(method=Method.LORA, precision="bf16"))
    rank = 16 * 2
    lora = 2 * 4 * h + 4 + 6 * (2 * h + rank) + attention + 4 * 2 * i + rank
    assert ac.segments[0][1].saved == lora == 217_444
