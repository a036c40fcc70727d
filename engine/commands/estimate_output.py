"""``python -m engine estimate``'s output: the JSON (the scripting contract of issue 3) and the text.

JSON keys are a stable contract: scripts rely on them. ``estimate --from-config`` adds its own keys
(``engine.commands.imported``).
"""

from __future__ import annotations

from typing import Any

from engine.commands.host_report import host_json, host_text
from engine.training import Estimate
from engine.training.host import host_of
from engine.training.plan import weights_per_gpu
from engine.units import Unit, format_bytes, format_count


def weights_breakdown(e: Estimate) -> dict[str, int]:
    """The weights term at the peak by how it is held: the stored parts (``engine.training.plan.weights_per_gpu``)
    and, when the peak holds any, autocast's 16-bit copies of fp32 weights and adapters that the matmuls saved for
    backward (``autocast_copies``; engine.training.terms ``weights``), so that the parts sum to the term."""
    parts = weights_per_gpu(e.model, e.setup)
    copies = next(t.bytes for t in e.terms if t.name == "weights") - sum(parts.values())
    return {**parts, "autocast_copies": copies} if copies > 0 else parts


def to_json(e: Estimate) -> dict[str, Any]:
    """The contract: the keys of issue 3 plus details (terms_detail, phases, verdict)."""
    data: dict[str, Any] = {
        "model": e.model.id,
        "gpu": e.gpu.id,
        "setup": e.setup.as_json(),
        "total_params": e.total_params,
        "trainable_params": e.trainable_params,
        "trainable_share": e.trainable_params / e.total_params,
        "peak_allocated_bytes": e.peak_allocated_bytes,
        "reserved_bytes": e.reserved_bytes,
        "device_bytes": e.device_bytes,
        "host_bytes": e.host_bytes,  # = host.per_node_bytes
        "paged_bytes": e.paged_bytes,
        "peak_phase": e.peak_phase,
        "peak_step": e.peak_step,
        "terms": {t.name: t.bytes for t in e.terms},
        "weights_breakdown": weights_breakdown(e),
        "terms_detail": [t.as_dict() for t in e.terms] + _device_detail(e),
        "phases": [{"phase": p.name, "step": p.step, "bytes": round(p.total)} for p in e.phases],
        "gpu_memory_bytes": e.gpu.memory_bytes,
        "fits": e.fits,
        "verdict": e.verdict.value,
        "headroom_bytes": e.headroom_bytes,
        **(layout_json(e) if e.layout is not None else {}),
        "host": host_json(host_of(e)),
    }
    if e.setup.activation_offload:  # only then, so that every other output stays as it was
        data["offloaded_bytes"] = e.offloaded_bytes
    if (disk := host_of(e).disk_bytes):  # NVMe offload (ZeRO-Infinity): one node's states on disk; only then
        data["disk_bytes"] = disk
    if e.model.notes:  # an imported config's assumptions (an unknown model_type's defaults, ...)
        data["model_notes"] = list(e.model.notes)
    if e.model.vision_params:  # a multimodal checkpoint's vision tower and projector, not costed
        data["vision_params"] = e.model.vision_params
    return data


def _device_detail(e: Estimate) -> list[dict[str, Any]]:
    """The reserve and the addends outside the allocator, each with its source, when the device total comes from
    the allocator's replay (``engine.allocator.total``; issue 26)."""
    d = e.device_detail
    return [t.as_dict() for t in d.terms(e.peak_allocated_bytes)] if d is not None else []


def layout_json(e: Estimate) -> dict[str, Any]:
    """The layout and every pipeline stage (present only when a parallel flag was given)."""
    lay = e.layout
    assert lay is not None
    return {
        "layout": {"dp": lay.dp, "tp": lay.tp, "pp": lay.pp, "cp": lay.cp, "ep": lay.ep, "etp": lay.etp,
                   "sequence_parallel": lay.sequence_parallel, "micro_batches": lay.micro_batches,
                   "schedule": lay.schedule.value, "virtual_stages": lay.virtual_stages,
                   "pipeline_bubble": lay.bubble},
        "ranks": [{"stage": r.stage, "layers": list(r.layers), "peak_allocated_bytes": r.peak_allocated_bytes,
                   "reserved_bytes": r.reserved_bytes, "device_bytes": r.device_bytes,
                   "terms": {t.name: t.bytes for t in r.terms}} for r in e.ranks],
        "most_loaded_stage": e.most_loaded_stage,
    }


def _replayed(e: Estimate) -> str:
    d = e.device_detail
    if d is None:
        return ""
    cached = format_bytes(d.fragmentation, Unit.GB)
    return f"  (caching allocator replayed: {cached} cached in no live block at the peak)"


def to_text(e: Estimate) -> str:
    u = Unit.GB
    lines = [
        f"{e.model.label}: {e.setup.method.value}, {e.setup.precision.value}, {e.setup.optimizer.value}, "
        f"batch {e.setup.batch} x {e.setup.seq_len:,} tokens, {e.setup.gpus} GPU(s) {e.setup.sharding.value}"
        + (f" (FSDP{e.setup.fsdp_version})" if e.setup.fsdp_version else ""),
        f"parameters {format_count(e.total_params)}, trainable {format_count(e.trainable_params)} "
        f"({100 * e.trainable_params / e.total_params:.2f}%)",
    ]
    lines += [f"  note: {n}" for n in e.model.notes]
    lines += [f"  {t.name:<17} {format_bytes(t.bytes, u):>12}" for t in e.terms if t.bytes]
    step = "first step" if e.peak_step == 1 else "later steps"
    lines += [
        f"allocated peak   {format_bytes(e.peak_allocated_bytes, u):>12}  ({e.peak_phase}, {step})",
        f"reserved         {format_bytes(e.reserved_bytes, u):>12}" + _replayed(e),
        f"device total     {format_bytes(e.device_bytes, u):>12}  of {e.gpu.name}: "
        + ("fits" if e.fits else f"short by {format_bytes(-e.headroom_bytes, u)}"),
    ]
    if e.layout is not None:
        lay = e.layout
        lines.append(f"layout dp {lay.dp} x tp {lay.tp} x pp {lay.pp} x cp {lay.cp}, ep {lay.ep}"
                     + (" + sequence parallel" if lay.sequence_parallel else "")
                     + (f", {lay.micro_batches} micro-batches {lay.schedule.value}" if lay.pp > 1 else ""))
        for r in e.ranks:
            mark = "  <- most loaded" if r.stage == e.most_loaded_stage else ""
            lines.append(f"  stage {r.stage} (layers {r.layers[0]}-{r.layers[1]}) "
                         f"{format_bytes(r.device_bytes, u):>12}{mark}")
    lines += host_text(host_of(e))
    return "\n".join(lines)
