"""vLLM's start-up, predicted (engine.serving.vllm): against logs vLLM printed, and worked by hand from its rules.

The published logs (each a public issue or PR; only the figures are used): an RTX 3090 with vLLM 0.6.4
(vllm-project/vllm#10517) and an H100 with 0.6.5 (PR #10511). The hand-worked cases follow vLLM 0.19.1's
``Worker.determine_available_memory`` and ``kv_cache_utils`` step by step, with the figures the catalog gives the
GPU and the rules ``engine.serving.vllm_profile`` reads in vLLM's code (the activation moments, the sampler's bytes
per logit, the 0.16 GiB of lazily loaded kernels).
"""

from __future__ import annotations

import math

import pytest

from engine.catalog import get_gpu, get_model
from engine.serving.vllm import vllm_startup
from engine.serving.vllm_setup import KvCacheDtype, VllmSetup
from engine.serving.vllm_versions import Engine

GIB = 2**30
RUNTIME = round(0.16 * GIB)
#: 0.18+ profiles the CUDA graphs inside the memory window (vllm_profile.CUDAGRAPH_PROFILE_BYTES)
GRAPH_PROFILE = round(0.12 * GIB)


def test_rtx_3090_vllm_0_6_4_as_logged() -> None:
    """#10517: Llama 3.1 8B, --max-model-len 20000, 23.58 GiB x 0.9: 'peak_torch_memory=17.06GiB
    non_torch_memory=0.35GiB kv_cache_size=3.81GiB', '# GPU blocks: 1952'; at 29000: 'peak_torch_memory=17.98GiB',
    '# GPU blocks: 1478' and the error naming 23648 tokens."""
    m, gpu = get_model("llama-3.1-8b"), get_gpu("rtx-3090")
    st = vllm_startup(m, gpu, VllmSetup(max_model_len=20_000, vllm_version="0.6.4"))
    assert (st.weights_bytes + st.activation_peak_bytes) / GIB == pytest.approx(17.06, abs=0.015)
    assert st.non_torch_bytes / GIB == pytest.approx(0.35, abs=0.005)
    assert st.kv_cache_bytes / GIB == pytest.approx(3.81, abs=0.015)
    assert st.num_blocks == pytest.approx(1952, rel=0.005)
    assert st.log_lines[0] == "Loading model weights took 14.9888 GB"
    assert st.log_lines[1].startswith("Memory profiling results: total_gpu_memory=23.58GiB")
    longer = vllm_startup(m, gpu, VllmSetup(max_model_len=29_000, vllm_version="0.6.4"))
    assert (longer.weights_bytes + longer.activation_peak_bytes) / GIB == pytest.approx(17.98, abs=0.01)
    assert longer.num_blocks == pytest.approx(1478, rel=0.005)
    assert not longer.fits
    assert "The model's max seq len (29000) is larger than the maximum number of tokens" in longer.error


def test_h100_vllm_0_6_5_profile_as_logged() -> None:
    """PR #10511 (a development build of 0.6.5): Meta-Llama-3-8B with the defaults on an H100 (79.22 GiB): 'model
    weights take 14.96GiB ... PyTorch activation peak memory 1.26GiB'. The activation is the sampler's: 8,192 x
    4,096 x 2 held, the 256 sequences' last hidden states copied out, 256 x 128,256 x 38 bytes a logit, and cuBLAS's
    32 MiB Hopper workspace. (The build's 'non_torch_memory 1.79GiB' is not the release's: 0.6.5's own log, the
    phi-4 GPTQ one of data/logs, charges 0.26 GiB.)"""
    st = vllm_startup(get_model("llama-3-8b"), get_gpu("h100-80gb"), VllmSetup(vllm_version="0.6.5"))
    assert st.weights_bytes / GIB == pytest.approx(14.96, abs=0.005)
    assert st.activation_peak_bytes == 8192 * 4096 * 2 + 256 * 4096 * 2 + 256 * 128_256 * 38 + 32 * 2**20
    assert st.activation_peak_bytes / GIB == pytest.approx(1.26, abs=0.005)


