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
