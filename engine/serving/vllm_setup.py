"""The inputs and outputs of ``engine.serving.vllm``: vLLM's settings, the start-up it predicts, each figure's formula.

Kept apart from the arithmetic so that the wording (``vllm_figures``, ``vllm_log``) and the GUI import the types
without the rules.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from enum import StrEnum
from typing import Annotated, Any

from pydantic import BaseModel, ConfigDict, Field, field_validator

from engine.serving import vllm_versions
from engine.serving.quantized import WeightFormat
from engine.serving.vllm_profile import Sampler
from engine.serving.vllm_versions import Engine, Entrypoint, Version, version_text
from engine.specs import SeqLen
from engine.units import GIB

BLOCK_SIZE = 16
#: v0's CPU swap space (``--swap-space``, GiB per GPU), for the "# CPU blocks" line
SWAP_SPACE = 4 * GIB
Utilization = Annotated[float, Field(strict=True, allow_inf_nan=False, gt=0.0, le=1.0)]
Parallel = Annotated[int, Field(strict=True, ge=1, le=64)]


class KvCacheDtype(StrEnum):
    """``--kv-cache-dtype``: ``auto`` is the model's dtype."""

    AUTO = "auto"
    BF16 = "bf16"
    FP16 = "fp16"
    FP8 = "fp8"


class VllmSetup(BaseModel):
    """The flags of ``vllm serve`` that decide its memory (None: vLLM's default for the version)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    tp: Parallel = 1
    pp: Parallel = 1
    max_model_len: SeqLen | None = None
    gpu_memory_utilization: Utilization = 0.9
    max_num_batched_tokens: Annotated[int, Field(strict=True, ge=1, le=4_194_304)] | None = None
    max_num_seqs: Annotated[int, Field(strict=True, ge=1, le=65_536)] | None = None
    kv_cache_dtype: KvCacheDtype = KvCacheDtype.AUTO
    weights: WeightFormat = WeightFormat.BF16
    enforce_eager: bool = False
    vllm_version: str = version_text(vllm_versions.NEWEST)
    vllm_engine: Engine | None = None
    entrypoint: Entrypoint = Entrypoint.SERVE
    sampler: Sampler = Sampler.AUTO
    #: ``VLLM_ALLOW_LONG_MAX_MODEL_LEN=1``: a max_model_len past the model's max_position_embeddings is allowed
    allow_long_max_model_len: bool = False

    @field_validator("vllm_version")
    @classmethod
    def _known(cls, text: str) -> str:
        return version_text(vllm_versions.parse_version(text))

    def with_(self, **changes: Any) -> VllmSetup:
        return VllmSetup.model_validate({**self.model_dump(), **changes})


@dataclass(frozen=True, slots=True)
class Figure:
    """One number of the start-up with the formula that gave it and where that formula comes from."""

    name: str
    value: float
    formula: str
    detail: str
    source: str

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(frozen=True, slots=True)
class KvGroup:
    """Layers cached alike on this GPU: ``layers`` of them, a page of ``page_bytes`` per block each."""

    kind: str  # "full" or "sliding"
    window: int | None
    layers: int
    page_bytes: int


@dataclass(frozen=True)
class VllmStartup:
    """What one worker's start-up comes to (module docstring); bytes are per GPU."""

    model_id: str
    gpu_name: str
    setup: VllmSetup
    version: str
    engine: Engine
    max_model_len: int
    max_num_seqs: int
    max_num_batched_tokens: int
    chunked_prefill: bool
    block_size: int
    gpu_memory_bytes: int
    requested_bytes: int
    weights_bytes: int
    activation_peak_bytes: int
    non_torch_bytes: int
    cuda_graph_bytes: int
    cuda_graphs_in_budget: bool
    kv_cache_bytes: int
    kv_bytes_per_token: int
    num_blocks: int
    kv_cache_tokens: int
    max_concurrency: float
    groups: list[KvGroup]
    figures: list[Figure]
    log_lines: list[str]
    error: str = ""
    notes: list[str] = field(default_factory=list)

    @property
    def fits(self) -> bool:
        """vLLM starts: the cache holds one request of ``max_model_len`` tokens."""
        return not self.error

    def figure(self, name: str) -> Figure:
        return next(f for f in self.figures if f.name == name)


@dataclass(frozen=True, slots=True)
class Schedule:
    version: Version
    engine: Engine
    max_model_len: int
    max_num_seqs: int
    max_num_batched_tokens: int
    chunked: bool


@dataclass(frozen=True, slots=True)
class Blocks:
    num_blocks: int
    tokens: int
    concurrency: float
    groups: int
    group_size: int


