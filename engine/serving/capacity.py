"""How many users fit: vLLM's start-up on each GPU (``engine.serving.vllm``), read at the context length asked for.

A ``ServingSetup`` is the serving page's settings and a lesson's: the context (vLLM's ``max_model_len``, and the
length of every request), how many sequences are wanted at once, and vLLM's own settings (utilization, batch
limits, KV cache dtype, the checkpoint's format, tensor and pipeline parallelism, the release). ``serving_fit``
asks vLLM's start-up for the memory its profile charges and the KV cache it allocates; the sequences that fit are
vLLM's own "maximum concurrency" at that length, rounded down. The per-sequence KV cache is ``engine.serving.kv``'s.

A context longer than the model's ``max_position_embeddings`` is costed as vLLM runs it with
``VLLM_ALLOW_LONG_MAX_MODEL_LEN=1`` (the page and the lessons may ask for it; the ``serve`` command refuses it unless
asked). vLLM runs on CUDA and ROCm GPUs: an Apple or Intel Gaudi device is refused by name.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Annotated, Any

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from engine.results import Term, with_shares
from engine.serving.kv import KvCache, kv_cache
from engine.serving.quantized import FP16_FORMATS, WeightFormat
from engine.serving.vllm import vllm_startup
from engine.serving.vllm_setup import KvCacheDtype, VllmSetup, VllmStartup
from engine.serving.vllm_versions import NEWEST, Engine, parse_version, version_text
from engine.specs import GpuSpec, KvDtype, ModelSpec, SeqLen
from engine.terms import TermName

#: the most concurrent sequences a ``ServingSetup`` may ask for
MAX_SEQUENCES = 65_536
Concurrency = Annotated[int, Field(strict=True, ge=1, le=MAX_SEQUENCES)]
TensorParallel = Annotated[int, Field(strict=True, ge=1, le=64)]
Utilization = Annotated[float, Field(strict=True, allow_inf_nan=False, gt=0.0, le=1.0)]
BatchedTokens = Annotated[int, Field(strict=True, ge=1, le=4_194_304)]
#: the checkpoint's format (``engine.serving.quantized.WeightFormat``), under the name the page has always used
WeightDtype = WeightFormat
#: values saved by earlier versions of the page, read as the format they meant
_LEGACY_WEIGHTS = {"int4": WeightFormat.INT4_GPTQ.value}
#: vLLM runs on these vendors' GPUs (CUDA, ROCm)
VLLM_VENDORS = frozenset({"NVIDIA", "AMD"})


class ServingSetup(BaseModel):
    """One serving configuration: the context, the concurrency wanted, and vLLM's settings (None: its default)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    tokens: SeqLen = 4_096
    sequences: Concurrency = 1
    kv_dtype: KvCacheDtype = KvCacheDtype.AUTO
    weight_dtype: WeightFormat = WeightFormat.BF16
    tp: TensorParallel = 1
    pp: TensorParallel = 1
    gpu_memory_utilization: Utilization = 0.9
    max_num_batched_tokens: BatchedTokens | None = None
    max_num_seqs: Concurrency | None = None
    enforce_eager: bool = False
    vllm_version: str = version_text(NEWEST)
    vllm_engine: Engine | None = None

    @field_validator("vllm_version")
    @classmethod
    def _known(cls, text: str) -> str:
        return version_text(parse_version(text))

    @model_validator(mode="before")
    @classmethod
    def _legacy(cls, data: Any) -> Any:
        """Earlier files: ``batched_tokens`` (now vLLM's own default unless set), ``weight_dtype: int4``."""
        if isinstance(data, dict):
            data = {k: v for k, v in data.items() if k != "batched_tokens"}
            weights = data.get("weight_dtype")
            if isinstance(weights, str) and weights in _LEGACY_WEIGHTS:
                data["weight_dtype"] = _LEGACY_WEIGHTS[weights]
        return data

    def with_(self, **changes: Any) -> ServingSetup:
        """A copy with fields changed and re-validated."""
        return ServingSetup.model_validate({**self.model_dump(), **changes})

    def vllm(self) -> VllmSetup:
        """vLLM's settings for this setup (``max_model_len`` is the context)."""
        return VllmSetup(
            tp=self.tp, pp=self.pp, max_model_len=self.tokens, gpu_memory_utilization=self.gpu_memory_utilization,
            max_num_batched_tokens=self.max_num_batched_tokens, max_num_seqs=self.max_num_seqs,
            kv_cache_dtype=self.kv_dtype, weights=self.weight_dtype, enforce_eager=self.enforce_eager,
            vllm_version=self.vllm_version, vllm_engine=self.vllm_engine, allow_long_max_model_len=True,
        )

    @property
    def kv_element(self) -> KvDtype:
        """The cache's element type: ``auto`` is the activations' (fp16 for GPTQ, AWQ and GGUF checkpoints)."""
        if self.kv_dtype is KvCacheDtype.AUTO:
            return KvDtype.FP16 if self.weight_dtype in FP16_FORMATS else KvDtype.BF16
        return KvDtype(self.kv_dtype.value)


