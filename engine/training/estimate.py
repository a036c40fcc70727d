"""Per-GPU peak memory of one training step, phase by phase.

A step runs forward (activations pile up), backward (layers in reverse: each layer's activations are freed as its
gradients appear), then the optimizer step. The peak is the largest of these moments, evaluated exactly where a
piecewise-linear sweep can peak: the start and end of each run of identical layers. The first step differs from
later ones: optimizer states are created during its optimizer step, so forward and backward of step 1 run without
them (PyTorch creates AdamW's state lazily at the first ``step()``).

The result, and its three levels (allocated, reserved, device total), is ``engine.training.result.Estimate``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from engine.params import count_params, layer_params, lora_targets, norm_params
from engine.specs import Checkpointing, GpuSpec, Method, ModelSpec, Sharding, TrainingSetup
from engine.training import formulas
from engine.training.activations import ActivationCoeffs, LayerCoeffs, activation_coeffs
from engine.training.result import RESERVED_RATIO, TERM_ORDER, Estimate, Phase, Verdict
from engine.training.sharding import sharding_buffers
from engine.training.states import ModelStates, grad_dtype_bytes, model_states

__all__ = ["RESERVED_RATIO", "TERM_ORDER", "Estimate", "Phase", "Verdict", "estimate"]


@dataclass(frozen=True, slots=True)
class _Grads:
    head: int
    per_layer: tuple[int, ...]  # per segment, one layer's gradients
    embed: int


def _grads(m: ModelSpec, s: TrainingSetup, bytes_per: int, div: int) -> _Grads:
    """Gradient bytes by where backward creates them: head first, then layers top-down, embedding last."""
    def per_gpu(n: int) -> int:
        return -(-n * bytes_per // div)

    starts = _segment_starts(m)
    if s.method is not Method.FULL:  # one layer's adapters
        per = (sum(x.lora_params(s.lora.rank) for x in lora_targets(m, i, s.lora.targets)) for i in starts)
        return _Grads(0, tuple(per_gpu(p) for p in per), 0)
    pc = count_params(m)
    head = pc.lm_head + norm_params(m) + (pc.embedding if m.tie_embeddings else 0)
    embed = 0 if m.tie_embeddings else pc.embedding
    return _Grads(per_gpu(head), tuple(per_gpu(layer_params(m, i)) for i in starts), per_gpu(embed))


def _segment_starts(m: ModelSpec) -> tuple[int, ...]:
    """First layer of each run of identical layers (MoE models may start with dense layers)."""
    first = m.moe.first_dense_layers if m.moe is not None else 0
    return (0, first) if 0 < first < m.num_layers else (0,)


_Static = tuple[ModelStates, ActivationCoeffs, _Grads, dict[str, float], formulas.Texts]
_STATIC_CACHE: dict[tuple[object, ...], _Static] = {}


def _static_key(m: ModelSpec, s: TrainingSetup) -> tuple[object, ...]:
    """Every setup field except batch, sequence length and accumulation (they only scale activations)."""
    return (m, s.method, s.precision, s.optimizer, s.attention, s.checkpointing, s.gpus, s.sharding,
            s.offload_optimizer, s.offload_params, s.lora, s.quant)


def _static(m: ModelSpec, s: TrainingSetup) -> _Static:
    """Everything that does not depend on batch and sequence length, cached (sweeps and drags reuse it)."""
    key = _static_key(m, s)
    hit = _STATIC_CACHE.get(key)
    if hit is None:
        st = model_states(m, s)
        g = _grads(m, s, grad_dtype_bytes(s), st.divisor_grads)
        ac = activation_coeffs(m, s)
        hit = st, ac, g, sharding_buffers(m, s, st), formulas.texts(m, s, st, ac)
        if len(_STATIC_CACHE) > 1024:
            _STATIC_CACHE.clear()
        _STATIC_CACHE[key] = hit
    return hit


def _saved(lc: LayerCoeffs, tokens: Any, bs2: Any) -> Any:
    """Bytes one layer saves for its backward at this batch and sequence length."""
    return lc.saved * tokens + lc.saved_bs2 * bs2


def _kept(lc: LayerCoeffs, gc: bool, tokens: Any, bs2: Any) -> Any:
    """Bytes one layer keeps between its forward and its backward (only its input when checkpointed)."""
    return lc.checkpoint * tokens if gc else _saved(lc, tokens, bs2)


def _layer_sweep(gc: bool, ac: ActivationCoeffs, g: _Grads, tokens: Any, bs2: Any) -> list[dict[str, Any]]:
    """Backward through the layers, top-down: the moments where the running total can peak (the first and last
    layer of each run of identical layers: between them the total changes linearly)."""
    kept = [(n, _kept(lc, gc, tokens, bs2), 0 if gc else lc.weight_copies, lc) for n, lc in ac.segments]
    out: list[dict[str, Any]] = []
    done_grads: Any = float(g.head)
    remaining: Any = sum(n * k for n, k, _, _ in kept)
    remaining_copies = sum(n * c for n, _, c, _ in kept)
    for idx in reversed(range(len(kept))):
        n, k, copies, lc = kept[idx]
        current = _saved(lc, tokens, bs2) if gc else 0.0  # the checkpointed layer, recomputed
        current_copies = lc.weight_copies if gc else 0
        temp = lc.transient * tokens + lc.transient_bs2 * bs2 + lc.dequantized
        for j in (0, n - 1):
            out.append({
                "gradients": done_grads + j * g.per_layer[idx],
                "activations": remaining - j * k + current,
                "weights": remaining_copies - j * copies + current_copies,
                "temporaries": temp,
            })
        done_grads += n * g.per_layer[idx]
        remaining -= n * k
        remaining_copies -= n * copies
    return out


def _moments(m: ModelSpec, s: TrainingSetup, tokens: Any, bs2: Any) -> list[tuple[str, dict[str, Any]]]:
    """What lives beside the persistent states at each candidate moment of one step."""
    st, ac, g, _, _ = _static(m, s)
    gc = s.checkpointing is Checkpointing.FULL
    all_kept = sum(n * _kept(lc, gc, tokens, bs2) for n, lc in ac.segments) + ac.head_saved * tokens
    all_copies = sum(n * lc.weight_copies for n, lc in ac.segments) + ac.head_copies
    backward_copies = ac.head_copies if gc else all_copies  # checkpointed layers drop theirs after forward
    tied = m.tie_embeddings and s.method is Method.FULL  # the shared weight's embedding gradient comes last
    tied_grad = count_params(m).embedding * grad_dtype_bytes(s) // st.divisor_grads if tied else 0
    return [
        ("forward", {"activations": all_kept, "logits": ac.logits_forward * tokens, "weights": all_copies}),
        ("backward", {"activations": all_kept, "logits": ac.logits_backward * tokens, "weights": backward_copies}),
        *(("backward", live) for live in _layer_sweep(gc, ac, g, tokens, bs2)),
        ("backward", {"gradients": float(st.gradients), "temporaries": ac.end_transient * tokens + tied_grad}),
    ]


def _phases(m: ModelSpec, s: TrainingSetup, tokens: Any = None, bs2: Any = None) -> tuple[list[Phase], ModelStates]:
    """Every moment of steps 1 and 2. ``tokens`` (b*s) and ``bs2`` (b*s^2) may be numpy arrays (sweeps)."""
    st, _, _, buffers, _ = _static(m, s)
    if tokens is None:
        tokens, bs2 = s.batch * s.seq_len, s.batch * s.seq_len * s.seq_len
    moments = _moments(m, s, tokens, bs2)
    phases: list[Phase] = []
    for step in (1, 2):  # optimizer states exist from the first optimizer step on
        persistent = {"weights": float(st.weights), "optimizer_states": float(st.optimizer_states if step == 2 else 0)}
        for name, live in moments:
            terms: dict[str, Any] = dict(persistent)
            for k, v in live.items():
                terms[k] = terms.get(k, 0.0) + v
            terms["sharding_buffers"] = buffers.get(name, 0.0)
            if s.grad_accum > 1:  # later micro-batches run with the earlier ones' gradients held (and added to)
                terms["gradients"] = float(st.gradients)
            phases.append(Phase(name, step, terms))
        opt = dict(persistent, optimizer_states=float(st.optimizer_states), gradients=float(st.step_gradients))
        opt["sharding_buffers"] = buffers.get("optimizer_step", 0.0)
        phases.append(Phase("optimizer_step", step, opt))
    return phases, st


def estimate(m: ModelSpec, s: TrainingSetup, gpu: GpuSpec) -> Estimate:
    """Per-GPU memory of one training step of ``m`` under ``s`` on ``gpu`` (module docstring: method)."""
    phases, st = _phases(m, s)
    peak = max(phases, key=lambda p: (p.total, p.step))  # a tie means every step peaks alike: say 'later'
    terms = formulas.describe(_static(m, s)[4], peak.terms, TERM_ORDER)
    allocated = sum(t.bytes for t in terms)
    reserved = round(allocated * RESERVED_RATIO)
    c = st.counts
    return Estimate(
        model=m,
        setup=s,
        gpu=gpu,
        total_params=c.total,
        trainable_params=c.trainable,
        terms=terms,
        peak_allocated_bytes=allocated,
        reserved_bytes=reserved,
        device_bytes=reserved + gpu.context_bytes + st.paged_states,
        host_bytes=st.host * s.gpus if s.sharding is not Sharding.NONE else st.host,
        paged_bytes=st.paged_states,
        peak_phase=peak.name,
        peak_step=peak.step,
        phases=tuple(phases),
        model_states_bytes_per_param=(st.weights + st.gradients + st.optimizer_states) / max(c.total, 1),
    )
