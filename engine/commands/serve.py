"""``python -m engine serve``: the KV cache vLLM will allocate, and the lines it will log, before renting the GPU.

Flags and JSON keys are a contract (issue 28). The flags spell vLLM's own (``--max-model-len``,
``--gpu-memory-utilization``, ``--max-num-batched-tokens``, ``--max-num-seqs``, ``--kv-cache-dtype``,
``--enforce-eager``, ``--tp`` for ``--tensor-parallel-size``, ``--pp`` for ``--pipeline-parallel-size``) plus the
model (a catalog id, a quantized copy of one by its repository's name, or ``--config``), the GPU (a catalog id, or
``--gpu-memory-gib`` for the total the driver reports), the checkpoint's format (``--weights``; by default as the
name or the model's own checkpoint stores it: ``engine.serving.checkpoints``) and the vLLM release
(``--vllm-version``, ``--vllm-engine``). An unset scheduler flag takes vLLM's default for that release and GPU.
Every byte count is per GPU.

JSON: ``kv_cache_bytes`` (what vLLM gives the cache), ``kv_cache_tokens``, ``max_concurrency`` (at
``max_model_len``), ``kv_bytes_per_token``, ``weights_bytes``, ``activation_peak_bytes``, ``non_torch_bytes``,
``cuda_graph_bytes``, ``gpu_memory_bytes`` (as the driver reports it), each explained in ``terms_detail`` (formula,
the numbers put in, source), and ``log_lines``, the start-up lines vLLM prints.
"""

from __future__ import annotations

import argparse
import dataclasses
from typing import Any

from engine.catalog import DEFAULT_GPU, CatalogError, get_gpu
from engine.commands.setup_flags import resolve_model
from engine.serving.checkpoints import Checkpoint, resolve
from engine.serving.quantized import WeightFormat
from engine.serving.vllm import vllm_startup
from engine.serving.vllm_profile import Sampler
from engine.serving.vllm_setup import KvCacheDtype, VllmSetup, VllmStartup
from engine.serving.vllm_versions import NEWEST, Engine, Entrypoint, version_text
from engine.specs import GpuSpec
from engine.units import GIB, Unit, format_bytes

#: the JSON keys of the contract, in the order the budget is spent
CONTRACT_KEYS = ("gpu_memory_bytes", "weights_bytes", "activation_peak_bytes", "non_torch_bytes", "cuda_graph_bytes",
                 "kv_cache_bytes", "kv_bytes_per_token", "kv_cache_tokens", "max_concurrency")
#: vLLM's ``--quantization`` values and the format each stores (``vllm/model_executor/layers/quantization``)
QUANTIZATION = {"awq": WeightFormat.INT4_AWQ, "awq_marlin": WeightFormat.INT4_AWQ, "gptq": WeightFormat.INT4_GPTQ,
                "gptq_marlin": WeightFormat.INT4_GPTQ, "bitsandbytes": WeightFormat.NF4, "fp8": WeightFormat.FP8,
                "fbgemm_fp8": WeightFormat.FP8, "mxfp4": WeightFormat.MXFP4, "modelopt_fp4": WeightFormat.NVFP4,
                "experts_int8": WeightFormat.INT8}
#: the most memory ``--gpu-memory-gib`` may give one GPU (the engine's bound, 2^50 bytes)
MAX_GIB = 2**50 / GIB


def _choices(enum: type[Any]) -> list[str]:
    return [e.value for e in enum]


def register(sub: Any) -> None:
    p = sub.add_parser("serve", help="the KV cache and concurrency vLLM will log at start-up (per GPU)")
    add_serve_arguments(p)
    p.add_argument("--json", action="store_true", help="print JSON")
    p.set_defaults(handler=run)


