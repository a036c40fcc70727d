"""Serving memory: the KV cache (MHA, GQA, MQA, MLA, sliding windows), how many users fit, paged allocation.

At inference every generated token leaves its keys and values behind in every layer; with many users at once
that cache, not the weights, fills the GPU. The modules answer one question each:

- ``kv``: bytes of KV cache per token and per sequence, for any attention kind and KV dtype;
- ``mla``: DeepSeek's latent cache against DeepSeek 67B's GQA cache, like for like and as published;
- ``vllm`` (with ``vllm_versions``, ``vllm_profile``, ``quantized``): vLLM's start-up at a named release, the KV
  cache it allocates and the lines it logs;
- ``capacity``: how many users fit, read from vLLM's start-up at the context asked for;
- ``trace``, ``allocators``, ``paged`` and ``simulate``: a seeded stream of requests on a pool of KV blocks,
  reserved contiguously at the maximum length or paged in 16-token blocks (PagedAttention).
"""

from engine.serving.capacity import MAX_SEQUENCES, ServingFit, ServingSetup, WeightDtype, serving_fit
from engine.serving.kv import AttentionKind, KvCache, attention_kind, kv_bits, kv_cache
from engine.serving.mla import DEEPSEEK_V2, MlaComparison, compare_mla
from engine.serving.paged import Allocation, Event, EventKind, Frame, PagingSummary, PoolSpec
from engine.serving.simulate import simulate, summarize
from engine.serving.trace import Request, TraceShape, request_stream

__all__ = [
    "DEEPSEEK_V2",
    "MAX_SEQUENCES",
    "Allocation",
    "AttentionKind",
    "Event",
    "EventKind",
    "Frame",
    "KvCache",
    "MlaComparison",
    "PagingSummary",
    "PoolSpec",
    "Request",
    "ServingFit",
    "ServingSetup",
    "TraceShape",
    "WeightDtype",
    "attention_kind",
    "compare_mla",
    "kv_bits",
    "kv_cache",
    "request_stream",
    "serving_fit",
    "simulate",
    "summarize",
]
