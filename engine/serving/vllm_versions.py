"""vLLM's start-up rules by version: which engine runs, how the KV-cache budget is measured, the defaults it fills in.

Every rule below was read in vLLM's own source, in the wheels of the named versions (``pip download vllm==X
--no-deps``), and holds for the version range given with it; a range ends where the next version changed the code.

The budget (the worker's profiling of a dummy batch, then ``kv = budget - what the profile used``):

* 0.2.0-0.2.4, ``vllm/worker/worker.py`` ``Worker.profile_num_available_blocks``: ``total x gpu_memory_utilization -
  torch.cuda.max_memory_allocated()``: the weights and the activation peak, nothing outside PyTorch;
* 0.2.5-0.3.0, same function: ``total x u - (total - free)`` after the profile: everything on the device, the CUDA
  context of this process included (vLLM PR #2031, "Fix peak memory profiling");
* 0.3.1-0.6.3: ``total x u - (init_free - free)``, ``init_free`` taken in ``init_device`` once the CUDA context
  exists (``Worker.determine_num_available_blocks`` from 0.4.1): the context sits in the headroom, NCCL is counted;
* 0.6.4: ``total x u - (allocated_bytes.all.peak + (used - allocated_bytes.all.current))`` (vLLM PR #9352): the
  allocated peak (weights included) plus everything outside PyTorch, the CUDA context too;
* 0.6.5-0.6.6: ``vllm/utils.py`` ``memory_profiling(baseline_memory_in_bytes=total - init_free)``: weights + the
  peak's increase over the profile + ``used - baseline - weights - the allocated increase`` (the non-torch increase:
  NCCL and the lazily loaded kernels, as 0.3.1-0.6.3 counted them; the CUDA context precedes ``init_free``);
* 0.7.0-0.10.x (engine v0): ``memory_profiling(baseline_snapshot)`` with ``MemorySnapshot`` (``non_torch = used -
  torch.cuda.memory_reserved()``), the snapshot taken in ``Worker.init_device`` before NCCL is initialised;
* engine v1 0.7.0-0.9.1, ``vllm/v1/worker/gpu_worker.py`` ``Worker.determine_available_memory``: like 0.6.4
  (``peak_memory = allocated_bytes.all.peak + non_torch_allocations``);
* engine v1 0.9.2-0.10.x: ``requested_memory - (weights + torch_peak_increase + non_torch_increase)`` from
  ``init_snapshot`` (``requested_memory = total x u``), the snapshot taken before
  ``init_worker_distributed_environment``: NCCL's buffers are counted;
* engine v1 0.11.0-0.19.x: the same, with the snapshot taken after NCCL is initialised ("Initialize the distributed
  environment BEFORE taking memory snapshot"): what ``ncclCommInitRank`` registers (NVLS) sits in the headroom, but
  the rings' connection buffers, which NCCL 2.22+ sets up at a communicator's first all-reduce, appear during the
  profile run and are charged (``engine.serving.vllm_profile.nccl_bytes``); 0.14.0 moved the budget to
  ``vllm/v1/worker/utils.py`` ``request_memory`` (``math.ceil(total x u)``).

CUDA graphs are captured after the KV cache is allocated in every version modelled here (v0
``Worker._warm_up_model``, v1 ``Worker.compile_or_warm_up_model``), so their memory comes out of the headroom; 0.19
measures them only behind ``VLLM_MEMORY_PROFILER_ESTIMATE_CUDAGRAPHS`` (default 0, ``vllm/envs.py``), which 0.20.0
turns on (and raises ``gpu_memory_utilization``'s default to 0.92, ``vllm/config/cache.py``): 0.20 and later are
refused by name, not costed as 0.19.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from enum import StrEnum

Version = tuple[int, int, int]

#: the first and the newest vLLM release whose start-up rules are modelled
FIRST: Version = (0, 2, 0)
NEWEST: Version = (0, 19, 1)
#: the v1 engine exists (``VLLM_USE_V1=1``) from 0.7.0 and is the default from 0.8.0 (``vllm/envs.py``); the v0
#: engine is removed in 0.11.0
V1_FIRST: Version = (0, 7, 0)
V1_DEFAULT: Version = (0, 8, 0)
V0_LAST_MINOR: Version = (0, 10, 99)

#: the releases of vLLM's PyPI history in the modelled range (``pip index versions vllm``), newest first: what the
#: serving page offers (any X.Y.Z between FIRST and NEWEST is accepted)
RELEASES = (
    "0.19.1", "0.19.0", "0.18.1", "0.18.0", "0.17.1", "0.17.0", "0.16.0", "0.15.1", "0.15.0", "0.14.1", "0.14.0",
    "0.13.0", "0.12.0", "0.11.2", "0.11.1", "0.11.0", "0.10.2", "0.10.1", "0.10.0", "0.9.2", "0.9.1", "0.9.0",
    "0.8.5", "0.8.4", "0.8.3", "0.8.2", "0.8.1", "0.8.0", "0.7.3", "0.7.2", "0.7.1", "0.7.0", "0.6.6", "0.6.5",
    "0.6.4", "0.6.3", "0.6.2", "0.6.1", "0.6.0", "0.5.5", "0.5.4", "0.5.3", "0.5.2", "0.5.1", "0.5.0", "0.4.3",
    "0.4.2", "0.4.1", "0.4.0", "0.3.3", "0.3.2", "0.3.1", "0.3.0", "0.2.7", "0.2.6", "0.2.5", "0.2.4", "0.2.3",
    "0.2.2", "0.2.1", "0.2.0",
)

_VERSION = re.compile(r"^\s*v?(\d+)\.(\d+)(?:\.(\d+))?(?:\.post\d+)?\s*$")


class Engine(StrEnum):
    V0 = "v0"
    V1 = "v1"


class VersionError(ValueError):
    """A vLLM version the engine does not model, named with the modelled range."""


def version_text(v: Version) -> str:
    return f"{v[0]}.{v[1]}.{v[2]}"


def parse_version(text: str) -> Version:
    """``0.6.3``, ``0.10.1.1`` is refused; ``X.Y`` means ``X.Y.0``; a ``.postN`` suffix is the release it patches."""
    m = _VERSION.match(text)
    if m is None:
        raise VersionError(f"{text!r} is not a version X.Y or X.Y.Z")
    v = (int(m.group(1)), int(m.group(2)), int(m.group(3) or 0))
    if not FIRST <= v <= NEWEST:
        later = (" (0.20.0 charges CUDA-graph memory inside the budget and defaults gpu_memory_utilization to "
                 "0.92; not modelled)" if v > NEWEST else "")
        raise VersionError(f"vLLM {version_text(v)} is outside the modelled releases "
                           f"{version_text(FIRST)} to {version_text(NEWEST)}{later}")
    return v


def default_engine(v: Version, *, capability: float = 9.0, weights: str = "bf16", fp8_kv_cache: bool = False) -> Engine:
    """v0 before 0.8.0; from 0.8.0 v1 (``VLLM_USE_V1`` unset), unless ``EngineArgs._is_v1_supported_oracle``
    (``vllm/engine/arg_utils.py``, 0.8.0-0.10.x) falls back to v0 for what v1 does not support yet:

    * a GPU of compute capability under 8.0 (T4, V100: "Compute Capability < 8.0"), to 0.10.1;
    * ``--quantization`` in ``V1_UNSUPPORTED_QUANT``: bitsandbytes and GGUF in 0.8.0-0.8.3, GGUF in 0.8.4-0.8.5;
    * an fp8 KV cache where FlashAttention cannot read one (``flash_attn_supports_fp8``: FlashAttention 3, Hopper
      only), to 0.10.x.
    """
    if v < V1_DEFAULT:
        return Engine.V0
    if v > V0_LAST_MINOR:
        return Engine.V1
    unsupported = ("nf4", "gguf-q8_0", "gguf-q4_k_m") if v < (0, 8, 4) else \
        ("gguf-q8_0", "gguf-q4_k_m") if v < (0, 9, 0) else ()
    cuda = capability > 0  # the catalog's AMD GPUs carry no CUDA capability: ROCm reads an fp8 cache
    if (cuda and capability < 8.0 and v <= (0, 10, 1)) or weights in unsupported or \
            (fp8_kv_cache and cuda and not 9.0 <= capability < 10.0):
        return Engine.V0
    return Engine.V1


def check_engine(v: Version, engine: Engine) -> None:
    """v1 exists from 0.7.0; v0 is gone from 0.11.0."""
    if engine is Engine.V1 and v < V1_FIRST:
        raise VersionError(f"--vllm-engine: the v1 engine first shipped in vLLM 0.7.0, not {version_text(v)}")
    if engine is Engine.V0 and v > V0_LAST_MINOR:
        raise VersionError(f"--vllm-engine: vLLM {version_text(v)} has no v0 engine (removed in 0.11.0)")


class NonTorch(StrEnum):
    """What the budget charges outside PyTorch's allocator."""

    NONE = "none"  # 0.2.0-0.2.4: only torch.cuda.max_memory_allocated()
    ABSOLUTE = "absolute"  # everything outside torch on the device, this process's CUDA context included
    SINCE_INIT = "since_init"  # the increase since start-up: NCCL and lazily loaded kernels, not the context
    AFTER_NCCL = "after_nccl"  # the increase since NCCL was set up (v1 0.11+): lazily loaded kernels, the buffers
    # NCCL connects at the profile's first all-reduce