def add_serve_arguments(p: argparse.ArgumentParser) -> None:
    """The model, the GPU and every vLLM flag the start-up depends on."""
    d = VllmSetup()
    src = p.add_mutually_exclusive_group()
    src.add_argument("--model", default=None, help="catalog id or HF repo name (default llama-2-7b)")
    src.add_argument("--config", default=None, help="a Hugging Face config.json, or a folder holding one")
    gpu = p.add_mutually_exclusive_group()
    gpu.add_argument("--gpu", default=None, help=f"catalog GPU (default {DEFAULT_GPU})")
    gpu.add_argument("--gpu-memory-gib", type=float, default=None,
                     help="a GPU's total memory as the driver reports it (cudaMemGetInfo), in GiB")
    p.add_argument("--tp", "--tensor-parallel-size", dest="tp", type=int, default=d.tp,
                   help="tensor-parallel GPUs (vLLM's --tensor-parallel-size; default 1)")
    p.add_argument("--pp", "--pipeline-parallel-size", dest="pp", type=int, default=d.pp,
                   help="pipeline-parallel GPUs (vLLM's --pipeline-parallel-size; default 1)")
    p.add_argument("--max-model-len", type=int, default=None, help="default: the model's max_position_embeddings")
    p.add_argument("--gpu-memory-utilization", type=float, default=d.gpu_memory_utilization,
                   help=f"share of each GPU vLLM may use (default {d.gpu_memory_utilization})")
    p.add_argument("--max-num-batched-tokens", type=int, default=None, help="default: vLLM's for the version")
    p.add_argument("--max-num-seqs", type=int, default=None, help="default: vLLM's for the version")
    p.add_argument("--kv-cache-dtype", choices=_choices(KvCacheDtype), default=d.kv_cache_dtype.value)
    p.add_argument("--weights", choices=_choices(WeightFormat), default=None,
                   help="the checkpoint's format (default: as the model's name or its own checkpoint stores it, "
                        "else bf16)")
    p.add_argument("--quantization", choices=sorted(QUANTIZATION), default=None,
                   help="vLLM's --quantization, read as --weights (awq, gptq and their Marlin kernels: 4-bit; "
                        "bitsandbytes: nf4)")
    p.add_argument("--enforce-eager", action="store_true", help="no CUDA graphs")
    p.add_argument("--vllm-version", default=version_text(NEWEST),
                   help=f"X.Y[.Z] (default {version_text(NEWEST)}, the newest modelled)")
    p.add_argument("--vllm-engine", choices=_choices(Engine), default=None,
                   help="v0 or v1 (default: the version's, v1 from 0.8.0)")
    p.add_argument("--entrypoint", choices=_choices(Entrypoint), default=Entrypoint.SERVE.value,
                   help="vllm serve (default) or the LLM class: v1's default batch sizes differ")
    p.add_argument("--sampler", choices=_choices(Sampler), default=Sampler.AUTO.value,
                   help="the top-k/top-p sampler profiled (default: the version's; FlashInfer in v1 0.7-0.11)")


def setup_from_args(a: argparse.Namespace, weights: WeightFormat = WeightFormat.BF16) -> VllmSetup:
    """The settings the flags give; ``weights`` where ``--weights`` is not given."""
    return VllmSetup(
        tp=a.tp, pp=a.pp, max_model_len=a.max_model_len, gpu_memory_utilization=a.gpu_memory_utilization,
        max_num_batched_tokens=a.max_num_batched_tokens, max_num_seqs=a.max_num_seqs,
        kv_cache_dtype=KvCacheDtype(a.kv_cache_dtype), weights=WeightFormat(a.weights) if a.weights else weights,
        enforce_eager=a.enforce_eager,
        vllm_version=a.vllm_version, vllm_engine=Engine(a.vllm_engine) if a.vllm_engine else None,
        entrypoint=Entrypoint(a.entrypoint), sampler=Sampler(a.sampler),
    )


def gpu_from_args(a: argparse.Namespace) -> GpuSpec:
    """The catalog GPU, or one of ``--gpu-memory-gib`` (compute capability 8.0, PCIe: say ``--gpu`` for others)."""
    if a.gpu_memory_gib is None:
        return get_gpu(a.gpu or DEFAULT_GPU)
    gib = a.gpu_memory_gib
    if not 0 < gib <= MAX_GIB:
        raise ValueError(f"--gpu-memory-gib: {gib:g} is not a memory size (0 to {MAX_GIB:,.0f} GiB)")
    return GpuSpec(id="custom", name=f"GPU of {gib:g} GiB", memory_bytes=round(gib * GIB), memory_kind="cuda",
                   source="--gpu-memory-gib")


