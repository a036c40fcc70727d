"""vLLM's start-up, predicted: the memory its profile charges, the KV cache it allocates, the lines it logs.

``vllm_startup(model, gpu, setup)`` follows one worker (the first pipeline stage's first tensor-parallel rank, the
one that samples) through vLLM's own steps at the version asked for:

1. the scheduler's defaults (``max_model_len`` from the config, ``max_num_seqs``, ``max_num_batched_tokens``,
   chunked prefill; ``engine.serving.vllm_versions``);
2. the weights as loaded (``engine.serving.quantized``), the profile run's activation peak and what the budget
   charges outside PyTorch (``engine.serving.vllm_profile``);
3. the budget, ``total x gpu_memory_utilization``, minus those: the memory for the KV cache (the budget's rule by
   version, ``vllm_versions.budget_rule``);
4. the blocks: v0 divides by one block of every layer (``CacheEngine.get_cache_block_size``); v1 divides by a
   page per layer (``kv_cache_utils.get_num_blocks``) and, from 0.9.1, groups sliding-window and full-attention
   layers (``_get_kv_cache_groups_uniform_page_size``): the token count it logs is ``num_blocks // groups x
   block_size`` and the concurrency ``num_blocks`` over the blocks one request needs in every group
   (``get_max_concurrency_for_kv_cache_config``; a sliding group needs ``cdiv(min(window - 1 +
   max_num_batched_tokens, max_model_len), block) + 1``).

The KV bytes per token and layer are ``engine.serving.kv``'s; vLLM adds its own layouts here: DeepSeek's MLA caches
the latent only from 0.7.1 (full keys and values per head before), padded to 256 bytes in v0 0.7.2-0.7.3, and its
v1 FlashMLA blocks hold 64 tokens on Hopper (``vllm/platforms/cuda.py``: "Forcing kv cache block size to 64").
"""

from __future__ import annotations

import dataclasses
import math

from engine.layers import attention_of, expand, runs
from engine.serving import quantized, vllm_profile, vllm_versions
from engine.serving.kv import kv_cache
from engine.serving.vllm_figures import figures
from engine.serving.vllm_log import log_lines
from engine.serving.vllm_setup import (
    BLOCK_SIZE,
    Blocks,
    KvCacheDtype,
    KvGroup,
    Schedule,
    VllmSetup,
    VllmStartup,
)
from engine.serving.vllm_versions import Engine, Version, version_text
from engine.specs import GpuSpec, KvDtype, ModelSpec
from engine.units import GIB

#: what the refusals of a layer kind name
VLLM = "vLLM's start-up"


# -- the scheduler --------------------------------------------------------------------------------------------
def _sliding(m: ModelSpec) -> bool:
    return any(attention_of(r, VLLM).window is not None for r in runs(m))


def schedule(m: ModelSpec, gpu: GpuSpec, s: VllmSetup) -> Schedule:
    """vLLM's engine and scheduler settings for ``s`` (refused by name where vLLM refuses them, or where its cache
    is not modelled: a model with token mixers other than softmax attention, whose recurrent states vLLM keeps in
    cache groups of their own, ``vllm/v1/kv_cache_interface.py`` ``MambaSpec``)."""
    if kinds := sorted({r.mixer.kind for r in runs(m) if r.mixer is not None}):
        raise ValueError(f"vLLM's start-up for {m.label}'s {', '.join(kinds)} layers is not modelled: vLLM keeps "
                         "their recurrent states in cache groups of their own")
    v = vllm_versions.parse_version(s.vllm_version)
    engine = s.vllm_engine or vllm_versions.default_engine(
        v, capability=gpu.capability, weights=s.weights.value, fp8_kv_cache=s.kv_cache_dtype is KvCacheDtype.FP8)
    vllm_versions.check_engine(v, engine)
    length = s.max_model_len or m.max_position
    if length > m.max_position and not s.allow_long_max_model_len:
        raise ValueError(f"--max-model-len: {length:,} is longer than the model's max_position_embeddings "
                         f"({m.max_position:,}); vLLM refuses it unless VLLM_ALLOW_LONG_MAX_MODEL_LEN=1")
    chunked = vllm_versions.chunked_prefill(v, engine, length, _sliding(m))
    seqs = s.max_num_seqs or vllm_versions.default_max_num_seqs(v, engine, gpu.name, gpu.memory_bytes)
    tokens = s.max_num_batched_tokens or vllm_versions.default_max_num_batched_tokens(
        v, engine, length, chunked=chunked, entrypoint=s.entrypoint, gpu_name=gpu.name, total_bytes=gpu.memory_bytes,
        max_num_seqs=seqs)
    if s.max_num_seqs is None:
        seqs = min(seqs, tokens)
    if not chunked and tokens < length:
        raise ValueError(f"--max-num-batched-tokens: {tokens:,} is smaller than --max-model-len ({length:,}); "
                         "vLLM refuses it without chunked prefill (SchedulerConfig._verify_args)")
    if tokens < seqs:
        raise ValueError(f"--max-num-batched-tokens: {tokens:,} is smaller than --max-num-seqs ({seqs:,}); "
                         "vLLM refuses it (SchedulerConfig._verify_args)")
    return Schedule(v, engine, length, seqs, tokens, chunked)