@dataclass(frozen=True, slots=True)
class BudgetRule:
    """How one version range turns the profile into the KV cache's bytes."""

    key: str
    versions: str
    formula: str
    source: str
    non_torch: NonTorch
    #: the profile's peak as the caching allocator holds it (device memory used, 0.2.5-0.6.3) or as allocated
    reserved_peak: bool = False


_RULES = {
    "allocated": BudgetRule(
        "allocated", "0.2.0-0.2.4", "total × gpu_memory_utilization − torch.cuda.max_memory_allocated()",
        "vllm/worker/worker.py Worker.profile_num_available_blocks (0.2.0-0.2.4)", NonTorch.NONE),
    "device_used": BudgetRule(
        "device_used", "0.2.5-0.3.0", "total × gpu_memory_utilization − (total − free after the profile)",
        "vllm/worker/worker.py Worker.profile_num_available_blocks (0.2.5-0.3.0; vLLM PR #2031)",
        NonTorch.ABSOLUTE, reserved_peak=True),
    "since_init": BudgetRule(
        "since_init", "0.3.1-0.6.3", "total × gpu_memory_utilization − (free at start-up − free after the profile)",
        "vllm/worker/worker.py Worker.determine_num_available_blocks (0.3.1-0.6.3)", NonTorch.SINCE_INIT,
        reserved_peak=True),
    "peak_plus_non_torch": BudgetRule(
        "peak_plus_non_torch", "0.6.4 (v0); 0.7.0-0.9.1 (v1)",
        "total × gpu_memory_utilization − (allocated peak + (device used − allocated))",
        "vllm/worker/worker.py Worker.determine_num_available_blocks (0.6.4; vLLM PR #9352); "
        "vllm/v1/worker/gpu_worker.py Worker.determine_available_memory (0.7.0-0.9.1)", NonTorch.ABSOLUTE),
    "profile_baseline": BudgetRule(
        "profile_baseline", "0.6.5-0.6.6",
        "total × gpu_memory_utilization − (weights + peak increase + (device used − baseline − weights))",
        "vllm/utils.py memory_profiling(baseline_memory_in_bytes=...) (0.6.5-0.6.6)", NonTorch.SINCE_INIT),
    "snapshot": BudgetRule(
        "snapshot", "0.7.0-0.10.x (v0); 0.9.2-0.10.x (v1)",
        "total × gpu_memory_utilization − (weights + torch peak increase + non-torch increase since start-up)",
        "vllm/utils.py memory_profiling(baseline_snapshot, weights_memory) with MemorySnapshot (0.7.0-0.10.x); "
        "vllm/worker/worker.py Worker.determine_num_available_blocks; vllm/v1/worker/gpu_worker.py "
        "Worker.determine_available_memory (v1 0.9.2-0.10.x)", NonTorch.SINCE_INIT),
    "snapshot_after_nccl": BudgetRule(
        "snapshot_after_nccl", "0.11.0-0.19.x (v1)",
        "requested_memory (total × gpu_memory_utilization) − (weights + torch peak increase + non-torch increase "
        "since NCCL was set up)",
        "vllm/v1/worker/gpu_worker.py Worker.init_device and determine_available_memory (0.11.0-0.19.1); "
        "vllm/utils/mem_utils.py memory_profiling; vllm/v1/worker/utils.py request_memory (0.14.0+)",
        NonTorch.AFTER_NCCL),
}


