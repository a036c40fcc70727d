"""What vLLM's memory profile measures besides the weights: the dummy batch's activation peak, the memory outside
PyTorch, and the CUDA graphs captured after the KV cache.

The profile run (v0 ``vllm/worker/model_runner.py`` ``ModelRunner.profile_run``; v1
``vllm/v1/worker/gpu_model_runner.py`` ``GPUModelRunner.profile_run``) runs one prefill of
``max_num_batched_tokens`` tokens split over ``min(max_num_seqs, max_num_batched_tokens)`` sequences, computes the
logits of each sequence's last token and samples them with top-k and top-p on (v0 ``SamplingParams(top_p=0.99,
top_k=vocab_size - 1)``, v1 ``_dummy_sampler_run``: top_p 0.9, top_k vocab - 1): the sampler sorts the whole
vocabulary. Its peak is the larger of two moments, both per GPU, in the activation dtype (2 bytes):

* the forward pass, largest inside one decoder layer (vLLM's modules keep their inputs referenced until they return):
  - dense MLP: the norm's output and the residual (2h), ``gate_up`` (2I/T), ``SiluAndMul``'s output (I/T) and
    ``down_proj``'s output (h): ``N x (3h + 3I/T)`` elements (a plain MLP: ``N x (3h + 2I/T)``);
  - attention: the residual, the input, ``qkv`` ((q + 2 kv) d / T), the attention output (q d / T) and ``o_proj``'s
    output: ``N x (3h + (2 q + 2 kv) d / T)``; MLA's prefill also expands the latent (``kv_b_proj``, heads x
    (nope + v)) and pads the values to the query head size for FlashAttention: ``N x (3h + kv_lora + rope + H/T x
    (4 (nope + rope) + nope + v))``;
  - fused MoE (vllm/model_executor/layers/fused_moe/fused_moe.py ``fused_experts_impl``): ``intermediate_cache1``
    [M, top-k, 2I/T], ``cache2`` [M x top-k, I/T], ``cache3`` [M, top-k, h] for M = min(N,
    ``VLLM_FUSED_MOE_CHUNK_SIZE`` = 32,768) tokens, beside the residual, the input, the output and the router's
    float32 logits: ``3h N + M x top-k x (3I/T + h) + 2 N E``;
* the sampler: the last hidden states of all N tokens are still held, beside ``S x V`` logits (S sequences, V the
  vocabulary). The PyTorch sampler (v0 ``vllm/model_executor/layers/sampler.py`` ``_apply_top_k_top_p``; v1
  ``vllm/v1/sample/ops/topk_topp_sampler.py`` ``apply_top_k_top_p``) holds, at ``logits.sort``: the 16-bit logits (2
  bytes), their float32 copy (4), the sorted values (4) and int64 indices (8), and the segmented radix sort's own
  buffers (an int64 iota, 8, and cub's double buffers, 4 + 8): 38 bytes a logit. Until 0.6.1 the sorted logits were
  put back with an inverse permutation (``logits_idx_inv``, int64, then ``gather``) while the top-k / top-p masks and
  the softmax and cumsum of the sorted values were alive: 40 bytes at that moment. v1's profile before 0.8.0
  computes the logits and samples nothing (``GPUModelRunner.profile_run``): 2 bytes a logit. From 0.8.0 it samples
  (``_dummy_sampler_run``), with FlashInfer's kernel where FlashInfer is installed (``TopKTopPSampler``, to 0.11.x;
  the official image has it; opt-in from 0.12.0): the 16-bit logits, the float32 copy and the probabilities, 10 bytes
  a logit (0.8.x ``flashinfer_sample`` from the probabilities); from 0.9.0 ``top_k_top_p_sampling_from_logits``
  also masks a float32 copy: 14 bytes. From
  0.17.0 a batch of 8 or more is masked in place by a Triton kernel (``apply_top_k_top_p_triton``), then
  ``random_sample`` holds the probabilities and its exponential draws: 2 + 4 + 4 + 4, 14 bytes a logit. In v0 only
  the driver worker samples; its profile binds the cache (``num_gpu_blocks`` is the smallest of all workers').

Checked against logged profiles: Llama 3.1 8B at 20,000 and 29,000 batched tokens on an RTX 3090, vLLM 0.6.4
(vllm-project/vllm#10517): 2.07 and 2.99 GiB logged, ``N x (3h + 3I) x 2`` gives 2.06 and 2.99 GiB; Meta-Llama-3-8B
on an H100 with vLLM's defaults (8,192 tokens, 256 sequences), vLLM 0.6.5 (PR #10511): 1.26 GiB logged, the
sampler's 38 bytes a logit give 1.22 GiB.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from engine.layers import attention_of, mlp_of, runs
from engine.serving.vllm_versions import NonTorch, Version
from engine.specs import GpuSpec, LayerSpec, MlpKind, ModelSpec
from engine.units import GIB, MIB

#: what the refusals of a layer kind name (vLLM refuses such models first: engine.serving.vllm.schedule)
VLLM_PROFILE = "vLLM's profile run"

ACT_BYTES = 2
#: bytes a logit holds at the sampler's peak (module docstring)
SORT_BYTES_PER_LOGIT = 2 + 4 + 4 + 8 + 8 + 4 + 8
INVERSE_BYTES_PER_LOGIT = 2 + 4 + 4 + 8 + 1 + 4 + 4 + 1 + 8 + 4
FLASHINFER_BYTES_PER_LOGIT = 2 + 4 + 4 + 4
FLASHINFER_PROBS_BYTES_PER_LOGIT = 2 + 4 + 4
LOGITS_ONLY_BYTES_PER_LOGIT = 2
TRITON_BYTES_PER_LOGIT = 2 + 4 + 4 + 4
MOE_CHUNK = 32_768


class Sampler(StrEnum):
    """``--sampler``: which top-k / top-p implementation the profile runs (auto: the version's default)."""

    AUTO = "auto"
    NATIVE = "native"
    FLASHINFER = "flashinfer"


def sampler_bytes_per_logit(v: Version, v1: bool, sampler: Sampler) -> int:
    """Bytes a logit holds at the sampler's peak, by version and implementation (module docstring)."""
    if v1 and v < (0, 8, 0):
        return LOGITS_ONLY_BYTES_PER_LOGIT
    if sampler is Sampler.AUTO:
        sampler = Sampler.FLASHINFER if v1 and v < (0, 12, 0) else Sampler.NATIVE
    if sampler is Sampler.FLASHINFER:
        return FLASHINFER_PROBS_BYTES_PER_LOGIT if v < (0, 9, 0) else FLASHINFER_BYTES_PER_LOGIT
    if v1 and v >= (0, 17, 0):
        return TRITON_BYTES_PER_LOGIT
    return INVERSE_BYTES_PER_LOGIT if v <= (0, 6, 1) and not v1 else SORT_BYTES_PER_LOGIT


@dataclass(frozen=True, slots=True)
class Activation:
    """The profile's peak and the two moments it is the larger of."""

    forward_bytes: int
    sampler_bytes: int
    tokens: int
    sequences: int
    per_token_elements: int
    per_logit: int
    phase: str  # "mlp", "attention", "moe" or "sampler"
    #: buffers the model runner holds for the whole run, charged where the budget counts the allocated peak from
    #: zero (v1 0.7.0-0.9.1: ``GPUModelRunner.inputs_embeds``, max_num_batched_tokens x hidden x 2 bytes)
    buffers: int = 0
    #: cuBLAS's workspace, allocated through PyTorch's caching allocator at the process's first matmul (the
    #: profile's forward) and kept: under the peak at either moment (``cublas_workspace_bytes``)
    workspace: int = 0

    @property
    def peak_bytes(self) -> int:
        return max(self.forward_bytes, self.sampler_bytes) + self.buffers + self.workspace


@dataclass(frozen=True, slots=True)
class SamplerShape:
    """What the profile's sampler moment holds besides the logits' own bytes, by engine and version.

    * ``all_hidden``: the forward's output for all ``max_num_batched_tokens`` tokens is still referenced (v0
      ``ModelRunner.execute_model``; v1 from 0.9.2, ``_dummy_run`` returns ``hidden_states, hidden_states[
      logit_indices]``; in v1 0.8.0-0.9.1 it returns only the indexed copy);
    * ``last_copies``: copies of the sequences' last hidden states: the indexed copy, and from v1 0.9.0
      ``_dummy_sampler_run``'s ``torch.rand_like(hidden_states)``;
    * ``rows``: the logits' rows: one per sequence, but v1 0.7.x's profile computes the logits of every token
      (``GPUModelRunner.profile_run``: ``compute_logits(hidden_states)`` on the whole dummy batch) and samples none;
    * ``triton_rows``: 0.17+'s Triton top-k/top-p kernel (``apply_top_k_top_p_triton``, batches of 8 or more) keeps
      a float32 scratch buffer of ``min(next_power_of_2(min(SMs, batch)), SMs)`` rows of the vocabulary in
      ``_TRITON_BUFFER_CACHE``.
    """

    all_hidden: bool
    last_copies: int
    rows: int
    triton_rows: int = 0
    #: the sampler runs on this GPU (the last pipeline stage)
    samples: bool = True
    #: bytes of fused MoE's workspace still allocated at the sampler's moment (0.19+, ``moe_workspace_bytes``)
    moe_workspace: int = 0


def sampler_shape(v: Version, v1: bool, tokens: int, sequences: int, *, sms: int, per_logit: int,
                  samples: bool = True) -> SamplerShape:
    """The sampler moment's shape for version ``v`` (``SamplerShape``); ``sms``: the GPU's multiprocessors."""
    if not v1:
        return SamplerShape(True, 1, sequences, samples=samples)
    if v < (0, 8, 0):
        return SamplerShape(True, 0, tokens, samples=samples)
    triton = 0
    if v >= (0, 17, 0) and per_logit == TRITON_BYTES_PER_LOGIT and sequences >= 8:
        programs = min(sms, sequences)
        triton = min(1 << (programs - 1).bit_length(), sms)
    return SamplerShape(v >= (0, 9, 2), 2 if v >= (0, 9, 0) else 1, sequences, triton, samples)


#: streaming multiprocessors (AMD: compute units) per GPU, the ``num_compute_units`` vLLM's Triton sampler sizes its
#: scratch buffer by: NVIDIA's architecture whitepapers and product briefs (H100 SXM5 132, A100 108, L40S 142,
#: RTX 4090 128, ...), AMD's CDNA 3 whitepaper (MI300X 304 CUs); GPUs not listed take an A100's 108
MULTIPROCESSORS = {
    "h100-80gb": 132, "h100-nvl": 132, "h200": 132, "gh200": 132, "gh200-144gb": 132, "h20": 78, "a100-80gb": 108,
    "a100-40gb": 108, "a10": 72, "a40": 84, "l4": 58, "l40": 142, "l40s": 142, "l20": 92, "rtx-6000-ada": 142,
    "rtx-a6000": 84, "rtx-4090": 128, "rtx-4080": 76, "rtx-4070": 46, "rtx-4060-ti-8gb": 34, "rtx-4060-ti-16gb": 34,
    "rtx-3090": 82, "rtx-3080": 68, "rtx-3060": 28, "rtx-2080-ti": 68, "rtx-2060": 30, "t4": 40, "v100-32gb": 80,
    "rtx-5090": 170, "rtx-5080": 84, "rtx-pro-6000": 188, "b200": 148, "gb200": 148, "b300": 160,
    "rtx-4070-laptop": 36, "rtx-4060-laptop": 24, "rtx-4080-laptop": 58, "mi300x": 304, "mi325x": 304,
    "mi355x": 256, "mi250x": 110,
}


def multiprocessors(gpu: GpuSpec) -> int:
    return MULTIPROCESSORS.get(gpu.id, 108)


def moe_workspace_bytes(m: ModelSpec, tp: int, tokens: int, v: Version) -> int:
    """Fused MoE's workspace that outlives the forward pass: from 0.19.0 the modular kernel takes its buffers from
    ``vllm/v1/worker/workspace.py``'s ``WorkspaceManager``, which keeps one buffer at its largest size
    (``FusedMoEModularKernel._allocate_buffers``: ``max(workspace13, output)`` + ``workspace2``; ``TritonExperts.
    workspace_shapes``: ``(M, top-k, max(I, h))``, ``(M, top-k, max(2I, h))`` and ``(M, h)`` with ``M`` the whole
    dummy batch and ``I`` the experts' width on one GPU), in the activation dtype; before, the caches were freed
    with the forward."""
    if v < (0, 19, 0):
        return 0
    best = 0
    for r in runs(m):
        e = mlp_of(r, VLLM_PROFILE).moe
        if e is None:
            continue
        width, h, k = e.expert_intermediate_size // tp, m.hidden_size, e.experts_per_token
        best = max(best, max(tokens * k * max(width, h), tokens * h) + tokens * k * max(2 * width, h))
    return best * ACT_BYTES


#: cuBLAS's default workspace in PyTorch (``aten/src/ATen/cuda/CublasHandlePool.cpp`` ``parseChosenWorkspaceSize``:
#: ":4096:2:16:8", 32 MiB on compute capability 9.0; ROCm: 32 MiB, 128 MiB on MI300's gfx94x)
CUBLAS_WORKSPACE_BYTES = 4096 * 1024 * 2 + 16 * 1024 * 8
CUBLAS_WORKSPACE_SM90_BYTES = 4096 * 8 * 1024


def cublas_workspace_bytes(gpu: GpuSpec) -> int:
    """The workspace PyTorch gives cuBLAS on ``gpu`` (``CUBLAS_WORKSPACE_BYTES``)."""
    if gpu.capability == 0.0:
        return 128 * MIB if gpu.id in ("mi300x", "mi325x", "mi355x") else 32 * MIB
    return CUBLAS_WORKSPACE_SM90_BYTES if gpu.capability == 9.0 else CUBLAS_WORKSPACE_BYTES


def _attention_elements(layer: LayerSpec, h: int, tp: int) -> int:
    a = attention_of(layer, VLLM_PROFILE)
    if a.mla is not None:
        x, heads = a.mla, max(1, a.num_heads // tp)
        qk = x.qk_nope_head_dim + x.qk_rope_head_dim
        return 3 * h + x.kv_lora_rank + x.qk_rope_head_dim + heads * (4 * qk + x.qk_nope_head_dim + x.v_head_dim)
    q, kv = max(1, a.num_heads // tp), max(1, a.num_kv_heads // tp)
    return 3 * h + (2 * q + 2 * kv) * a.head_dim


def _mlp_elements(layer: LayerSpec, h: int, tp: int, tokens: int) -> float:
    """Elements per token of the layer's MLP moment (MoE: averaged over ``tokens``)."""
    p = mlp_of(layer, VLLM_PROFILE)
    dense = 0.0
    if p.intermediate_size:
        width = p.intermediate_size // tp
        dense = 3 * h + (2 if p.kind is MlpKind.PLAIN else 3) * width
    e = p.moe
    if e is None:
        return dense
    chunk = min(tokens, MOE_CHUNK)
    width = e.expert_intermediate_size // tp
    per_chunk = chunk * e.experts_per_token * (3 * width + h)
    moe = 3 * h + 2 * e.num_experts + per_chunk / tokens + (h if e.shared_width else 0)
    return max(dense, moe)


def activation(m: ModelSpec, tp: int, tokens: int, sequences: int, per_logit: int, *,
               shape: SamplerShape | None = None, workspace: int = 0) -> Activation:
    """The profile run's activation peak on the GPU that samples (module docstring); ``per_logit``:
    ``sampler_bytes_per_logit``; ``shape``: what the sampler moment holds (``sampler_shape``; by default v0's)."""
    shape = shape or SamplerShape(True, 1, sequences)
    h = m.hidden_size
    best, phase = 0.0, "mlp"
    for r in runs(m):
        attn, mlp = _attention_elements(r, h, tp), _mlp_elements(r, h, tp, tokens)
        if attn > best:
            best, phase = attn, "attention"
        if mlp > best:
            best, phase = mlp, "moe" if mlp_of(r, VLLM_PROFILE).moe is not None else "mlp"
    forward = int(tokens * best * ACT_BYTES)
    sampler = 0
    if shape.samples:
        held = ((tokens if shape.all_hidden else 0) + shape.last_copies * sequences) * h * ACT_BYTES
        sampler = held + shape.rows * m.vocab_size * per_logit + shape.triton_rows * m.vocab_size * 4 + \
            shape.moe_workspace
    return Activation(forward, sampler, tokens, sequences, round(best), per_logit,
                      phase if forward >= sampler else "sampler", workspace=workspace)


# -- outside PyTorch ------------------------------------------------------------------------------------------
#: kernels and library handles loaded lazily during the first forward pass (cuBLAS, attention, sampling), outside
#: the CUDA context: 0.16 GiB logged as non_torch_memory on an H100, vLLM 0.7.0, one GPU, --enforce-eager
#: (vLLM PR #12126)
RUNTIME_BYTES = round(0.16 * GIB)
#: NCCL's ring and tree buffers per GPU of a tensor-parallel group over NVLink: 3.58 - 1.79 GiB between TP 2 and
#: TP 1 on H100s (vLLM PR #10511)
NCCL_NVLINK_BYTES = round(1.79 * GIB)
#: over PCIe (no peer-to-peer: the shared-memory transport): 0.25 GiB at TP 2 against 0.16 at TP 1 on RTX 4090s
#: (vllm-project/vllm#13061, vLLM 0.7)
NCCL_PCIE_BYTES = round(0.09 * GIB)
#: NVLink SHARP (Hopper and later behind NVSwitch, more than 2 GPUs): NCCL logs ``nvlsPerRankSize 301989888`` per
#: rank (288 MiB; vllm-project/vllm#9699, 8 x H200); two communicators hold it (vLLM's PyNccl and torch's
#: ProcessGroupNCCL), about 4.9 GiB per GPU at TP 8 in the same issue's block counts
NVLS_PER_RANK_BYTES = 288 * MIB


def nccl_bytes(gpu: GpuSpec, tp: int, *, at_init: bool = True) -> int:
    """NCCL's buffers on one GPU of a tensor-parallel group of ``tp`` (0 alone; pipeline stages exchange
    activations point to point and all-reduce nothing).

    The rings' and trees' connection buffers are set up at a communicator's first all-reduce (NCCL 2.22+'s
    ``NCCL_RUNTIME_CONNECT=1``, the default of the NCCL that PyTorch 2.6+ ships; before, at ``ncclCommInitRank``):
    either way inside the profile's window unless a snapshot is taken after them. NVLS's multicast buffers are
    registered at ``ncclCommInitRank`` (``at_init``): charged only where the budget's baseline precedes NCCL's
    initialisation."""
    if tp <= 1:
        return 0
    ring = NCCL_NVLINK_BYTES if gpu.interconnect in ("nvlink", "nvswitch", "xgmi") else NCCL_PCIE_BYTES
    nvls = 2 * tp * NVLS_PER_RANK_BYTES if at_init and gpu.interconnect == "nvswitch" and gpu.capability >= 9.0 \
        and tp > 2 else 0
    return ring + nvls


@dataclass(frozen=True, slots=True)
class NonTorchParts:
    context: int
    runtime: int
    nccl: int

    @property
    def total(self) -> int:
        return self.context + self.runtime + self.nccl


#: what profiling the CUDA graphs leaves outside PyTorch: from 0.18.0 ``Worker.determine_available_memory`` calls
#: ``GPUModelRunner.profile_cudagraph_memory`` (two graphs of each mode captured into a profiling pool) inside the
#: ``memory_profiling`` window, and the non-torch increase rose by this much: 0.13 -> 0.25 GiB for Qwen3-14B on an
#: H100 between 0.17.0 and 0.18.0, everything else equal (llm-d-incubation/llm-d-planner accuracy/results/
#: version-sweep); not with --enforce-eager (no graphs)
CUDAGRAPH_PROFILE_BYTES = round(0.12 * GIB)


def non_torch(kind: NonTorch, gpu: GpuSpec, tp: int, *, graph_profile: bool = False) -> NonTorchParts:
    """What the budget charges outside PyTorch (``engine.serving.vllm_versions.NonTorch``) on a GPU of a
    tensor-parallel group of ``tp``; ``graph_profile``: the CUDA graphs are profiled inside the window (v1 0.18+,
    graphs on)."""
    if kind is NonTorch.NONE:
        return NonTorchParts(0, 0, 0)
    if kind is NonTorch.ABSOLUTE:  # the context as measured holds the libraries loaded with it
        return NonTorchParts(gpu.context_bytes, 0, nccl_bytes(gpu, tp))
    runtime = RUNTIME_BYTES + (CUDAGRAPH_PROFILE_BYTES if graph_profile else 0)
    return NonTorchParts(0, runtime, nccl_bytes(gpu, tp, at_init=kind is NonTorch.SINCE_INIT))


# -- CUDA graphs ------------------------------------------------------------------------------------------------
def capture_sizes(v1: bool, max_num_seqs: int) -> list[int]:
    """Batch sizes captured: v0 ``[1, 2, 4] + 8i`` up to 256 (``_BATCH_SIZES_TO_CAPTURE``), v1 ``[1, 2, 4] + 8i``
    to 248 then every 16 to 512 (``CompilationConfig.cudagraph_capture_sizes``), at most ``max_num_seqs`` (v1: x 2)."""
    top = min(512, 2 * max_num_seqs) if v1 else min(256, max_num_seqs)
    sizes = [1, 2, 4] + list(range(8, 256 if v1 else 257, 8)) + (list(range(256, 513, 16)) if v1 else [])
    return [s for s in sizes if s <= top] or [1]


#: the driver's floor per captured graph in vLLM 0.19's own estimate (``profile_cudagraph_memory``: "at least 1 MiB
#: per graph for driver overhead")
PER_GRAPH_BYTES = MIB


def cuda_graph_bytes(per_token_elements: int, sizes: list[int]) -> int:
    """An estimate (vLLM measures it at capture): the graphs' shared pool holds the largest batch's activations,
    ``max size x per-token elements x 2 bytes``, plus 1 MiB a graph."""
    return max(sizes) * per_token_elements * ACT_BYTES + len(sizes) * PER_GRAPH_BYTES