def to_json(st: VllmStartup) -> dict[str, Any]:
    data: dict[str, Any] = {
        "model": st.model_id, "gpu": st.gpu_name, "vllm_version": st.version, "vllm_engine": st.engine.value,
        "tp": st.setup.tp, "pp": st.setup.pp, "max_model_len": st.max_model_len,
        "max_num_batched_tokens": st.max_num_batched_tokens, "max_num_seqs": st.max_num_seqs,
        "chunked_prefill": st.chunked_prefill, "gpu_memory_utilization": st.setup.gpu_memory_utilization,
        "weights": st.setup.weights.value, "kv_cache_dtype": st.setup.kv_cache_dtype.value,
        "block_size": st.block_size, "num_blocks": st.num_blocks, "requested_bytes": st.requested_bytes,
    }
    data |= {key: getattr(st, key) for key in CONTRACT_KEYS}
    data["max_concurrency"] = round(st.max_concurrency, 4)
    data |= {
        "cuda_graphs_in_budget": st.cuda_graphs_in_budget,
        "kv_cache_groups": [{"kind": g.kind, "window": g.window, "layers": g.layers, "page_bytes": g.page_bytes}
                            for g in st.groups],
        "fits": st.fits, "error": st.error or None,
        "terms_detail": [f.as_dict() for f in st.figures],
        "log_lines": st.log_lines, "notes": st.notes,
    }
    return data


def to_text(st: VllmStartup) -> str:
    u = Unit.GIB
    s = st.setup
    head = (f"{st.model_id} on {s.tp * s.pp} x {st.gpu_name} (TP {s.tp}, PP {s.pp}), vLLM {st.version} "
            f"{st.engine.value}: max_model_len {st.max_model_len:,}, max_num_batched_tokens "
            f"{st.max_num_batched_tokens:,}, max_num_seqs {st.max_num_seqs:,}, {s.weights.value} weights, "
            f"{s.kv_cache_dtype.value} KV cache")
    rows = [("GPU memory (driver)", st.gpu_memory_bytes), ("budget", st.requested_bytes), ("weights", st.weights_bytes),
            ("activation peak", st.activation_peak_bytes), ("non-torch", st.non_torch_bytes),
            ("KV cache", st.kv_cache_bytes), ("CUDA graphs (outside)", st.cuda_graph_bytes)]
    lines = [head, *(f"  {name:<22} {format_bytes(b, u):>12}" for name, b in rows)]
    lines.append(f"  KV cache: {st.kv_cache_tokens:,} tokens, {st.kv_bytes_per_token:,} B per token; "
                 f"maximum concurrency at {st.max_model_len:,} tokens: {st.max_concurrency:.2f}x")
    lines += [f"  note: {n}" for n in st.notes]
    lines.append("vLLM will log:")
    lines += [f"  {line}" for line in st.log_lines]
    return "\n".join(lines)


def checkpoint_from_args(a: argparse.Namespace) -> Checkpoint:
    """The model the flags name: a catalog model, a quantized copy of one (by its repository's name), a config."""
    if a.config is not None or a.model is None:
        m = resolve_model(a.model, a.config)
        return Checkpoint(m, None)
    try:
        return resolve(a.model)
    except CatalogError:
        return Checkpoint(resolve_model(a.model, None), None)  # the local Hugging Face cache, or its error


def run(args: argparse.Namespace) -> tuple[dict[str, Any], str]:
    ckpt = checkpoint_from_args(args)
    if args.weights:
        weights = WeightFormat(args.weights)
    elif args.quantization:
        weights = QUANTIZATION[args.quantization]
    else:
        weights = ckpt.weights
    setup = setup_from_args(args, weights)
    gpu = gpu_from_args(args)
    st = vllm_startup(ckpt.model, gpu, setup)
    if ckpt.note:
        st = dataclasses.replace(st, notes=[ckpt.note, *st.notes])
    return to_json(st), to_text(st)