def budget_rule(v: Version, engine: Engine) -> BudgetRule:
    """The rule that version ``v`` of ``engine`` sizes the KV cache by (module docstring)."""
    if engine is Engine.V1:
        if v < (0, 9, 2):
            return _RULES["peak_plus_non_torch"]
        return _RULES["snapshot"] if v < (0, 11, 0) else _RULES["snapshot_after_nccl"]
    for last, key in (((0, 2, 4), "allocated"), ((0, 3, 0), "device_used"), ((0, 6, 3), "since_init"),
                      ((0, 6, 4), "peak_plus_non_torch"), ((0, 6, 6), "profile_baseline")):
        if v <= last:
            return _RULES[key]
    return _RULES["snapshot"]


# -- the scheduler's defaults ----------------------------------------------------------------------------------
class Entrypoint(StrEnum):
    """How vLLM was started: ``vllm serve`` (UsageContext.OPENAI_API_SERVER) or ``LLM(...)`` (LLM_CLASS)."""

    SERVE = "serve"
    LLM = "llm"


#: ``--max-model-len`` above this turns chunked prefill on by default in engine v0 from 0.5.3
#: (``vllm/engine/arg_utils.py`` ``EngineArgs.create_engine_config``: ``use_long_context = max_model_len > 32768``)
LONG_CONTEXT = 32_768


