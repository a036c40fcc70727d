"""The seed's three levers, each moving its own term: switched off and on for one model, setup and GPU.

* **LoRA / QLoRA** shrink what is *trained*: gradients and optimizer states follow the adapters only
  (Hu et al. 2021, arXiv:2106.09685, s4.1); QLoRA also stores the frozen weights in 4-bit NF4
  (Dettmers et al. 2023, arXiv:2305.14314, s3). Steps: full -> LoRA -> QLoRA.
* **FlashAttention / checkpointing** shrink *activations*: FlashAttention never writes the s x s scores to HBM
  (Dao et al. 2022, arXiv:2205.14135, s3.1); full checkpointing keeps each layer's input and recomputes the rest
  in backward (Chen et al. 2016, arXiv:1604.06174). Steps: eager, no checkpointing -> flash -> flash + full.
* **ZeRO-3 / FSDP** splits weights, gradients and optimizer states over N GPUs, 16 Psi / N with mixed-precision
  AdamW; activations do not shrink (Rajbhandari et al. 2020, arXiv:1910.02054, s5). Steps: the setup without
  ZeRO-3 (one GPU if it was ZeRO-3) -> ZeRO-3 over N GPUs (the setup's N, else ``DEFAULT_ZERO3_GPUS``).

* **Long context: chunked loss / activation offload** shrinks *logits* and *activations*, the terms that grow with
  the sequence and that LoRA does not touch: a chunked loss (TRL's chunked_nll, SFTTrainer's default in TRL 1.7
  to 1.14) runs the output layer and the loss on 256-token checkpointed chunks, so nothing of the vocabulary's
  size is whole; a fused linear cross-entropy (Liger) does the same in a CUDA kernel; activation offloading
  (torchtune / TRL OffloadActivations) moves the saved activations to host RAM (``engine.training.loss``,
  ``engine.training.terms.offloaded``). Steps: standard loss -> chunked -> fused-linear-ce -> fused-linear-ce +
  offload. torchtune's CEWithChunkedOutputLoss (``chunked-output``) is not a step: it keeps the fp32
  log-probabilities whole (about half of standard), where chunked keeps one chunk, and saves only chunked's rerun
  of the output layer (about 2% of the compute of an 8B model). Not one of
  the seed's three cards (:func:`levers`); the GUI shows it as a fourth card when logits or activations are the
  biggest term (:func:`long_context_leads`).

Every number is an :func:`engine.training.estimate` of the setup with the lever's fields changed; nothing else.
The rule under the cards, "find the biggest term first, then pick the lever that moves it", is
:func:`biggest_term` and :func:`advice`. Trainable shares and ZeRO-3's communication live in
``engine.lever_facts``.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from pydantic import ValidationError

from engine.results import Term
from engine.specs import Attention, Checkpointing, GpuSpec, Loss, Method, ModelSpec, Sharding, TrainingSetup
from engine.terms import TermName
from engine.training.estimate import Estimate, estimate
from engine.training.layout import LayoutError
from engine.training.refusals import OptionError
from engine.training.stacks import StackError

#: GPUs the ZeRO-3 card splits over when the setup has one GPU (one node of eight).
DEFAULT_ZERO3_GPUS = 8


class LeverKind(StrEnum):
    LORA = "lora"  # LoRA / QLoRA
    ACTIVATIONS = "activations"  # FlashAttention / checkpointing
    ZERO3 = "zero3"  # ZeRO-3 / FSDP
    LONG_CONTEXT = "long-context"  # chunked loss / activation offload


#: The seed's three cards, in its order (the long-context lever is a fourth, shown when it leads).
SEED_KINDS = (LeverKind.LORA, LeverKind.ACTIVATIONS, LeverKind.ZERO3)
#: Every position of each card, in order; a setup that cannot take one (``_variant``, a layout) leaves it out of
#: ``Lever.steps``, so a step's place there need not be its position here.
POSITIONS: dict[LeverKind, tuple[str, ...]] = {
    LeverKind.LORA: ("full", "lora", "qlora"),
    LeverKind.ACTIVATIONS: ("eager", "flash", "flash-checkpointing"),
    LeverKind.ZERO3: ("off", "zero3"),
    LeverKind.LONG_CONTEXT: ("standard", "chunked", "fused-linear-ce", "fused-linear-ce-offload"),
}
#: The terms that grow with the sequence and that the long-context lever moves.
LONG_CONTEXT_TERMS = (TermName.LOGITS, TermName.ACTIVATIONS)


@dataclass(frozen=True, slots=True)
class LeverStep:
    """One position of a lever: its setup, the estimate, and the terms it moves relative to the step before."""

    key: str  # full, lora, qlora | eager, flash, flash-checkpointing | off, zero3
    setup: TrainingSetup
    estimate: Estimate
    touches: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class TermChange:
    """One term before and after: at the allocated peak, and at its largest moment of the step."""

    name: str
    before: int
    after: int
    largest_before: int  # e.g. gradients, absent at a peak that falls at the start of backward
    largest_after: int
    touched: bool  # the lever is meant to move this term


@dataclass(frozen=True, slots=True)
class Lever:
    kind: LeverKind
    steps: tuple[LeverStep, ...]
    current: int | None  # index of the step that is the scenario's own setup, if one is

    def index(self, key: str) -> int | None:
        """The place in ``steps`` of the position ``key``, None where the setup cannot take it."""
        return next((i for i, st in enumerate(self.steps) if st.key == key), None)

    @property
    def touches(self) -> tuple[str, ...]:
        names = [t.name for t in self.steps[0].estimate.terms]
        return tuple(t for t in names if any(t in s.touches for s in self.steps))

    def changes(self, a: int = 0, b: int = -1) -> tuple[TermChange, ...]:
        """Per term, step ``a`` -> step ``b`` (default: off -> fully on)."""
        ea, eb = self.steps[a].estimate, self.steps[b].estimate
        lo, hi = sorted((a % len(self.steps), b % len(self.steps)))
        moved = {t for s in self.steps[lo + 1 : hi + 1] for t in s.touches}
        pa, pb = peak_terms(ea), peak_terms(eb)
        la, lb = largest_terms(ea), largest_terms(eb)
        return tuple(TermChange(n, pa[n], pb.get(n, 0), la[n], lb.get(n, 0), n in moved) for n in pa)


def peak_terms(e: Estimate) -> dict[str, int]:
    """Bytes per term at the allocated peak (they sum to ``peak_allocated_bytes``)."""
    return {t.name: t.bytes for t in e.terms}


def largest_terms(e: Estimate) -> dict[str, int]:
    """Each term's largest size over the step's phases (not simultaneous: they need not sum to the peak)."""
    return {t.name: round(float(v)) for t, v in zip(e.terms, e.values.max(axis=0), strict=True)}


#: a lever's step: its key, its setup (None where the setup refuses the change: ``_variant``), the terms it moves
Step = tuple[str, "TrainingSetup | None", tuple[str, ...]]


def _lever(kind: LeverKind, m: ModelSpec, s: TrainingSetup, gpu: GpuSpec, steps: list[Step]) -> Lever:
    """The lever's steps, each estimated; a step the setup cannot take (``_variant``) or the model cannot take under
    the setup's parallel layout (QLoRA's 4-bit base split by tensor or pipeline parallelism:
    ``engine.training.layout``) or its stack cannot run (``engine.training.stacks``) is left out."""
    built = tuple(LeverStep(k, st, e, t) for k, st, t in steps
                  if st is not None and (e := _estimate_or_none(m, st, gpu)) is not None)
    current = next((i for i, st in enumerate(built) if st.setup == s), None)
    return Lever(kind, built, current)


def _variant(s: TrainingSetup, **changes: Any) -> TrainingSetup | None:
    """``s`` with ``changes``, or None where ``TrainingSetup``'s own checks refuse the result (DoRA on a 4-bit base,
    GaLore on LoRA: the options issue 27 costs where their libraries run them): the card leaves that step out
    rather than cost a setup the engine refuses."""
    try:
        return s.with_(**changes)
    except ValidationError:
        return None


def _method(s: TrainingSetup, method: Method) -> TrainingSetup | None:
    """``s`` trained by ``method``. Full fine-tuning drops what only means something beside an adapter (PEFT's
    ``modules_to_save``, ``trainable_token_indices``, DoRA: everything trains already); a LoRA method keeps them, and
    a step whose method refuses them (``_variant``) is left out."""
    beside = {"modules_to_save": (), "trainable_tokens": 0, "dora": False} if method is Method.FULL else {}
    return _variant(s, method=method, **beside)


def _estimate_or_none(m: ModelSpec, s: TrainingSetup, gpu: GpuSpec) -> Estimate | None:
    """The step's estimate, or None where its layout, its stack (``engine.training.stacks.check``: LoRA under
    torchtitan, eager attention, ...) or the model (``engine.training.refusals.check``: an option not traced on its
    layers) refuses it."""
    try:
        return estimate(m, s, gpu)
    except (LayoutError, StackError, OptionError):
        return None


def lora_lever(m: ModelSpec, s: TrainingSetup, gpu: GpuSpec) -> Lever:
    """Full -> LoRA (gradients, optimizer states) -> QLoRA (weights)."""
    return _lever(LeverKind.LORA, m, s, gpu, [
        ("full", _method(s, Method.FULL), ()),
        ("lora", _method(s, Method.LORA), (TermName.GRADIENTS, TermName.OPTIMIZER_STATES)),
        ("qlora", _method(s, Method.QLORA), (TermName.WEIGHTS,)),
    ])


def activations_lever(m: ModelSpec, s: TrainingSetup, gpu: GpuSpec) -> Lever:
    """Eager attention without checkpointing -> FlashAttention -> FlashAttention + full checkpointing.

    A setup on SDPA keeps it for the "flash" steps: on a GPU in 16 bits SDPA runs a flash / memory-efficient
    kernel, with the same memory (``engine.specs.Attention``)."""
    flash = s.attention if s.attention is not Attention.EAGER else Attention.FLASH
    return _lever(LeverKind.ACTIVATIONS, m, s, gpu, [
        ("eager", _variant(s, attention=Attention.EAGER, checkpointing=Checkpointing.NONE), ()),
        ("flash", _variant(s, attention=flash, checkpointing=Checkpointing.NONE), (TermName.ACTIVATIONS,)),
        ("flash-checkpointing", _variant(s, attention=flash, checkpointing=Checkpointing.FULL),
         (TermName.ACTIVATIONS,)),
    ])


def zero3_gpus(s: TrainingSetup, gpus: int | None = None) -> int:
    """N for the ZeRO-3 card: the parameter, else the setup's GPU count when above one, else the default."""
    return gpus if gpus is not None else (s.gpus if s.gpus > 1 else DEFAULT_ZERO3_GPUS)