class ServingFit(BaseModel):
    """Per-GPU bytes for ``setup.sequences`` sequences, and the largest concurrency vLLM reports."""

    model_config = ConfigDict(frozen=True, arbitrary_types_allowed=True)

    model_id: str
    gpu_id: str
    setup: ServingSetup
    gpu_bytes: int
    budget_bytes: int  # gpu_memory_utilization x the memory the driver reports
    kv: KvCache  # one sequence, on one GPU
    terms: list[Term]  # weights, activation_workspace, non_torch, kv_cache, cuda_graphs (all per GPU)
    kv_budget_bytes: int  # what the budget leaves for the KV cache (negative: the weights alone overflow)
    max_sequences: int
    startup: VllmStartup

    @property
    def used_bytes(self) -> int:
        return sum(t.bytes for t in self.terms)

    @property
    def fits(self) -> bool:
        return self.setup.sequences <= self.max_sequences

    def term(self, name: str) -> Term:
        return next(t for t in self.terms if t.name == name)

    def terms_at(self, sequences: int) -> list[Term]:
        """The per-GPU terms with ``sequences`` sequences' KV cache (any count, not only a setup's)."""
        cache = self.kv.term(sequences)
        return list(with_shares(cache if t.name == TermName.KV_CACHE else t for t in self.terms))


class Unsupported(StrEnum):
    """Why vLLM cannot serve a setup, as a sentence."""

    VENDOR = "vLLM runs on NVIDIA (CUDA) and AMD (ROCm) GPUs; {gpu} is not one"
    HEADS = "vLLM splits the {heads} attention heads over the tensor-parallel GPUs: TP {tp} does not divide them"


def check_servable(m: ModelSpec, gpu: GpuSpec, tp: int) -> None:
    """vLLM's own refusals (``ModelConfig.verify_with_parallel_config``), raised as ``ValueError``."""
    if gpu.vendor not in VLLM_VENDORS:
        raise ValueError(Unsupported.VENDOR.format(gpu=gpu.name))
    if m.num_heads % tp:
        raise ValueError(Unsupported.HEADS.format(heads=m.num_heads, tp=tp))


def _term(start: VllmStartup, name: str, figure: str, value: int) -> Term:
    f = start.figure(figure)
    return Term(name=name, bytes=value, formula=f.formula, source=f.source, detail=f.detail)


def serving_fit(m: ModelSpec, gpu: GpuSpec, setup: ServingSetup) -> ServingFit:
    """vLLM's start-up for ``setup`` and what it leaves for ``setup.sequences`` sequences (module docstring)."""
    check_servable(m, gpu, setup.tp)
    start = vllm_startup(m, gpu, setup.vllm())
    kv = kv_cache(m, setup.tokens, setup.kv_element, setup.tp)
    kv_left = start.requested_bytes - start.weights_bytes - start.activation_peak_bytes - start.non_torch_bytes
    cache = kv.term(setup.sequences)
    terms = [
        _term(start, TermName.WEIGHTS, "weights_bytes", start.weights_bytes),
        _term(start, TermName.ACTIVATION_WORKSPACE, "activation_peak_bytes", start.activation_peak_bytes),
        _term(start, TermName.NON_TORCH, "non_torch_bytes", start.non_torch_bytes),
        Term(name=TermName.KV_CACHE, bytes=cache.bytes, formula=kv.formula, source=kv.source, detail=cache.detail),
        _term(start, TermName.CUDA_GRAPHS, "cuda_graph_bytes", start.cuda_graph_bytes),
    ]
    most = int(start.max_concurrency) if start.fits else 0
    return ServingFit(
        model_id=m.id, gpu_id=gpu.id, setup=setup, gpu_bytes=gpu.memory_bytes, budget_bytes=start.requested_bytes,
        kv=kv, terms=list(with_shares(terms)), kv_budget_bytes=kv_left, max_sequences=most, startup=start,
    )