def chunked_prefill(v: Version, engine: Engine, max_model_len: int, sliding: bool) -> bool:
    """Whether chunked prefill is on by default: always in v1 (``_set_default_args_v1``); in v0 from 0.5.3 for a
    context over 32K without a sliding window (``EngineArgs.create_engine_config``), never before."""
    if engine is Engine.V1:
        return True
    return v >= (0, 5, 3) and max_model_len > LONG_CONTEXT and not sliding


def _large_gpu(v: Version, gpu_name: str, total_bytes: int) -> bool:
    """v1's larger defaults: by name (H100, H200) to 0.8.4; from 0.8.5 by memory (>= 70 GiB), A100s excluded from
    0.9.0 (``_set_default_args_v1``; 0.19 ``EngineArgs.get_batch_defaults``)."""
    name = gpu_name.lower()
    if v < (0, 8, 5):
        return "h100" in name or "h200" in name
    return total_bytes >= 70 * 2**30 and (v < (0, 9, 0) or "a100" not in name)


def default_max_num_seqs(v: Version, engine: Engine, gpu_name: str, total_bytes: int) -> int:
    """256 in v0 (``EngineArgs.max_num_seqs``); v1: 1024 to 0.8.3, then 1024 on a large GPU and 256 otherwise."""
    if engine is Engine.V0:
        return 256
    if v < (0, 8, 4):
        return 1024
    return 1024 if _large_gpu(v, gpu_name, total_bytes) else 256


def default_max_num_batched_tokens(v: Version, engine: Engine, max_model_len: int, *, chunked: bool,
                                   entrypoint: Entrypoint, gpu_name: str, total_bytes: int, max_num_seqs: int) -> int:
    """vLLM's ``max_num_batched_tokens`` when the user sets none.

    v0 (``vllm/config.py`` ``SchedulerConfig``): ``max(max_model_len, 2048)`` without chunked prefill; with it 512
    (0.4.3-0.6.4) or 2048 (0.6.5+). v1 (chunked prefill always): 2048 for ``vllm serve`` and 8192 for ``LLM``, or
    8192 / 16384 on a large GPU (``_large_gpu``); from 0.11 at most ``max_num_seqs x max_model_len``.
    """
    if engine is Engine.V0:
        if not chunked:
            return max(max_model_len, 2048)
        return 512 if v < (0, 6, 5) else 2048
    large = _large_gpu(v, gpu_name, total_bytes)
    tokens = (8192 if large else 2048) if entrypoint is Entrypoint.SERVE else (16384 if large else 8192)
    return min(tokens, max_num_seqs * max_model_len) if v >= (0, 11, 0) else tokens


def hybrid_allocator(v: Version, engine: Engine) -> bool:
    """v1 groups sliding-window and full-attention layers apart from 0.9.1 (``vllm/v1/core/kv_cache_utils.py``
    ``_get_kv_cache_config_uniform_page_size``, ``get_max_concurrency_for_kv_cache_config``); before, and in v0,
    every layer is cached as full attention (0.8-0.9.0 ``unify_hybrid_kv_cache_specs``)."""
    return engine is Engine.V1 and v >= (0, 9, 1)


def mla_latent(v: Version) -> bool:
    """MLA caches its latent (``ModelConfig.use_mla``) from 0.7.1; before, DeepSeek-V2's layers cache full keys and
    values per head (``ModelConfig.get_head_size``: qk_nope_head_dim + qk_rope_head_dim)."""
    return v >= (0, 7, 1)


def mla_padded(v: Version, engine: Engine) -> bool:
    """v0 0.7.2-0.7.3 pads an MLA cache entry to 256 bytes (``vllm/worker/cache_engine.py``
    ``CacheEngine._align_cache`` with ``VLLM_CUDA_MEM_ALIGN_KV_CACHE=1``): 576 x 2 = 1,152 bytes become 1,280."""
    return engine is Engine.V0 and (0, 7, 2) <= v <= (0, 7, 3)


def bnb_absmax_fp32(v: Version) -> bool:
    """From 0.10.0 the bitsandbytes loader dequantizes double-quantized absmax to float32 at load
    (``vllm/model_executor/model_loader/bitsandbytes_loader.py`` ``_dequantize_dq``)."""
    return v >= (0, 10, 0)


def logs_tokens(v: Version, engine: Engine) -> bool:
    """v1 logs ``GPU KV cache size: N tokens`` from 0.8.0 (vLLM PR #13596); v0 and early v1 log block counts."""
    return engine is Engine.V1 and v >= (0, 8, 0)


def logs_concurrency(v: Version, engine: Engine) -> bool:
    """``Maximum concurrency for N tokens per request`` from 0.6.3 in v0 (``gpu_executor.py``) and 0.7.1 in v1
    (vLLM PR #12569)."""
    return v >= ((0, 7, 1) if engine is Engine.V1 else (0, 6, 3))