def test_llama_3_1_8b_on_an_h100_by_hand() -> None:
    """vLLM 0.19.1, bf16, TP 1, utilization 0.9, max_model_len 131,072. On a GPU of 70 GiB or more the defaults
    are 8,192 batched tokens and 1,024 sequences. The sampler's moment holds the forward's 8,192 hidden states, the
    1,024 last ones and their ``rand_like`` copy, 14 bytes a logit (bf16 logits, their float32 copy, the
    probabilities and the exponential draws), the Triton top-k/top-p kernel's float32 scratch rows (132 SMs) and
    cuBLAS's 32 MiB Hopper workspace: more than the MLP's 8,192 x (3 x 4,096 + 3 x 14,336) x 2 bytes; a block is 16
    tokens x 32 layers x 2 x 8 heads x 128 x 2 bytes."""
    gpu = get_gpu("h100-80gb")
    st = vllm_startup(get_model("llama-3.1-8b"), gpu, VllmSetup())
    requested = math.ceil(gpu.memory_bytes * 0.9)
    weights = 16_060_522_496 + 131_072 * 128 * 2
    sampler = (8192 + 2 * 1024) * 4096 * 2 + 1024 * 128_256 * 14 + 132 * 128_256 * 4
    assert sampler > 8192 * (3 * 4096 + 3 * 14_336) * 2
    peak = sampler + 32 * 2**20
    kv = requested - weights - peak - RUNTIME - GRAPH_PROFILE
    blocks = kv // (16 * 2 * 8 * 128 * 2) // 32
    assert (st.max_num_batched_tokens, st.max_num_seqs) == (8192, 1024)
    assert (st.requested_bytes, st.weights_bytes, st.activation_peak_bytes) == (requested, weights, peak)
    assert st.kv_cache_bytes == kv
    assert st.kv_cache_tokens == blocks * 16
    assert st.max_concurrency == pytest.approx(blocks / (131_072 // 16))
    assert st.log_lines[1:4] == [f"Available KV cache memory: {kv / GIB:.2f} GiB",
                                 f"GPU KV cache size: {blocks * 16:,} tokens",
                                 f"Maximum concurrency for 131,072 tokens per request: {blocks / 8192:.2f}x"]


def test_llama_3_1_70b_at_tp_4_by_hand() -> None:
    """Per GPU: a quarter of every linear and of the padded vocabulary (128,256), whole norms and rotary cache;
    a token's cache is 80 layers x 2 x (8 / 4) heads x 128 x 2 bytes = 81,920 bytes; NCCL's ring buffers, set up
    at the profile's first all-reduce, are charged (1.79 GiB over NVLink) beside the lazily loaded kernels."""
    m, gpu = get_model("llama-3.1-70b"), get_gpu("h100-80gb")
    st = vllm_startup(m, gpu, VllmSetup(tp=4, max_model_len=8192))
    h, i, layers = 8192, 28_672, 80
    linears = layers * (h * 8192 + 2 * h * 1024 + 8192 * h + 3 * h * i) // 4
    weights = 2 * (linears + 2 * 128_256 * h // 4 + (2 * layers + 1) * h) + 131_072 * 128 * 2
    assert st.weights_bytes == weights
    assert st.kv_bytes_per_token == 81_920
    assert st.non_torch_bytes == RUNTIME + GRAPH_PROFILE + round(1.79 * GIB)
    assert st.kv_cache_tokens == (st.kv_cache_bytes // (16 * 81_920 // 80) // 80) * 16


def test_nccl_init_buffers_leave_the_budget_with_the_snapshot() -> None:
    """v1 0.10.2 snapshots before init_worker_distributed_environment: what ncclCommInitRank registers (NVLS's
    multicast buffers: 2 communicators x 4 ranks x 288 MiB on NVSwitch Hopper) counts; 0.11.0 snapshots after it.
    The rings' connection buffers appear at the first all-reduce, inside the profile, in both."""
    m, gpu = get_model("llama-3.1-8b"), get_gpu("h100-80gb")
    before = vllm_startup(m, gpu, VllmSetup(tp=4, vllm_version="0.10.2"))
    after = vllm_startup(m, gpu, VllmSetup(tp=4, vllm_version="0.11.0"))
    assert before.non_torch_bytes - after.non_torch_bytes == 2 * 4 * 288 * 2**20
    assert after.non_torch_bytes == RUNTIME + round(1.79 * GIB)
    assert vllm_startup(m, gpu, VllmSetup(pp=2, vllm_version="0.11.0")).non_torch_bytes == RUNTIME


def test_qwen3_moe_profile_is_the_fused_experts() -> None:
    """Qwen3-30B-A3B with 16 sequences: fused_moe's caches for 8,192 tokens x 8 experts x (3 x 768 + 2,048), beside
    3 x 2,048 for the residual, input and output and 2 x 128 for the router's float32 logits, and cuBLAS's 32 MiB."""
    st = vllm_startup(get_model("qwen3-30b-a3b"), get_gpu("h100-80gb"), VllmSetup(max_num_seqs=16))
    per_token = 3 * 2048 + 2 * 128 + 8 * (3 * 768 + 2048)
    assert st.activation_peak_bytes == 8192 * per_token * 2 + 32 * 2**20
    assert "moe" in st.figure("activation_peak_bytes").detail


def test_gpt_oss_20b_groups_sliding_and_full_layers() -> None:
    """vLLM 0.19.1's hybrid allocator: 12 sliding (128 tokens) and 12 full layers make 2 groups of 12; the log's
    tokens are num_blocks // 2 x 16; one request of 131,072 tokens needs 8,192 blocks in the full group and
    cdiv(127 + 8,192, 16) + 1 = 521 in the sliding one."""
    st = vllm_startup(get_model("gpt-oss-20b"), get_gpu("h100-80gb"), VllmSetup(weights="mxfp4"))
    page = 16 * 2 * 8 * 64 * 2
    blocks = st.kv_cache_bytes // page // 12
    assert [(g.kind, g.window, g.layers) for g in st.groups] == [("sliding", 128, 12), ("full", None, 12)]
    assert st.num_blocks == blocks
    assert st.kv_cache_tokens == blocks // 2 * 16
    assert st.max_concurrency == pytest.approx(blocks / (8192 + 521))


def test_gemma_3_pads_its_sliding_groups() -> None:
    """Gemma 3 27B: 52 sliding layers and 10 full; the group size is 10, so the sliding layers make 6 groups (8
    padding layers) and the tokens are num_blocks // 7 x 16."""
    st = vllm_startup(get_model("gemma-3-27b"), get_gpu("h200"), VllmSetup(max_model_len=32_768))
    assert sorted(g.layers for g in st.groups) == [10, 52]
    assert st.kv_cache_tokens == st.num_blocks // 7 * 16


def test_v0_caches_every_layer_full() -> None:
    st = vllm_startup(get_model("gemma-2-9b"), get_gpu("a100-80gb"), VllmSetup(vllm_version="0.6.3"))
    assert [(g.kind, g.layers) for g in st.groups] == [("full", 42)]
    assert st.max_concurrency == pytest.approx(st.kv_cache_tokens / 8192)


@pytest.mark.parametrize(
    ("version", "engine", "per_layer", "block"),
    [("0.6.3", Engine.V0, 2 * 16 * (128 + 64) * 2, 16),  # before MLA: K and V per head, nope + rope wide
     ("0.7.3", Engine.V0, 640 * 2, 16),  # the latent (512 + 64) padded to 256 bytes: 1,152 -> 1,280
     ("0.8.5", Engine.V0, 576 * 2, 16),
     ("0.19.1", Engine.V1, 576 * 2, 64)],  # FlashMLA's 64-token blocks on Hopper
)
def test_deepseek_v2_lite_cache_entry_by_version(version: str, engine: Engine, per_layer: int, block: int) -> None:
    st = vllm_startup(get_model("deepseek-v2-lite"), get_gpu("h100-80gb"),
                      VllmSetup(max_model_len=32_768, vllm_version=version, vllm_engine=engine))
    assert st.kv_bytes_per_token == 27 * per_layer
    assert st.block_size == block


def test_fp8_cache_halves_a_token() -> None:
    m, gpu = get_model("llama-3.1-8b"), get_gpu("h100-80gb")
    assert vllm_startup(m, gpu, VllmSetup(kv_cache_dtype=KvCacheDtype.FP8)).kv_bytes_per_token == 65_536


def test_cuda_graphs_sit_outside_the_budget_and_vanish_when_eager() -> None:
    """The graphs are captured after the KV cache (their memory is outside the budget); from 0.18 profiling them
    inside the window leaves its non-torch residue, which --enforce-eager does not."""
    m, gpu = get_model("llama-3.1-8b"), get_gpu("h100-80gb")
    graphs, eager = vllm_startup(m, gpu, VllmSetup()), vllm_startup(m, gpu, VllmSetup(enforce_eager=True))
    assert graphs.cuda_graph_bytes > 0
    assert eager.cuda_graph_bytes == 0
    assert eager.kv_cache_bytes - graphs.kv_cache_bytes == GRAPH_PROFILE
    assert not graphs.cuda_graphs_in_budget
    old = VllmSetup(vllm_version="0.17.1")
    eager_old = vllm_startup(m, gpu, old.with_(enforce_eager=True))
    assert vllm_startup(m, gpu, old).kv_cache_bytes == eager_old.kv_cache_bytes


def test_weights_past_the_budget_say_vllms_error() -> None:
    st = vllm_startup(get_model("llama-3.1-70b"), get_gpu("h100-80gb"), VllmSetup())
    assert not st.fits
    assert st.log_lines[-1].startswith("ValueError: No available memory for the cache blocks")


def test_a_refused_schedule_is_named_by_its_flag() -> None:
    m, gpu = get_model("llama-2-7b"), get_gpu("a100-80gb")
    with pytest.raises(ValueError, match="--max-num-batched-tokens: 1,024 is smaller than --max-model-len"):
        vllm_startup(m, gpu, VllmSetup(vllm_version="0.4.0", max_num_batched_tokens=1024))
    with pytest.raises(ValueError, match="--max-model-len: 8,192 is longer than the model's"):
        vllm_startup(m, gpu, VllmSetup(max_model_len=8192))
