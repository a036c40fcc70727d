"""Each number of vLLM's start-up with its formula, the numbers that went in, and its source (``serve --json``'s
``terms_detail``)."""

from __future__ import annotations

from engine.serving import vllm_profile, vllm_versions
from engine.serving.vllm_setup import Blocks, Figure, Schedule, VllmSetup
from engine.serving.vllm_versions import Engine
from engine.specs import GpuSpec, ModelSpec
from engine.units import GIB, MIB

_GPU_SOURCE = {
    "cuda": "cudaMemGetInfo total as vLLM or PyTorch logged it on this card",
    "derived": "derived from a published driver figure",
    "smi": "the vendor tool's total",
    "vendor": "the vendor's capacity in JEDEC units (GB = 2^30 bytes); no driver figure published",
}


def _gib(n: float) -> str:
    return f"{n / GIB:,.2f} GiB"


def _gpu(gpu: GpuSpec) -> Figure:
    return Figure("gpu_memory_bytes", gpu.memory_bytes, "torch.cuda.mem_get_info()[1] on one GPU",
                  f"{gpu.name}: {gpu.memory_bytes:,} B = {_gib(gpu.memory_bytes)}",
                  f"{_GPU_SOURCE[gpu.memory_kind]}: {gpu.source}")


def _requested(gpu: GpuSpec, s: VllmSetup, requested: int) -> Figure:
    total = gpu.memory_bytes * s.gpu_memory_utilization
    return Figure("requested_bytes", requested, "total_gpu_memory × gpu_memory_utilization",
                  f"{_gib(gpu.memory_bytes)} × {s.gpu_memory_utilization:g} = {_gib(total)}",
                  "vllm/worker/worker.py determine_num_available_blocks (v0); vllm/v1/worker/gpu_worker.py "
                  "init_device requested_memory (v1); vllm/v1/worker/utils.py request_memory, math.ceil (0.14+)")


def _weights(m: ModelSpec, s: VllmSetup, by_kind: dict[str, int]) -> Figure:
    parts = " + ".join(f"{k} {v / GIB:.3f}" for k, v in by_kind.items() if v)
    return Figure("weights_bytes", sum(by_kind.values()),
                  f"Σ modules stored as {s.weights.value} on one of TP {s.tp} GPUs + rotary cos_sin_cache",
                  f"{parts} GiB",
                  "engine.serving.quantized (vllm/model_executor/layers/linear.py splits; quantization/*.py "
                  "layouts; DeviceMemoryProfiler around load_model: 'Model loading took')")


def _activation(act: vllm_profile.Activation) -> Figure:
    forward = f"forward {act.tokens:,} tokens × {act.per_token_elements:,} elements × 2 B = {_gib(act.forward_bytes)}"
    sampler = (f"sampler: the held hidden states + {act.sequences:,} sequences' logits × {act.per_logit} B "
               f"(+ the Triton kernel's scratch rows from 0.17) = {_gib(act.sampler_bytes)}")
    if act.buffers:
        sampler += f"; + the runner's inputs_embeds buffer {_gib(act.buffers)}"
    if act.workspace:
        sampler += f"; + cuBLAS's workspace {act.workspace / MIB:.3g} MiB"
    return Figure("activation_peak_bytes", act.peak_bytes,
                  "max(max_num_batched_tokens × the largest layer moment × 2 B, held hidden states + "
                  "min(max_num_seqs, max_num_batched_tokens) × vocab × bytes a logit) + cuBLAS's workspace",
                  f"{forward}; {sampler}; peak: {act.phase}",
                  "engine.serving.vllm_profile (profile_run's dummy batch: v0 ModelRunner.profile_run, v1 "
                  "GPUModelRunner.profile_run / _dummy_sampler_run; PyTorch CublasHandlePool.cpp "
                  "parseChosenWorkspaceSize)")


def _non_torch(rule: vllm_versions.BudgetRule, parts: vllm_profile.NonTorchParts, world: int) -> Figure:
    items = [(n, b) for n, b in (("CUDA context", parts.context), ("lazily loaded kernels", parts.runtime),
                                 (f"NCCL over {world} GPUs", parts.nccl)) if b]
    detail = " + ".join(f"{n} {_gib(b)}" for n, b in items) or "nothing outside PyTorch is charged"
    return Figure("non_torch_bytes", parts.total, f"what the {rule.versions} budget charges outside PyTorch "
                  f"({rule.non_torch.value})", detail,
                  f"{rule.source}; figures measured in vLLM logs (engine.serving.vllm_profile constants)")


