"""The result of a training estimate: the peak's terms at three levels, every phase, the verdict.

Three levels, because users confuse them:

* **allocated peak**: what ``torch.cuda.max_memory_allocated()`` reports, the sum of live tensors;
* **reserved**: plus the caching allocator's rounding and fragmentation; the ratio reserved / allocated of the
  eight real H200 runs in ``reference/gpu_llama.jsonl`` has median 1.069 (range 1.017-1.112);
* **device total**: plus the CUDA context and libraries outside the allocator (0.55 GB measured on an H200)
  and paged optimizer states (unified memory): what ``nvidia-smi`` shows.

The verdict compares the device total with the memory one process may use, ``GpuSpec.usable_bytes``: the whole
memory, except where the vendor documents a cap below it (Apple silicon: Metal's ``recommendedMaxWorkingSetSize``,
about 75-84% of the unified memory, engine/catalog/gpus.json ``usable_source``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from engine.results import Term, with_shares
from engine.specs import GpuSpec, ModelSpec, TrainingSetup
from engine.terms import TermName
from engine.training.layout import Layout
from engine.training.moments import Moment
from engine.training.states import ModelStates

#: median of max_memory_reserved / max_memory_allocated over the eight H200 runs in reference/gpu_llama.jsonl
RESERVED_RATIO = 1.069
#: under this share of the GPU's memory left over, a fit is "tight": allocator spikes, another process or a
#: longer batch can tip it over (the estimate itself is within about 1-5%: docs/accuracy.md)
TIGHT_HEADROOM = 0.10


class Verdict(StrEnum):
    """The estimate against the chosen GPU."""

    FITS = "fits"  # with headroom
    TIGHT = "tight"
    OVER = "over"  # does not fit


@dataclass(frozen=True, slots=True)
class Phase:
    """One moment of a training step and what is live then (bytes per term)."""

    name: str  # forward, backward, optimizer_step
    step: int  # 1: the first step; 2: every later step
    terms: dict[str, Any]  # floats, or numpy arrays in a sweep

    @property
    def total(self) -> Any:
        return sum(self.terms.values())


@dataclass(frozen=True, slots=True)
class RankEstimate:
    """One pipeline stage of a parallel layout, on one of its GPUs."""

    stage: int
    layers: tuple[int, int]  # first and last decoder layer it holds
    peak_allocated_bytes: int
    reserved_bytes: int
    device_bytes: int
    terms: tuple[Term, ...]
    peak_phase: str
    peak_step: int
    paged_bytes: int = 0  # paged optimizer states of this stage (unified memory: in the device total)

    @property
    def device_terms(self) -> tuple[Term, ...]:
        """The stage's allocated terms plus the allocator's reserve and the CUDA context: a bar that sums to its
        device total (``Estimate.device_terms``)."""
        return device_terms(self.terms, self.peak_allocated_bytes, self.reserved_bytes, self.device_bytes,
                            self.paged_bytes)


def device_terms(terms: tuple[Term, ...], allocated: int, reserved: int, device: int, paged: int) -> tuple[Term, ...]:
    """Allocated terms plus what separates them from the device total, so a bar sums to what nvidia-smi shows:
    the caching allocator's reserve and the CUDA context (module docstring)."""
    reserve = Term(TermName.ALLOCATOR_RESERVE, reserved - allocated,
                   f"allocated x ({RESERVED_RATIO} - 1)", "median reserved / allocated of 8 H200 runs "
                   "(reference/gpu_llama.jsonl)")
    context = Term(TermName.CUDA_CONTEXT, device - reserved,
                   "CUDA context and libraries outside the allocator" + (" + paged optimizer states"
                                                                          if paged else ""),
                   "measured 0.55 GB on an H200 (shared/ENVIRONMENT.md)")
    return with_shares((*terms, reserve, context))


@dataclass(frozen=True, slots=True)
class Estimate:
    """The answer for one model, setup and GPU."""

    model: ModelSpec
    setup: TrainingSetup
    gpu: GpuSpec
    total_params: int
    trainable_params: int
    terms: tuple[Term, ...]  # at the peak, summing to peak_allocated_bytes
    peak_allocated_bytes: int
    reserved_bytes: int
    device_bytes: int
    host_bytes: int  # one node's host RAM at its peak phase (engine/training/host.py)
    paged_bytes: int
    peak_phase: str
    peak_step: int
    moments: tuple[Moment, ...]  # the moments of steps 1 and 2 where the total can peak
    model_states_bytes_per_param: float
    #: bytes per moment and term (a numpy array, moments x terms, in the order of ``terms``); derived from the
    #: model, setup and GPU like every other field, so equality need not compare it
    values: Any = field(compare=False, repr=False)
    #: the model states of one GPU of the peak's stage (``engine.training.context.gpu_states``)
    states: ModelStates = field(compare=False, repr=False)
    layout: Layout | None = None  # a tensor / pipeline / context / expert parallel layout, if any
    ranks: tuple[RankEstimate, ...] = ()  # every pipeline stage (with a layout); the figures are the most loaded's
    most_loaded_stage: int | None = None
    #: per GPU: the saved activations that ``activation_offload`` moved to host RAM, at their largest (the end of
    #: the forward); ``host_bytes`` includes them for every GPU (``engine.training.terms.offloaded``)
    offloaded_bytes: int = 0
    #: the caching allocator's replay behind ``reserved_bytes`` and ``device_bytes``, with the addends outside it
    #: (``engine.allocator.total.DeviceTotal``), when they come from it; None: the ratio and context above
    device_detail: Any = field(default=None, compare=False, repr=False)

    @property
    def phases(self) -> tuple[Phase, ...]:
        """Every moment of steps 1 and 2 with what is live then (built on demand: estimates are made often)."""
        names = [t.name for t in self.terms]
        return tuple(Phase(mo.phase, mo.step, dict(zip(names, row.tolist(), strict=True)))
                     for mo, row in zip(self.moments, self.values, strict=True))

    @property
    def fits(self) -> bool:
        """Whether the device total fits the memory one process may use (module docstring)."""
        return self.device_bytes <= self.gpu.usable_bytes

    @property
    def device_terms(self) -> tuple[Term, ...]:
        """The allocated terms plus what separates them from the device total, so a bar sums to what
        nvidia-smi shows: the caching allocator's reserve and the CUDA context (module docstring); the replay's
        reserve and addends when the figures come from it (``device_detail``)."""
        if self.device_detail is not None:
            return with_shares((*self.terms, *self.device_detail.terms(self.peak_allocated_bytes)))
        return device_terms(self.terms, self.peak_allocated_bytes, self.reserved_bytes, self.device_bytes,
                            self.paged_bytes)

    @property
    def verdict(self) -> Verdict:
        if not self.fits:
            return Verdict.OVER
        return Verdict.TIGHT if self.headroom_bytes < TIGHT_HEADROOM * self.gpu.usable_bytes else Verdict.FITS

    @property
    def headroom_bytes(self) -> int:
        """Usable GPU memory left after the device total (negative: short by that much)."""
        return self.gpu.usable_bytes - self.device_bytes
