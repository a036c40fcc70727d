"""KV cache and serving capacity: hand-derived values, the seed's figures, and monotonicity."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.catalog import get_gpu, get_model, gpus
from engine.serving import (
    DEEPSEEK_V2,
    AttentionKind,
    ServingSetup,
    WeightDtype,
    compare_mla,
    kv_cache,
    serving_fit,
)
from engine.serving.vllm_setup import KvCacheDtype
from engine.specs import KvDtype
from engine.units import GB


@pytest.mark.parametrize(
    ("model", "shown", "exact"),
    [
        ("llama-2-7b", "2.15", 2 * 32 * 32 * 128 * 4096 * 2),
        ("llama-2-13b", "3.36", 2 * 40 * 40 * 128 * 4096 * 2),
        ("llama-2-70b", "1.34", 2 * 80 * 8 * 128 * 4096 * 2),
    ],
)
def test_seed_figures_are_decimal_gb(model: str, shown: str, exact: int) -> None:
    kv = kv_cache(get_model(model), 4096, KvDtype.FP16)
    assert kv.bytes_per_sequence == exact
    assert f"{kv.bytes_per_sequence / GB:.2f}" == shown


def test_attention_kinds() -> None:
    assert kv_cache(get_model("llama-2-7b"), 1).attention is AttentionKind.MHA
    assert kv_cache(get_model("llama-2-70b"), 1).attention is AttentionKind.GQA
    assert kv_cache(get_model("deepseek-v2-lite"), 1).attention is AttentionKind.MLA
    mqa = get_model("llama-2-7b").model_copy(update={"num_kv_heads": 1})
    assert kv_cache(mqa, 10).bytes_per_sequence == 2 * 32 * 1 * 128 * 10 * 2
    assert kv_cache(mqa, 10).attention is AttentionKind.MQA


def test_gqa_is_heads_ratio_of_mha() -> None:
    """Llama 2 70B's 8 KV heads against a 64-KV-head copy of itself: 8 times less."""
    gqa = get_model("llama-2-70b")
    mha = gqa.model_copy(update={"num_kv_heads": 64})
    assert kv_cache(mha, 4096).bytes_per_sequence == 8 * kv_cache(gqa, 4096).bytes_per_sequence


def test_mla_formula() -> None:
    """DeepSeek-V2-Lite: 27 layers x (512 + 64) elements per token, no factor 2 (one latent, not K and V)."""
    kv = kv_cache(get_model("deepseek-v2-lite"), 1000, KvDtype.BF16)
    assert kv.bytes_per_token == 27 * 576 * 2
    assert kv.bytes_per_sequence == 27 * 576 * 1000 * 2
    assert "2405.04434" in kv.source


def test_mla_latent_is_whole_on_every_tp_gpu() -> None:
    m = get_model("deepseek-v2-lite")
    assert kv_cache(m, 100, tp=4).bytes_per_sequence == kv_cache(m, 100).bytes_per_sequence


def test_sliding_window_caps_the_sliding_layers() -> None:
    """Gemma 2 9B: half of 42 layers slide over 4,096 tokens; at 8,192, 21 keep 8,192 and 21 keep 4,096."""
    m = get_model("gemma-2-9b")
    per_token_layer = 2 * 8 * 256 * 2
    assert kv_cache(m, 8192).bytes_per_sequence == per_token_layer * (21 * 8192 + 21 * 4096)
    assert kv_cache(m, 4096).bytes_per_sequence == per_token_layer * 42 * 4096
    mistral = get_model("mistral-7b")  # every layer slides: the cache stops growing at the window
    assert kv_cache(mistral, 32768).bytes_per_sequence == kv_cache(mistral, 4096).bytes_per_sequence


@pytest.mark.parametrize(
    ("dtype", "factor"),
    [(KvDtype.FP32, 2.0), (KvDtype.BF16, 1.0), (KvDtype.FP8, 0.5), (KvDtype.INT8, 0.5), (KvDtype.INT4, 0.25)],
)
def test_dtype_scales_bytes(dtype: KvDtype, factor: float) -> None:
    m = get_model("llama-2-7b")
    assert kv_cache(m, 4096, dtype).bytes_per_sequence == factor * kv_cache(m, 4096).bytes_per_sequence


def test_tp_splits_heads_at_least_one_per_gpu() -> None:
    m = get_model("llama-2-70b")  # 8 KV heads
    assert kv_cache(m, 1, tp=4).kv_heads == 2
    assert kv_cache(m, 1, tp=16).kv_heads == 1


