"""How many users fit: weights + activation workspace + KV cache per GPU, against what the runtime may use.

Assumptions, named once (vLLM's defaults, https://docs.vllm.ai, "gpu_memory_utilization"):
- the serving engine may use ``gpu_memory_utilization`` (0.9) of each GPU's memory; the rest is headroom;
- inside that budget sit the CUDA context (``GpuSpec.context_bytes``), the weights, an activation workspace
  for one forward pass of ``batched_tokens`` tokens (vLLM profiles it; estimated here), and the KV cache;
- tensor parallelism over T GPUs (Megatron-LM, arXiv:1909.08053) splits the weights and the workspace's MLP
  by T and the KV heads by T (at least one head per GPU); an MLA latent is kept whole on every GPU.
"""

from __future__ import annotations

import math
from enum import StrEnum
from typing import Annotated, Any

from pydantic import BaseModel, ConfigDict, Field

from engine.params import count_params
from engine.results import Term, with_shares
from engine.serving.kv import KvCache, kv_cache
from engine.specs import GpuSpec, KvDtype, ModelSpec, SeqLen
from engine.terms import TermName

#: the most concurrent sequences a ``ServingSetup`` may ask for
MAX_SEQUENCES = 65_536
Concurrency = Annotated[int, Field(strict=True, ge=1, le=MAX_SEQUENCES)]
TensorParallel = Annotated[int, Field(strict=True, ge=1, le=64)]
Utilization = Annotated[float, Field(strict=True, allow_inf_nan=False, gt=0.0, le=1.0)]
BatchedTokens = Annotated[int, Field(strict=True, ge=1, le=1_048_576)]


class WeightDtype(StrEnum):
    BF16 = "bf16"
    FP16 = "fp16"
    INT8 = "int8"  # per-channel scales, negligible
    INT4 = "int4"  # GPTQ / AWQ: one fp16 scale per group of 128 weights


#: Bits per weight, scales included (int4: 4 + 16 / 128).
WEIGHT_BITS = {WeightDtype.BF16: 16.0, WeightDtype.FP16: 16.0, WeightDtype.INT8: 8.0, WeightDtype.INT4: 4.125}
VLLM_SOURCE = "vLLM engine arguments: gpu_memory_utilization (default 0.9), max_num_batched_tokens"


class ServingSetup(BaseModel):
    """One serving configuration: context length, concurrency, dtypes, tensor parallelism, runtime budget."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    tokens: SeqLen = 4_096
    sequences: Concurrency = 1
    kv_dtype: KvDtype = KvDtype.FP16
    weight_dtype: WeightDtype = WeightDtype.BF16
    tp: TensorParallel = 1
    gpu_memory_utilization: Utilization = 0.9
    batched_tokens: BatchedTokens = 2_048

    def with_(self, **changes: Any) -> ServingSetup:
        """A copy with fields changed and re-validated."""
        return ServingSetup.model_validate({**self.model_dump(), **changes})


class ServingFit(BaseModel):
    """Per-GPU bytes for ``setup.sequences`` sequences, and the largest concurrency that fits."""

    model_config = ConfigDict(frozen=True)

    model_id: str
    gpu_id: str
    setup: ServingSetup
    gpu_bytes: int
    budget_bytes: int  # gpu_memory_utilization x GPU memory
    kv: KvCache  # one sequence, on one GPU
    terms: list[Term]  # weights, activation_workspace, cuda_context, kv_cache (all per GPU)
    kv_budget_bytes: int  # what the budget leaves for the KV cache (negative: the weights alone overflow)
    max_sequences: int

    @property
    def used_bytes(self) -> int:
        return sum(t.bytes for t in self.terms)

    @property
    def fits(self) -> bool:
        return self.setup.sequences <= self.max_sequences

    def term(self, name: str) -> Term:
        return next(t for t in self.terms if t.name == name)

    def terms_at(self, sequences: int) -> list[Term]:
        """The per-GPU terms with ``sequences`` sequences' KV cache (any count, not only a setup's): the bar of
        ``max_sequences``, which can pass the bound of a request (GPT-2 at 128 tokens in int8 over 8 H100s holds
        97,131 sequences; a ``ServingSetup`` asks for at most ``MAX_SEQUENCES``)."""
        fixed = [t for t in self.terms if t.name != TermName.KV_CACHE]
        return list(with_shares([*fixed, self.kv.term(sequences)]))


def weights_term(m: ModelSpec, dtype: WeightDtype, tp: int) -> Term:
    """Weights on one of ``tp`` GPUs: parameters x bits per weight / 8 / T."""
    params = count_params(m).total
    return Term(
        name=TermName.WEIGHTS, bytes=math.ceil(params * WEIGHT_BITS[dtype] / 8 / tp),
        formula="parameters × bits per weight / 8 / tensor-parallel GPUs",
        source="exact parameter count (engine.params); int4 scales: GPTQ, arXiv:2210.17323 (group size 128)",
        detail=f"{params:,} × {WEIGHT_BITS[dtype]:g} / 8 / {tp}",
    )


def workspace_term(m: ModelSpec, batched_tokens: int, tp: int) -> Term:
    """Activation workspace of one forward pass: tokens x (2 x MLP width / T + 4 x hidden) x 2 bytes."""
    width = m.intermediate_size
    if m.moe is not None:
        width = m.moe.expert_intermediate_size * (m.moe.experts_per_token + m.moe.shared_experts)
    per_token = 2 * width // tp + 4 * m.hidden_size
    return Term(
        name=TermName.ACTIVATION_WORKSPACE, bytes=batched_tokens * per_token * 2,
        formula="batched tokens × (2 × MLP width / T + 4 × hidden) × 2 bytes (assumed; vLLM profiles it)",
        source=VLLM_SOURCE, detail=f"{batched_tokens:,} × {per_token:,} × 2",
    )


def serving_fit(m: ModelSpec, gpu: GpuSpec, setup: ServingSetup) -> ServingFit:
    """Weights, workspace, runtime and KV cache on each GPU, and how many sequences the rest holds."""
    kv = kv_cache(m, setup.tokens, setup.kv_dtype, setup.tp)
    budget = int(gpu.memory_bytes * setup.gpu_memory_utilization)
    fixed = [
        weights_term(m, setup.weight_dtype, setup.tp),
        workspace_term(m, setup.batched_tokens, setup.tp),
        Term(name=TermName.CUDA_CONTEXT, bytes=gpu.context_bytes, formula="CUDA context and libraries",
             source="measured: about 0.55 GB on an H200 (reference/gpu_llama.jsonl)"),
    ]
    kv_budget = budget - sum(t.bytes for t in fixed)
    return ServingFit(
        model_id=m.id, gpu_id=gpu.id, setup=setup, gpu_bytes=gpu.memory_bytes, budget_bytes=budget, kv=kv,
        terms=list(with_shares([*fixed, kv.term(setup.sequences)])), kv_budget_bytes=kv_budget,
        max_sequences=max(0, kv_budget // kv.bytes_per_sequence),
    )