def zero3_lever(m: ModelSpec, s: TrainingSetup, gpu: GpuSpec, gpus: int | None = None) -> Lever:
    """The setup without ZeRO-3 (one GPU when it was ZeRO-3) -> ZeRO-3 over N GPUs."""
    off = s.on_one_gpu() if s.sharding is Sharding.ZERO3 else s
    on = _variant(s, gpus=zero3_gpus(s, gpus), sharding=Sharding.ZERO3)
    return _lever(LeverKind.ZERO3, m, s, gpu, [
        ("off", off, ()),
        ("zero3", on, (TermName.WEIGHTS, TermName.GRADIENTS, TermName.OPTIMIZER_STATES)),
    ])


def long_context_lever(m: ModelSpec, s: TrainingSetup, gpu: GpuSpec) -> Lever:
    """Standard loss -> chunked loss (logits) -> fused linear cross-entropy (logits) -> + activation offload
    (activations), each on top of the one before; the setup's checkpointing is kept, and its chunk count when its
    loss is already the chunked one (else TRL's 256-token chunks)."""
    off = s.with_(loss=Loss.STANDARD, activation_offload=False)
    fused = off.with_(loss=Loss.FUSED_LINEAR_CE)
    chunks = s.loss_chunks if s.loss is Loss.CHUNKED else None
    return _lever(LeverKind.LONG_CONTEXT, m, s, gpu, [
        ("standard", off, ()),
        ("chunked", _variant(off, loss=Loss.CHUNKED, loss_chunks=chunks), (TermName.LOGITS,)),
        ("fused-linear-ce", _variant(off, loss=Loss.FUSED_LINEAR_CE), (TermName.LOGITS,)),
        ("fused-linear-ce-offload", _variant(fused, activation_offload=True), (TermName.ACTIVATIONS,)),
    ])