def test_mla_comparison_like_for_like_and_published() -> None:
    c = compare_mla()
    assert c.mla_bytes_per_token == 60 * 576 * 2 == 69_120
    assert c.gqa_bytes_per_token == 2 * 95 * 8 * 128 * 2 == 389_120
    assert round(c.like_for_like, 3) == 0.822
    assert round(c.per_layer, 4) == 0.7188
    assert c.published == 0.933
    assert round(c.published_reconstructed, 3) == 0.933  # 6-bit V2 cache vs 16-bit 67B
    for part in ("6 bits", "60", "95"):
        assert part in c.note


def test_deepseek_v2_parameter_count() -> None:
    from engine.params import count_params

    assert round(count_params(DEEPSEEK_V2).total / 1e9) == 236


def test_capacity_hand_derived() -> None:
    """Llama 2 7B on an A100 40 GB at 4,096 tokens, vLLM 0.19.1 (v1; not a large GPU: 2,048 batched tokens, 256
    sequences). Budget ceil(39.50 GiB x 0.9); weights 6,738,415,616 x 2 + rope 4,096 x 128 x 2; the profile's peak is
    the MLP's 2,048 x (3 x 4,096 + 3 x 11,008) x 2 B (the sampler's moment is less) and cuBLAS's 8 MiB + 128 KiB
    workspace (not Hopper); 0.16 GiB of lazily loaded kernels and 0.12 GiB left by profiling the CUDA graphs; blocks
    of 16 tokens x 32 layers x 2 x 32 heads x 128 x 2 B."""
    gpu, m = get_gpu("a100-40gb"), get_model("llama-2-7b")
    fit = serving_fit(m, gpu, ServingSetup(tokens=4096, sequences=3))
    budget = -(-gpu.memory_bytes * 9 // 10)
    weights = 6_738_415_616 * 2 + 4096 * 128 * 2
    profile = 2048 * (3 * 4096 + 3 * 11008) * 2 + 8 * 2**20 + 128 * 2**10
    left = budget - weights - profile - round(0.16 * 2**30) - round(0.12 * 2**30)
    blocks = left // (16 * 2 * 32 * 128 * 2) // 32
    assert fit.term("weights").bytes == weights
    assert fit.term("activation_workspace").bytes == profile
    assert fit.kv_budget_bytes == left
    assert fit.startup.num_blocks == blocks
    assert fit.max_sequences == blocks // (4096 // 16)
    assert fit.term("kv_cache").bytes == 3 * 2_147_483_648
    assert fit.fits


def test_weights_that_do_not_fit_leave_no_users() -> None:
    m, gpu = get_model("llama-2-70b"), get_gpu("h100-80gb")
    fit = serving_fit(m, gpu, ServingSetup())
    assert fit.max_sequences == 0
    assert not fit.fits
    assert "No available memory for the cache blocks" in fit.startup.error
    int4 = serving_fit(m, gpu, ServingSetup(weight_dtype=WeightDtype.INT4_GPTQ))
    assert int4.max_sequences > 0


def test_a_gpu_vllm_does_not_run_on_is_refused_by_name() -> None:
    with pytest.raises(ValueError, match=r"vLLM runs on NVIDIA .* and AMD .*Apple M4 Max 128 GB"):
        serving_fit(get_model("llama-2-7b"), get_gpu("m4-max-128gb"), ServingSetup())
    with pytest.raises(ValueError, match=r"the 32 attention heads .* TP 3 does not divide them"):
        serving_fit(get_model("llama-2-7b"), get_gpu("h100-80gb"), ServingSetup(tp=3))


_MODELS = ["llama-2-7b", "llama-2-70b", "gemma-2-9b", "deepseek-v2-lite", "qwen2.5-7b", "mistral-7b"]
_CUDA = [g.id for g in gpus() if g.vendor == "NVIDIA"]
_TP = [1, 2, 4]  # divides every model's heads above


@settings(max_examples=40, deadline=None)
@given(
    model=st.sampled_from(_MODELS), gpu=st.sampled_from(_CUDA),
    tokens=st.integers(1, 131_072), more=st.integers(1, 65_536),
    setup=st.builds(ServingSetup, tp=st.sampled_from(_TP), kv_dtype=st.sampled_from(list(KvCacheDtype)),
                    weight_dtype=st.sampled_from(list(WeightDtype))),
)
def test_more_tokens_never_fit_more_users(
    model: str, gpu: str, tokens: int, more: int, setup: ServingSetup
) -> None:
    m, g = get_model(model), get_gpu(gpu)
    base = setup.with_(tokens=tokens)
    longer = base.with_(tokens=min(tokens + more, 1_048_576))
    assert serving_fit(m, g, longer).max_sequences <= serving_fit(m, g, base).max_sequences


@settings(max_examples=40, deadline=None)
@given(model=st.sampled_from(_MODELS), gpu=st.sampled_from(_CUDA), tokens=st.integers(1, 131_072),
       tp=st.sampled_from(_TP[:-1]))
def test_more_tp_gpus_never_fit_fewer_users(model: str, gpu: str, tokens: int, tp: int) -> None:
    """vLLM 0.19 charges no NCCL buffer (they sit in the headroom): twice the GPUs hold at least as many users."""
    m, g = get_model(model), get_gpu(gpu)
    base = ServingSetup(tokens=tokens, tp=tp)
    assert serving_fit(m, g, base.with_(tp=2 * tp)).max_sequences >= serving_fit(m, g, base).max_sequences


def test_serving_engine_never_imports_qt() -> None:
    """engine.serving and the kv-cache command import with PySide6 and pyqtgraph made unimportable."""
    import subprocess
    import sys

    code = (
        "import sys\n"
        "for name in ('PySide6', 'pyqtgraph', 'shiboken6', 'gui'):\n"
        "    sys.modules[name] = None\n"
        "import engine.serving, engine.commands.kv_cache\n"
        "assert not any(m.startswith(('PySide6', 'pyqtgraph', 'gui')) for m in sys.modules if sys.modules[m])\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True)


def test_serving_terms_carry_their_shares():
    from engine.serving.capacity import serving_fit

    fit = serving_fit(get_model("llama-2-7b"), get_gpu("a100-80gb"), ServingSetup())
    assert sum(t.share for t in fit.terms) == pytest.approx(1.0)
    assert all(t.share == pytest.approx(t.bytes / fit.used_bytes) for t in fit.terms)


def test_more_sequences_fit_than_a_request_may_ask_for() -> None:
    """Issue 17: GPT-2 at 128 tokens, int8 weights, over 12 H100s (one head each) holds more sequences per GPU
    than a ServingSetup may ask for (65,536), so the bar of the largest concurrency is the fit's own terms, not a
    new setup."""
    from engine.serving.capacity import MAX_SEQUENCES

    m, gpu = get_model("gpt2"), get_gpu("h100-80gb")
    fit = serving_fit(m, gpu, ServingSetup(tokens=128, weight_dtype=WeightDtype.INT8, tp=12))
    assert fit.max_sequences > MAX_SEQUENCES
    terms = {t.name: t.bytes for t in fit.terms_at(fit.max_sequences)}
    assert terms["kv_cache"] == fit.max_sequences * fit.kv.bytes_per_sequence
    assert terms["weights"] == fit.term("weights").bytes
    inside = sum(b for name, b in terms.items() if name != "cuda_graphs")
    assert inside <= fit.budget_bytes
    with pytest.raises(ValueError, match="sequences"):
        ServingSetup(sequences=fit.max_sequences)


def test_kv_cache_refuses_a_length_beyond_the_engines_bound() -> None:
    """Issue 17: ``kv-cache --tokens 10**30`` printed 5e35 bytes."""
    with pytest.raises(ValueError, match="tokens: 1,000,000,000,000,000,000,000,000,000,000 is outside"):
        kv_cache(get_model("llama-2-7b"), 10**30)
    assert kv_cache(get_model("llama-2-7b"), 1_048_576).tokens == 1_048_576


def test_a_hybrid_caches_kv_for_its_attention_layers_and_a_fixed_state_for_the_others():
    """Qwen3.5-0.8B's language model: 6 gated-attention layers keep K and V (2 x 2 KV heads x 256 x 2 bytes a token
    each); its 18 gated DeltaNet layers a recurrent state of 16 heads x 128 x 128 fp32 and the convolution's last 3
    inputs of its 6,144 channels, whatever the length (issue 27)."""
    from engine.hf_import import spec_from_config

    cfg = {"model_type": "qwen3_5_text", "vocab_size": 248320, "hidden_size": 1024, "intermediate_size": 3584,
           "num_hidden_layers": 24, "num_attention_heads": 8, "num_key_value_heads": 2, "head_dim": 256,
           "linear_num_key_heads": 16, "linear_num_value_heads": 16}
    m = spec_from_config(cfg, "q")
    state = 18 * (4 * 16 * 128 * 128 + 6144 * 3 * 2)
    for tokens in (1, 4096):
        kv = kv_cache(m, tokens)
        assert (kv.layers, kv.state_layers, kv.state_bytes) == (6, 18, state)
        assert kv.bytes_per_sequence == 6 * 2 * 2 * 256 * 2 * tokens + state
