"""Which term each block live at the measured peak belongs to, read from its stack frames and its lifetime.

The terms are the training estimate's (``engine.terms.TermName``), less ``sharding_buffers``, which no frame
identifies. A block's phase comes from the frames it was allocated with (``engine.snapshot.frames``);
whether it **outlives** that phase (is still alive after the run of events it was allocated in) separates what a
phase keeps from its scratch space:

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
"""

from __future__ import annotations

from dataclasses import dataclass

from engine.snapshot.frames import Mark, Phase, format_frames, phase_of
from engine.snapshot.replay import Replay
from engine.snapshot.steps import Phases
from engine.terms import TermName

TERMS: tuple[str, ...] = (TermName.WEIGHTS, TermName.GRADIENTS, TermName.OPTIMIZER_STATES, TermName.ACTIVATIONS,
                          TermName.LOGITS, TermName.TEMPORARIES)
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


def classify(r: Replay, ph: Phases, k: int) -> tuple[str, Phase]:
    """The term and phase of replay element ``k`` (module docstring)."""
    start, end = int(r.starts[k]), int(r.ends[k])
    mark = Mark(int(ph.mark[k]))
    if start >= 0:
        phase = Phase(int(ph.phase[k]))
        return _term(phase, mark, end > int(ph.run_end[start])), phase
    if end < r.events:  # alive from the start, freed in the trace: what it was is not recorded
        return UNATTRIBUTED, Phase.UNKNOWN
    if r.frames[k]:  # a block whose alloc fell out of the trace (max_entries) but kept its frames
        phase = phase_of(mark, True, False)
        return _term(phase, mark, True), phase
    return TermName.WEIGHTS, Phase.UNKNOWN


def live_blocks(r: Replay, ph: Phases, event: int) -> list[LiveBlock]:
    """Every block live just after ``event``, largest first."""
    out = []
    for k in r.live_after(event).tolist():
        term, phase = classify(r, ph, k)
        out.append(LiveBlock(int(r.sizes[k]), term, phase.label, int(r.starts[k]), int(r.ends[k]),
                             tuple(format_frames(r.frames[k]))))
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
    before = sum(b.bytes for b in blocks if b.event < 0 and b.term == TermName.WEIGHTS and not b.frames)
    lost = sum(b.bytes for b in blocks if b.term == UNATTRIBUTED)
    if stacks == "none":
        how = ("the snapshot holds no stack frames (recorded with context=None or stacks=None), so only blocks "
               "allocated before recording could be attributed (as weights)")
    else:
        how = ("each block live at the peak was attributed by the phase its allocation's stack frames show "
               "(module setup -> weights; nn.Module calls -> forward; the autograd engine, or no Python frames, "
               "-> backward; torch.optim -> optimizer step) and by whether it outlived that phase (forward: "
               "activations, else temporaries; backward: gradients, else temporaries; optimizer step: optimizer "
               "states, else temporaries; loss functions: logits)")
    parts = [how[0].upper() + how[1:]]
    if before:
        parts.append(f"{before:,} bytes were allocated before recording began and are counted as weights (they "
                     "include the optimizer states if recording started after the first optimizer step)")
    parts.append(f"{lost:,} bytes are unattributed (frames outside a training step, or blocks allocated before "
                 "recording and freed during it)" if lost else "nothing is left unattributed")
    return "; ".join(parts) + "."