def _graphs(s: VllmSetup, graphs: int, sizes: list[int], act: vllm_profile.Activation) -> Figure:
    if not sizes:
        return Figure("cuda_graph_bytes", 0, "--enforce-eager: no CUDA graphs", "0", "vLLM --enforce-eager")
    return Figure("cuda_graph_bytes", graphs,
                  "largest capture size × per-token elements × 2 B + 1 MiB per graph (estimate; outside the budget)",
                  f"{max(sizes)} × {act.per_token_elements:,} × 2 B + {len(sizes)} × {MIB // MIB} MiB = {_gib(graphs)}",
                  "captured after the KV cache (v0 Worker._warm_up_model, v1 compile_or_warm_up_model); sizes: "
                  "_BATCH_SIZES_TO_CAPTURE (v0), CompilationConfig.cudagraph_capture_sizes (v1)")


def _kv(rule: vllm_versions.BudgetRule, spent: tuple[int, int, int, int], kv_bytes: int) -> Figure:
    """``spent``: the requested memory, then the weights, the activation peak and the non-torch memory."""
    return Figure("kv_cache_bytes", max(0, kv_bytes), rule.formula,
                  " − ".join(_gib(x) for x in spent) + f" = {_gib(kv_bytes)}", rule.source)


def _per_token(m: ModelSpec, s: VllmSetup, per_token: int, block: int) -> Figure:
    what = "MLA latent" if m.mla is not None else "2 × KV heads per GPU × head dim"
    return Figure("kv_bytes_per_token", per_token, f"layers × ({what}) × bytes per element, on one GPU",
                  f"{m.num_layers} layers, {s.kv_cache_dtype.value} cache, {block}-token blocks: {per_token:,} B",
                  "engine.serving.kv (per layer); vllm/worker/cache_engine.py get_cache_block_size (v0), "
                  "vllm/v1/kv_cache_interface.py page_size_bytes (v1)")


def _tokens(sch: Schedule, got: Blocks, block: int) -> Figure:
    if got.groups > 1:
        formula = "num_blocks // KV cache groups × block_size; num_blocks = kv bytes // page // group size"
        detail = f"{got.num_blocks:,} // {got.groups} × {block} = {got.tokens:,}"
    else:
        formula = "num_blocks × block_size; num_blocks = kv bytes // (page × layers)"
        detail = f"{got.num_blocks:,} × {block} = {got.tokens:,}"
    return Figure("kv_cache_tokens", got.tokens, formula, detail,
                  "vllm/v1/core/kv_cache_utils.py get_num_blocks, _report_kv_cache_config (v1); "
                  "vllm/worker/worker.py determine_num_available_blocks (v0)")


def _concurrency(sch: Schedule, got: Blocks) -> Figure:
    grouped = sch.engine is Engine.V1 and vllm_versions.hybrid_allocator(sch.version, sch.engine)
    formula = ("num_blocks / blocks one request of max_model_len needs in every group" if grouped
               else "kv cache tokens / max_model_len")
    return Figure("max_concurrency", round(got.concurrency, 4), formula,
                  f"at {sch.max_model_len:,} tokens: {got.concurrency:.2f}x",
                  "vllm/v1/core/kv_cache_utils.py get_max_concurrency_for_kv_cache_config (0.9.1+); v0 "
                  "executor 'Maximum concurrency' (0.6.3+)")


def figures(m: ModelSpec, gpu: GpuSpec, s: VllmSetup, sch: Schedule, *, rule: vllm_versions.BudgetRule,
            by_kind: dict[str, int], act: vllm_profile.Activation, parts: vllm_profile.NonTorchParts,
            requested: int, kv_bytes: int, per_token: int, got: Blocks, graphs: int, sizes: list[int],
            block: int) -> list[Figure]:
    """The figures of one start-up, in the order the budget is spent."""
    weights = sum(by_kind.values())
    return [
        _gpu(gpu), _requested(gpu, s, requested), _weights(m, s, by_kind), _activation(act),
        _non_torch(rule, parts, s.tp * s.pp), _graphs(s, graphs, sizes, act),
        _kv(rule, (requested, weights, act.peak_bytes, parts.total), kv_bytes),
        _per_token(m, s, per_token, block), _tokens(sch, got, block), _concurrency(sch, got),
    ]