def levers(m: ModelSpec, s: TrainingSetup, gpu: GpuSpec, gpus: int | None = None) -> tuple[Lever, ...]:
    """The three cards, in the seed's order."""
    return lora_lever(m, s, gpu), activations_lever(m, s, gpu), zero3_lever(m, s, gpu, gpus)


def all_levers(m: ModelSpec, s: TrainingSetup, gpu: GpuSpec, gpus: int | None = None) -> tuple[Lever, ...]:
    """The seed's three cards and the long-context lever."""
    return (*levers(m, s, gpu, gpus), long_context_lever(m, s, gpu))


def long_context_leads(e: Estimate) -> bool:
    """The page's own rule applied to the fourth card: it leads when logits or activations are the biggest term."""
    return biggest_term(e).name in LONG_CONTEXT_TERMS


def biggest_term(e: Estimate) -> Term:
    """The largest term at the allocated peak: the one to attack first."""
    return max(e.terms, key=lambda t: t.bytes)


@dataclass(frozen=True, slots=True)
class Advice:
    """The rule applied: the biggest term, and the lever that moves it most from the current setup."""

    term: Term
    lever: LeverKind | None  # None: no lever given moves it (the seed's three: logits, buffers) or all are on
    step: str  # the lever's step that moves it most
    after: int  # the term's bytes at the peak with that step


def advice(m: ModelSpec, s: TrainingSetup, gpu: GpuSpec, gpus: int | None = None,
           computed: tuple[Lever, ...] | None = None) -> Advice:
    """Find the biggest term first, then pick the lever (and step) that moves it the most.

    ``computed``: the levers to choose from (default: the seed's three, :func:`levers`; pass :func:`all_levers`
    to let the long-context lever compete)."""
    term = biggest_term(estimate(m, s, gpu))
    best: tuple[int, LeverKind | None, str] = (term.bytes, None, "")
    for lever in computed or levers(m, s, gpu, gpus):
        for step in lever.steps:
            if term.name in lever.touches and peak_terms(step.estimate)[term.name] < best[0]:
                best = (peak_terms(step.estimate)[term.name], lever.kind, step.key)
    return Advice(term, best[1], best[2], best[0])
