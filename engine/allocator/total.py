"""The device total of an estimate: the caching allocator's simulated reserve plus what lies outside it.

``device_total(e)`` replays the estimate's two steps through the allocator model (``engine.allocator.step``,
with the setup's ``PYTORCH_CUDA_ALLOC_CONF``: ``e.setup.alloc_conf``) and adds the CUDA context and NCCL's
buffers (``engine.allocator.device``):

    device = simulated reserved peak + CUDA context + NCCL buffers + paged optimizer states

When that does not fit the GPU, the replay is run again on a device of the GPU's usable memory less what lies
outside the allocator: the allocator then releases its cache and retries a failed ``cudaMalloc`` as PyTorch's
does, and if the step still runs out of memory the first replay's figures stand (it does not fit).

The replay covers the steps the engine builds for one GPU without a tensor, pipeline, context or expert
parallel layout (single GPU, DDP, ZeRO 1-3 and FSDP over data-parallel GPUs) on a GPU that runs PyTorch's CUDA
caching allocator (NVIDIA; AMD's HIP build is the same code, hipified). Elsewhere ``device_total`` returns None
with the reason (``not_simulated``) and the estimate keeps its own figures.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from engine.allocator.caching import OutOfMemory
from engine.allocator.conf import settings, to_text
from engine.allocator.device import Addend, cublas_workspace_bytes, cuda_context, nccl_buffers
from engine.allocator.rules import SOURCE
from engine.allocator.step import Replay, replay
from engine.results import Term, with_shares
from engine.terms import TermName
from engine.training.plan import resolve
from engine.training.result import Estimate


@dataclass(frozen=True, slots=True)
class DeviceTotal:
    """The simulated reserve and the addends outside the allocator, for one estimate."""

    reserved: int
    device: int
    fragmentation: int  # cached bytes in no live block at the allocated peak
    workspaces: int  # cuBLAS workspaces inside the reserve
    settings: str  # the PYTORCH_CUDA_ALLOC_CONF the replay ran with ("": PyTorch's defaults)
    released: bool  # the replay fitted only after releasing the cache (the GPU's memory as the limit)
    outside: tuple[Addend, ...]
    replay: Replay

    def terms(self, allocated: int) -> tuple[Term, ...]:
        """The reserve and each addend outside it as terms, for a bar or ``terms_detail`` that sums from the
        allocated peak to the device total."""
        conf = self.settings or "PyTorch's defaults"
        reserve = Term(TermName.ALLOCATOR_RESERVE, self.reserved - allocated,
                       f"steps 1 and 2 replayed through the caching allocator ({conf}): reserved peak - allocated "
                       f"peak; {self.fragmentation:,} bytes cached in no live block at the allocated peak, "
                       f"{self.workspaces:,} in cuBLAS workspaces", SOURCE, "allocator")
        out = [Term(TermName.CUDA_CONTEXT, a.bytes, a.formula, a.source, a.name) for a in self.outside if a.bytes]
        return (reserve, *out)


def not_simulated(e: Estimate) -> str:
    """Why ``e`` is not replayed through the allocator model ("" when it is)."""
    if e.gpu.vendor not in ("NVIDIA", "AMD") or e.gpu.unified_memory:
        return f"{e.gpu.name} does not run PyTorch's CUDA caching allocator"
    if e.setup.layout_active:
        return "tensor, pipeline, context and expert parallel layouts are not replayed yet"
    return ""


def _replay(e: Estimate, capacity: int | None) -> Replay:
    return replay(e.model, resolve(e.model, e.setup), e.setup, settings(e.setup.alloc_conf),
                  cublas_workspace_bytes(e.gpu), capacity=capacity, device_total=e.gpu.memory_bytes)


def device_total(e: Estimate) -> DeviceTotal | None:
    """The simulated device total of ``e`` (module docstring), or None where it is not simulated."""
    if not_simulated(e):
        return None
    outside: tuple[Addend, ...] = (cuda_context(e.gpu), nccl_buffers(e.gpu, e.setup))
    beyond = sum(a.bytes for a in outside) + e.paged_bytes
    if e.paged_bytes:
        outside += (Addend("paged_states", e.paged_bytes, "paged optimizer states (CUDA unified memory)",
                           "bitsandbytes paged optimizers: cudaMallocManaged, outside the allocator"),)
    r = _replay(e, None)
    released = False
    if r.peak_reserved + beyond > e.gpu.usable_bytes:
        try:
            r = _replay(e, e.gpu.usable_bytes - beyond)
            released = True
        except OutOfMemory:
            pass
    return DeviceTotal(r.peak_reserved, r.peak_reserved + beyond, r.fragmentation, r.workspaces,
                       to_text(e.setup.alloc_conf), released, outside, r)


def with_device_total(e: Estimate) -> Estimate:
    """``e`` with its reserved bytes and device total from the simulation (unchanged where none applies)."""
    d = device_total(e)
    if d is None:
        return e
    return replace(e, reserved_bytes=max(d.reserved, e.peak_allocated_bytes), device_bytes=d.device, device_detail=d)


def device_terms(e: Estimate) -> tuple[Term, ...]:
    """The allocated terms, then the reserve and the addends (``Estimate.device_terms`` with the simulation)."""
    d = e.device_detail
    if not isinstance(d, DeviceTotal):
        return e.device_terms
    return with_shares((*e.terms, *d.terms(e.peak_allocated_bytes)))