# -- the KV cache's layout ------------------------------------------------------------------------------------
def _dtype_bytes(s: VllmSetup) -> int:
    return 1 if s.kv_cache_dtype is KvCacheDtype.FP8 else 2


def block_size(m: ModelSpec, gpu: GpuSpec, sch: Schedule) -> int:
    """16 tokens; v1 MLA: 64 on Hopper (FlashMLA, 0.8.0+), 128 on Blackwell (CUTLASS MLA, 0.10.1+)."""
    if m.mla is None or sch.engine is Engine.V0 or not vllm_versions.mla_latent(sch.version):
        return BLOCK_SIZE
    if gpu.capability >= 10.0 and sch.version >= (0, 10, 1):
        return 128
    if 9.0 <= gpu.capability < 10.0 and sch.version >= (0, 8, 0):
        return 64
    return BLOCK_SIZE


def layer_token_bytes(m: ModelSpec, tp: int, s: VllmSetup, sch: Schedule) -> int:
    """One token's cache in one layer on one GPU, as vLLM lays it out (module docstring)."""
    dtype = _dtype_bytes(s)
    if m.mla is not None and not vllm_versions.mla_latent(sch.version):
        x = m.mla  # DeepSeek-V2 before MLA: ModelConfig.get_head_size = nope + rope, one K and one V per head
        return 2 * max(1, m.num_kv_heads // tp) * (x.qk_nope_head_dim + x.qk_rope_head_dim) * dtype
    kv = kv_cache(m, 1, KvDtype.FP8 if dtype == 1 else KvDtype.BF16, tp)
    per_layer = kv.bytes_per_token // m.num_layers
    if m.mla is not None and vllm_versions.mla_padded(sch.version, sch.engine):
        return math.ceil(kv.elements_per_token_layer / 128) * 128 * dtype  # align_to_256bytes in the model dtype
    return per_layer


def stage_layers(m: ModelSpec, pp: int, stage: int) -> tuple[int, int]:
    """[start, end) of ``stage``'s layers: vLLM's ``get_pp_indices`` splits evenly, the remainder to the last."""
    per = m.num_layers // pp
    start = stage * per
    return start, (m.num_layers if stage == pp - 1 else start + per)


def kv_groups(m: ModelSpec, layers: tuple[int, int], page: int, hybrid: bool) -> list[KvGroup]:
    """The stage's layers by cache kind (all full attention unless the hybrid allocator runs)."""
    counts: dict[int | None, int] = {}
    for i, layer in enumerate(expand(runs(m))):
        if layers[0] <= i < layers[1]:
            w = attention_of(layer, VLLM).window if hybrid else None
            counts[w] = counts.get(w, 0) + 1
    return [KvGroup("full" if w is None else "sliding", w, n, page) for w, n in counts.items()]


def _group_size(counts: list[int], v: Version) -> int:
    """``_get_kv_cache_groups_uniform_page_size``: the smallest type's layer count, or the largest when that is
    under 1.25 (0.12-0.17) or 1.5 (0.18+) times it."""
    low, high = min(counts), max(counts)
    ratio = 1.5 if v >= (0, 18, 0) else 1.25 if v >= (0, 12, 0) else 0.0
    return high if high < low * ratio else low


def _request_blocks(g: KvGroup, sch: Schedule, block: int) -> int:
    """Blocks one request of ``max_model_len`` tokens needs in one layer of ``g`` (``max_memory_usage_bytes``)."""
    if g.window is None:
        return -(-sch.max_model_len // block)
    return -(-min(g.window - 1 + sch.max_num_batched_tokens, sch.max_model_len) // block) + 1


def blocks(groups: list[KvGroup], kv_bytes: int, sch: Schedule, block: int) -> Blocks:
    """Blocks, logged tokens and concurrency at ``max_model_len`` (module docstring, steps 4)."""
    layers = sum(g.layers for g in groups)
    page = groups[0].page_bytes
    if kv_bytes <= 0 or page == 0:
        return Blocks(0, 0, 0.0, 1, layers)
    if sch.engine is Engine.V0 or len(groups) == 1 or not vllm_versions.hybrid_allocator(sch.version, sch.engine):
        n = kv_bytes // (page * layers)
        per_request = _request_blocks(groups[0], sch, block) if vllm_versions.hybrid_allocator(
            sch.version, sch.engine) else sch.max_model_len / block
        return Blocks(n, n * block, n / per_request, 1, layers)
    size = _group_size([g.layers for g in groups], sch.version)
    per_type = [-(-g.layers // size) for g in groups]
    n = kv_bytes // page // size
    need = sum(k * _request_blocks(g, sch, block) for k, g in zip(per_type, groups, strict=True))
    return Blocks(n, n // sum(per_type) * block, n / need, sum(per_type), size)


# -- the start-up ---------------------------------------------------------------------------------------------
def _kernel(gpu: GpuSpec, v: Version) -> quantized.Kernel:
    return quantized.Kernel(capability=gpu.capability, bnb_fp32_absmax=vllm_versions.bnb_absmax_fp32(v))


def vllm_startup(m: ModelSpec, gpu: GpuSpec, s: VllmSetup) -> VllmStartup:
    """vLLM's start-up for model ``m`` on GPUs like ``gpu`` with settings ``s`` (module docstring)."""
    sch = schedule(m, gpu, s)
    rule = vllm_versions.budget_rule(sch.version, sch.engine)
    total = gpu.memory_bytes
    requested = math.ceil(total * s.gpu_memory_utilization) if sch.version >= (0, 14, 0) else \
        int(total * s.gpu_memory_utilization)
    layers = stage_layers(m, s.pp, 0)
    by_kind = quantized.weights_by_kind(m, s.weights, s.tp, kernel=_kernel(gpu, sch.version), layers=layers,
                                        last=s.pp == 1)
    weights = sum(by_kind.values())
    v1 = sch.engine is Engine.V1
    per_logit = vllm_profile.sampler_bytes_per_logit(sch.version, v1, s.sampler)
    seqs = min(sch.max_num_seqs, sch.max_num_batched_tokens)
    shape = vllm_profile.sampler_shape(sch.version, v1, sch.max_num_batched_tokens, seqs,
                                       sms=vllm_profile.multiprocessors(gpu), per_logit=per_logit, samples=s.pp == 1)
    shape = dataclasses.replace(shape, moe_workspace=vllm_profile.moe_workspace_bytes(
        m, s.tp, sch.max_num_batched_tokens, sch.version))
    act = vllm_profile.activation(m, s.tp, sch.max_num_batched_tokens, seqs, per_logit, shape=shape,
                                  workspace=vllm_profile.cublas_workspace_bytes(gpu))
    if sch.engine is Engine.V1 and rule.key == "peak_plus_non_torch":
        act = dataclasses.replace(act, buffers=sch.max_num_batched_tokens * m.hidden_size * vllm_profile.ACT_BYTES)
    parts = vllm_profile.non_torch(rule.non_torch, gpu, s.tp, graph_profile=v1 and sch.version >= (0, 18, 0)
                                   and not s.enforce_eager)
    non_torch = parts.total
    kv_bytes = requested - weights - act.peak_bytes - non_torch
    block = block_size(m, gpu, sch)
    page = layer_token_bytes(m, s.tp, s, sch) * block
    groups = kv_groups(m, layers, page, vllm_versions.hybrid_allocator(sch.version, sch.engine))
    got = blocks(groups, kv_bytes, sch, block)
    sizes = [] if s.enforce_eager else vllm_profile.capture_sizes(sch.engine is Engine.V1, sch.max_num_seqs)
    graphs = vllm_profile.cuda_graph_bytes(act.per_token_elements, sizes) if sizes else 0
    per_token = page * sum(g.layers for g in groups) // block
    error = _error(sch, kv_bytes, got, per_token)
    shown = figures(m, gpu, s, sch, rule=rule, by_kind=by_kind, act=act, parts=parts, requested=requested,
                    kv_bytes=kv_bytes, per_token=per_token, got=got, graphs=graphs, sizes=sizes, block=block)
    start = VllmStartup(
        model_id=m.id, gpu_name=gpu.name, setup=s, version=version_text(sch.version), engine=sch.engine,
        max_model_len=sch.max_model_len, max_num_seqs=sch.max_num_seqs,
        max_num_batched_tokens=sch.max_num_batched_tokens, chunked_prefill=sch.chunked, block_size=block,
        gpu_memory_bytes=total, requested_bytes=requested, weights_bytes=weights, activation_peak_bytes=act.peak_bytes,
        non_torch_bytes=non_torch, cuda_graph_bytes=graphs, cuda_graphs_in_budget=False,
        kv_cache_bytes=max(0, kv_bytes), kv_bytes_per_token=per_token, num_blocks=got.num_blocks,
        kv_cache_tokens=got.tokens, max_concurrency=got.concurrency, groups=groups, figures=shown,
        log_lines=[], error=error, notes=_notes(m, gpu, s, sch),
    )
    return dataclasses.replace(start, log_lines=log_lines(start, rule.key, parts.context))


def _error(sch: Schedule, kv_bytes: int, got: Blocks, per_token: int) -> str:
    """The start-up error vLLM raises, or empty (v0 ``Worker.raise_if_cache_size_invalid``, v1
    ``check_enough_kv_cache_memory``)."""
    if kv_bytes <= 0 or got.num_blocks == 0:
        return ("No available memory for the cache blocks. Try increasing `gpu_memory_utilization` when "
                "initializing the engine.")
    if got.concurrency < 1:
        if sch.engine is Engine.V0:
            return (f"The model's max seq len ({sch.max_model_len}) is larger than the maximum number of tokens "
                    f"that can be stored in KV cache ({got.tokens}). Try increasing `gpu_memory_utilization` or "
                    "decreasing `max_model_len` when initializing the engine.")
        need = sch.max_model_len * per_token / GIB
        return (f"To serve at least one request with the models's max seq len ({sch.max_model_len}), ({need:.2f} "
                f"GiB KV cache is needed, which is larger than the available KV cache memory "
                f"({kv_bytes / GIB:.2f} GiB). Try increasing `gpu_memory_utilization` or decreasing "
                "`max_model_len` when initializing the engine.")
    return ""


def _notes(m: ModelSpec, gpu: GpuSpec, s: VllmSetup, sch: Schedule) -> list[str]:
    out = []
    if gpu.memory_kind in ("vendor", "smi"):
        what = "vendor tool's total" if gpu.memory_kind == "smi" else "vendor capacity"
        out.append(f"{gpu.name}: the memory is the {what}, not a measured cudaMemGetInfo total; CUDA usually sees "
                   "0.3-0.8 GiB less")
    elif gpu.memory_kind == "derived":
        out.append(f"{gpu.name}: the memory is derived from a published driver figure (catalog source)")
    if sch.max_model_len > m.max_position:
        out.append(f"max_model_len {sch.max_model_len:,} is past the model's {m.max_position:,} positions: vLLM "
                   "starts only with VLLM_ALLOW_LONG_MAX_MODEL_LEN=1")
    if s.pp > 1:
        out.append(f"pipeline parallel: stage 0's layers {stage_layers(m, s.pp, 0)} (the embedding's stage)")
    if sch.engine is Engine.V0 and _sliding(m):
        out.append("v0 caches every layer at full length: sliding-window layers free nothing")
    return out
