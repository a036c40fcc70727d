"""The lines vLLM prints at start-up about memory, worded as the version asked for words them.

Sources (the format strings, by version): the weights, ``vllm/worker/model_runner.py`` ``load_model`` ("Loading
model weights took %.4f GB", 0.4.0-0.7.x, the number in GiB; "Model loading took %.4f GB and %.6f seconds" 0.8.0-0.8.4;
"... GiB ..." from 0.8.5, ``vllm/v1/worker/gpu_model_runner.py``); the profile, ``vllm/worker/worker.py``
``determine_num_available_blocks`` ("Memory profiling results: ..." 0.6.4; "Memory profiling takes ... the current
vLLM instance can use ..." 0.6.5-0.10.x) and ``vllm/v1/worker/gpu_worker.py`` ("Available KV cache memory: %.2f GiB",
0.9.2+); the blocks, ``vllm/executor/*`` ``initialize_cache`` ("# GPU blocks: %d, # CPU blocks: %d", "# CUDA blocks"
from 0.7.0) and ``vllm/v1/core/kv_cache_utils.py`` ("# GPU blocks: %d" 0.7.x, "GPU KV cache size: %s tokens" 0.8.0+,
"Maximum concurrency for %s tokens per request: %.2fx"); the graphs, ``capture_model`` ("Graph capturing finished in
%.0f secs" and ", took %.2f GiB" from 0.6.4). Times are not predicted: they print as "…".
"""

from __future__ import annotations

from engine.serving import vllm_versions
from engine.serving.vllm_setup import SWAP_SPACE, VllmStartup
from engine.serving.vllm_versions import Engine, parse_version
from engine.units import GIB


def _g(n: float) -> str:
    return f"{n / GIB:.2f}"


def _weights_line(s: VllmStartup) -> list[str]:
    v, w = parse_version(s.version), s.weights_bytes / GIB
    if v < (0, 4, 0):
        return []
    if v < (0, 8, 0):
        return [f"Loading model weights took {w:.4f} GB"]
    unit = "GB" if v < (0, 8, 5) else "GiB"
    return [f"Model loading took {w:.4f} {unit} and … seconds"]


def _profile_lines(s: VllmStartup, rule: str, context: int) -> list[str]:
    v, kv = parse_version(s.version), s.kv_cache_bytes
    u = s.setup.gpu_memory_utilization
    if rule == "peak_plus_non_torch" and s.engine is Engine.V0:
        initial, peak = s.weights_bytes + context, s.weights_bytes + s.activation_peak_bytes
        return [f"Memory profiling results: total_gpu_memory={_g(s.gpu_memory_bytes)}GiB "
                f"initial_memory_usage={_g(initial)}GiB peak_torch_memory={_g(peak)}GiB "
                f"memory_usage_post_profile={_g(s.weights_bytes + s.non_torch_bytes)}Gib "
                f"non_torch_memory={_g(s.non_torch_bytes)}GiB kv_cache_size={_g(kv)}GiB "
                f"gpu_memory_utilization={u:.2f}"]
    if s.engine is Engine.V0 and v >= (0, 6, 5):
        return ["Memory profiling takes … seconds",
                f"the current vLLM instance can use total_gpu_memory ({_g(s.gpu_memory_bytes)}GiB) x "
                f"gpu_memory_utilization ({u:.2f}) = {_g(s.requested_bytes)}GiB",
                f"model weights take {_g(s.weights_bytes)}GiB; non_torch_memory takes {_g(s.non_torch_bytes)}GiB; "
                f"PyTorch activation peak memory takes {_g(s.activation_peak_bytes)}GiB; the rest of the memory "
                f"reserved for KV Cache is {_g(kv)}GiB."]
    if s.engine is Engine.V1 and v >= (0, 9, 2):
        return [f"Available KV cache memory: {_g(kv)} GiB"]
    return []


def _block_lines(s: VllmStartup) -> list[str]:
    v = parse_version(s.version)
    length = f"{s.max_model_len:,}" if s.engine is Engine.V1 and v >= (0, 8, 0) else f"{s.max_model_len}"
    concurrency = [f"Maximum concurrency for {length} tokens per request: {s.max_concurrency:.2f}x"] \
        if vllm_versions.logs_concurrency(v, s.engine) else []
    if s.engine is Engine.V1:
        if vllm_versions.logs_tokens(v, s.engine):
            return [f"GPU KV cache size: {s.kv_cache_tokens:,} tokens", *concurrency]
        return [f"# GPU blocks: {s.num_blocks}", *concurrency]
    cache_block = s.kv_bytes_per_token * s.block_size
    cpu = SWAP_SPACE // cache_block if cache_block else 0
    device = "CUDA" if v >= (0, 7, 0) else "GPU"
    return [f"# {device} blocks: {s.num_blocks}, # CPU blocks: {cpu}", *concurrency]


def _graph_lines(s: VllmStartup) -> list[str]:
    if s.setup.enforce_eager or s.error:
        return []
    if parse_version(s.version) < (0, 6, 4):
        return ["Graph capturing finished in … secs."]
    return [f"Graph capturing finished in … secs, took {_g(s.cuda_graph_bytes)} GiB (estimate)"]


def log_lines(s: VllmStartup, rule: str, context: int) -> list[str]:
    """The memory lines of one worker's start-up log, in the order vLLM prints them."""
    lines = _weights_line(s) + _profile_lines(s, rule, context)
    if s.error and s.num_blocks == 0:
        return [*lines, f"ValueError: {s.error}"]
    lines += _block_lines(s)
    if s.error:
        return [*lines, f"ValueError: {s.error}"]
    return lines + _graph_lines(s)
