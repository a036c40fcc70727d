"""Which term each block live at the measured peak belongs to, read from its stack frames and its lifetime.

The terms are the training estimate's (``engine.terms``, scope training); no frame identifies
``sharding_buffers`` or ``parallel_buffers``. A block's phase comes from the frames it was allocated with
(``engine.snapshot.frames``); whether it **outlives** that phase (is still alive after the run of events it was
allocated in) separates what a phase keeps from its scratch space:

* setup (``Module._apply``, ``from_pretrained``...): weights;
* forward: the loss's tensors are logits; what outlives the forward is activations (saved for backward); the
  rest temporaries;
* backward: activations recomputed by checkpointing are activations; the loss's gradient nodes are logits;
  ``AccumulateGrad`` and whatever outlives the backward are gradients; the rest temporaries;
* optimizer step: what outlives it is optimizer states (AdamW's ``exp_avg``, ``exp_avg_sq``, created lazily in
  the first step); gradient clipping and the rest are temporaries;
* a block allocated before recording began has no frames: counted as weights when it lives to the end (the
  weights are usually loaded before recording; if recording started after the first optimizer step, the
  optimizer states are among them), unattributed when the trace frees it;
* frames outside these phases (the input batch, user code) and snapshots without frames: unattributed.

An allocation that carries a ``category`` says what it is, and that comes first: ``torch.profiler``'s snapshots
label each one (``torch/profiler/_memory_profiler.py``, ``Category``: parameter, gradient, optimizer_state,
activation, temporary, autograd_detail, input), and VRAM Lab's exported predictions label each with its term.
"""

from __future__ import annotations

from dataclasses import dataclass

from engine.snapshot.frames import Mark, Phase, format_frames, phase_of
from engine.snapshot.replay import Replay
from engine.snapshot.steps import Phases
from engine.terms import Scope, TermName, in_scope

#: the training terms, in their stacking order (no frame identifies sharding or parallelism buffers: only a
#: ``category`` does)
TERMS: tuple[str, ...] = in_scope(Scope.TRAINING)
#: an allocation's ``category`` -> its term (the profiler's categories, and the terms' own names)
CATEGORY_TERMS: dict[str, str] = {
    **{t: t for t in TERMS},
    "parameter": TermName.WEIGHTS, "gradient": TermName.GRADIENTS, "optimizer_state": TermName.OPTIMIZER_STATES,
    "activation": TermName.ACTIVATIONS, "temporary": TermName.TEMPORARIES, "autograd_detail": TermName.TEMPORARIES,
}
#: what no frame explains (not a memory term: the part of the measurement left unexplained)
UNATTRIBUTED = "unattributed"


@dataclass(frozen=True, slots=True)
class LiveBlock:
    """One block live at the peak: ``event`` is where it was allocated (-1: before recording)."""

    bytes: int
    term: str
    phase: str
    event: int
    freed_at: int  # the event that frees it (the number of events: never)
    frames: tuple[str, ...]
    basis: str  # how the term was found: "category", "frames", "before_recording" or "none"


def _term(phase: Phase, mark: Mark, outlives: bool) -> str:
    t = TermName
    if phase is Phase.SETUP:
        return t.WEIGHTS
    if phase is Phase.FORWARD:
        return t.LOGITS if mark & Mark.LOSS else t.ACTIVATIONS if outlives else t.TEMPORARIES
    if phase is Phase.BACKWARD:
        if mark & Mark.RECOMPUTE:
            return t.ACTIVATIONS
        if mark & Mark.LOSS:
            return t.LOGITS
        return t.GRADIENTS if mark & Mark.GRAD_ACCUMULATE or outlives else t.TEMPORARIES
    if phase is Phase.OPTIMIZER_STEP:
        return t.OPTIMIZER_STATES if outlives and not mark & Mark.CLIP else t.TEMPORARIES
    return UNATTRIBUTED


def classify(r: Replay, ph: Phases, k: int) -> tuple[str, Phase, str]:
    """The term, phase and basis (``LiveBlock.basis``) of replay element ``k`` (module docstring)."""
    start, end = int(r.starts[k]), int(r.ends[k])
    mark = Mark(int(ph.mark[k]))
    if start >= 0:
        phase = Phase(int(ph.phase[k]))
        by_category = category_term(r, k)
        if by_category is not None:
            return by_category, phase, "category"
        term = _term(phase, mark, end > int(ph.run_end[start]))
        return term, phase, "frames" if term != UNATTRIBUTED else "none"
    if end < r.events:  # alive from the start, freed in the trace: what it was is not recorded
        return UNATTRIBUTED, Phase.UNKNOWN, "none"
    if r.frames[k]:  # a block whose alloc fell out of the trace (max_entries) but kept its frames
        phase = phase_of(mark, True, False)
        term = _term(phase, mark, True)
        return term, phase, "frames" if term != UNATTRIBUTED else "none"
    return TermName.WEIGHTS, Phase.UNKNOWN, "before_recording"


def category_term(r: Replay, k: int) -> str | None:
    """The term an allocation's ``category`` names, if it has one that names a term."""
    e = r.trace[int(r.starts[k])]
    category = e.get("category") if type(e) is dict else None
    return CATEGORY_TERMS.get(category) if type(category) is str else None


def live_blocks(r: Replay, ph: Phases, event: int) -> list[LiveBlock]:
    """Every block live just after ``event``, largest first."""
    out = []
    for k in r.live_after(event).tolist():
        term, phase, basis = classify(r, ph, k)
        out.append(LiveBlock(int(r.sizes[k]), term, phase.label, int(r.starts[k]), int(r.ends[k]),
                             tuple(format_frames(r.frames[k])), basis))
    out.sort(key=lambda b: (-b.bytes, b.event))
    return out


def by_term(blocks: list[LiveBlock]) -> dict[str, int]:
    """Bytes per term (every term, then ``unattributed``), summing to the blocks' total."""
    out = dict.fromkeys((*TERMS, UNATTRIBUTED), 0)
    for b in blocks:
        out[b.term] += b.bytes
    return out


def explain(blocks: list[LiveBlock], stacks: str) -> str:
    """One sentence on how ``by_term`` was attributed, with what could not be."""
    def total(basis: str) -> int:
        return sum(b.bytes for b in blocks if b.basis == basis)

    parts = []
    if total("category"):
        parts.append(f"{total('category'):,} bytes were attributed by the category their allocation carries "
                     "(torch.profiler's, or the term of a VRAM Lab prediction)")
    if stacks == "none":
        parts.append("the snapshot holds no stack frames (recorded with context=None or stacks=None)")
    elif total("frames"):
        parts.append(f"{total('frames'):,} bytes by the phase their allocation's stack frames show (module setup "
                     "-> weights; nn.Module calls -> forward; the autograd engine, or no Python frames, -> "
                     "backward; torch.optim -> optimizer step) and by whether they outlived it (forward: "
                     "activations, else temporaries; backward: gradients, else temporaries; optimizer step: "
                     "optimizer states, else temporaries; loss functions: logits)")
    if total("before_recording"):
        parts.append(f"{total('before_recording'):,} bytes were allocated before recording began and are counted "
                     "as weights (they include the optimizer states if recording started after the first "
                     "optimizer step)")
    lost = total("none")
    parts.append(f"{lost:,} bytes are unattributed (frames outside a training step, or blocks allocated before "
                 "recording and freed during it)" if lost else "nothing is left unattributed")
    text = "; ".join(parts)
    return f"Of the blocks live at the peak, {text}."
