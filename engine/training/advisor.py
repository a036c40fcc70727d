"""What would make it fit: the seed guide's roadmap, walked step by step from the current setup.

The guide (shared/seeds/003, "實踐路線圖"): first the basic three (16-bit training, gradient checkpointing, an 8-bit
optimizer), then QLoRA, then distributed training (ZeRO / FSDP, offload), then more GPUs. Each step is applied on
top of the previous ones and re-estimated; a step that changes nothing for this setup is skipped.

The engine gives each step an id (``Rung``) and its numbers (the setup, the estimate); the GUI words them, one
translated title and cost per id (``gui.widgets.roadmap_view``). The numbers the costs quote are here, with their
sources: checkpointing's extra compute was measured at +28% (full fine-tuning) and +56% (LoRA) per step on an
H200 (reference/gpu_timing.jsonl, Llama 2 7B, 2,048 tokens, SDPA), 20-40% in published reports; ZeRO-3 moves 1.5x
the data of plain data parallelism (``engine.lever_facts.PAPER_FACTOR``, Rajbhandari et al. 2020, section 7.2).

Long context (issue 19): where the logits or the activations are the biggest term once checkpointing is on, the
roadmap goes on with the levers that move them (``engine.training.loss``, ``engine.training.terms.offloaded``):
TRL's chunked loss first (``chunked_nll``, SFTTrainer's default in TRL 1.7 to 1.14: 256-token checkpointed chunks,
so none of the vocabulary-sized tensors is whole; its price is the output layer's forward run again in backward,
``2 V h`` FLOPs a token against about ``6 params`` for the step (Kaplan et al. 2020, arXiv:2001.08361, s2.1):
``V h / (3 params)`` more compute, about 2% for Llama 3.1 8B), then a fused
linear cross-entropy (Liger-Kernel, a CUDA kernel library: the same saving where chunked did not take logits off
the top) and activation offloading (torchtune / TRL OffloadActivations: saved activations to host RAM, paid in PCIe
traffic every step). torchtune's CEWithChunkedOutputLoss (``chunked-output``) is not a rung: it keeps the fp32
log-probabilities whole, about half the logits, where chunked takes them all.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from enum import StrEnum

from engine.params import count_params
from engine.specs import (
    MAX_MICRO_BATCH_TOKENS,
    Attention,
    Checkpointing,
    GpuSpec,
    Loss,
    Method,
    ModelSpec,
    Optimizer,
    Precision,
    Sharding,
    TrainingSetup,
)
from engine.terms import TermName
from engine.training.estimate import Estimate, estimate

#: The most GPUs the roadmap's last rung proposes (eight nodes of eight): the advisor's search limit.
ROADMAP_GPU_LIMIT = 64
#: Gradient checkpointing's extra compute per step, measured on an H200 (reference/gpu_timing.jsonl).
CHECKPOINTING_MEASURED = {Method.FULL: 0.28, Method.LORA: 0.56}
#: ... and the range published reports give (20-40%).
CHECKPOINTING_PUBLISHED = (0.20, 0.40)


class Rung(StrEnum):
    """The roadmap's steps, in the guide's order."""

    BF16 = "bf16"
    FLASH = "flash"
    CHECKPOINTING = "checkpointing"
    CHUNKED_LOSS = "chunked-loss"
    FUSED_LINEAR_CE = "fused-linear-ce"
    ACTIVATION_OFFLOAD = "activation-offload"
    EIGHT_BIT = "8bit"
    LORA = "lora"
    QLORA = "qlora"
    ZERO2 = "zero2"
    ZERO3 = "zero3"
    OFFLOAD = "offload"
    GPUS = "gpus"  # more GPUs with ZeRO-3: ``setup.gpus`` says how many


@dataclass(frozen=True, slots=True)
class Step:
    """One rung of the roadmap: which one, the setup with it (and all before it), and the estimate."""

    key: Rung
    setup: TrainingSetup
    estimate: Estimate

    @property
    def fits(self) -> bool:
        return self.estimate.fits


Change = Callable[[TrainingSetup], TrainingSetup | None]


def _when_biggest(m: ModelSpec, gpu: GpuSpec, names: tuple[str, ...], **kw: object) -> Change:
    """Apply ``kw`` only while one of ``names`` is the biggest term of the estimate as it stands."""
    def apply(cur: TrainingSetup) -> TrainingSetup | None:
        terms = estimate(m, cur, gpu).terms
        if max(terms, key=lambda t: t.bytes).name not in names:
            return None
        new = cur.with_(**kw)
        return None if new == cur else new

    return apply


def chunked_recompute(m: ModelSpec) -> float:
    """What TRL's chunked loss adds to a step's compute: the output layer's forward again in backward, ``2 V h``
    FLOPs a token, against about ``6 params`` for the whole step (Kaplan et al. 2020, arXiv:2001.08361, s2.1):
    ``V h / (3 params)``, about 2% for Llama 3.1 8B."""
    return m.vocab_size * m.hidden_size / (3 * count_params(m).total)


def _unless_chunked(apply: Change) -> Change:
    """A setup already on TRL's chunked loss keeps its own chunk count: the rung does not apply."""
    return lambda cur: None if cur.loss is Loss.CHUNKED else apply(cur)


def _long_context(m: ModelSpec, gpu: GpuSpec) -> list[tuple[Rung, Change]]:
    """The rungs for logits and activations (module docstring), each only where its term is the biggest."""
    logits = (TermName.LOGITS,)
    return [
        (Rung.CHUNKED_LOSS, _unless_chunked(_when_biggest(m, gpu, logits, loss=Loss.CHUNKED, loss_chunks=None))),
        (Rung.FUSED_LINEAR_CE, _when_biggest(m, gpu, logits, loss=Loss.FUSED_LINEAR_CE)),
        (Rung.ACTIVATION_OFFLOAD, _when_biggest(m, gpu, (TermName.ACTIVATIONS,), activation_offload=True)),
    ]


def _rungs(m: ModelSpec, s: TrainingSetup, gpu: GpuSpec) -> list[tuple[Rung, Change]]:
    def change(**kw: object) -> Change:
        def apply(cur: TrainingSetup) -> TrainingSetup | None:
            new = cur.with_(**kw)
            return None if new == cur else new

        return apply

    return [
        (Rung.BF16, (lambda c: c.with_(precision=Precision.BF16) if c.precision in
                     (Precision.FP32, Precision.AMP_BF16, Precision.AMP_FP16) else None)),
        (Rung.FLASH, change(attention=Attention.FLASH) if s.attention is Attention.EAGER else (lambda c: None)),
        (Rung.CHECKPOINTING, change(checkpointing=Checkpointing.FULL)),
        *_long_context(m, gpu),
        (Rung.EIGHT_BIT, (lambda c: c.with_(optimizer=Optimizer.ADAMW_8BIT) if c.optimizer is Optimizer.ADAMW
                          else None)),
        (Rung.LORA, (lambda c: c.with_(method=Method.LORA) if c.method is Method.FULL else None)),
        (Rung.QLORA, (lambda c: c.with_(method=Method.QLORA) if c.method is Method.LORA else None)),
        (Rung.ZERO2, (lambda c: c.with_(sharding=Sharding.ZERO2) if c.gpus > 1 and c.sharding in
                      (Sharding.NONE, Sharding.ZERO1) else None)),
        (Rung.ZERO3, (lambda c: c.with_(sharding=Sharding.ZERO3) if c.gpus > 1 and c.sharding is not Sharding.ZERO3
                      else None)),
        (Rung.OFFLOAD, change(offload_optimizer=True)),
    ]


def roadmap(m: ModelSpec, s: TrainingSetup, gpu: GpuSpec) -> list[Step]:
    """Cumulative steps until the setup fits ``gpu`` (the last one may be 'more GPUs'); empty if it fits."""
    if estimate(m, s, gpu).fits:
        return []
    steps: list[Step] = []
    cur = s
    for key, apply in _rungs(m, s, gpu):
        new = apply(cur)
        if new is None:
            continue
        cur = new
        steps.append(Step(key, cur, estimate(m, cur, gpu)))
        if steps[-1].fits:
            return steps
    more = min_gpus(m, cur.with_(sharding=Sharding.ZERO3), gpu)
    if more is not None and more > cur.gpus:
        wide = cur.with_(gpus=more, sharding=Sharding.ZERO3)
        steps.append(Step(Rung.GPUS, wide, estimate(m, wide, gpu)))
    return steps


def min_gpus(m: ModelSpec, s: TrainingSetup, gpu: GpuSpec, limit: int = ROADMAP_GPU_LIMIT) -> int | None:
    """The fewest GPUs (1..limit) on which ``s`` fits, or None."""
    for n in range(1, limit + 1):
        if estimate(m, s.with_(gpus=n), gpu).fits:
            return n
    return None


def _largest(fits: Callable[[int], bool], lo: int, hi: int) -> int | None:
    """Largest n in [lo, hi] with fits(n), for a monotone predicate (binary search)."""
    if not fits(lo):
        return None
    while lo < hi:
        mid = (lo + hi + 1) // 2
        lo, hi = (mid, hi) if fits(mid) else (lo, mid - 1)
    return lo


def max_seq_len(m: ModelSpec, s: TrainingSetup, gpu: GpuSpec, limit: int = 1_048_576) -> int | None:
    """The longest sequence that fits as things stand (None: not even one token), searched up to ``limit`` and
    the engine's tokens per micro-batch (``MAX_MICRO_BATCH_TOKENS``)."""
    limit = min(limit, MAX_MICRO_BATCH_TOKENS * s.parallel.cp // s.batch)
    return _largest(lambda n: estimate(m, s.with_(seq_len=n), gpu).fits, 1, limit)


def max_batch(m: ModelSpec, s: TrainingSetup, gpu: GpuSpec, limit: int = 4_096) -> int | None:
    """The largest micro-batch that fits as things stand (None: not even one), searched up to ``limit`` and the
    engine's tokens per micro-batch."""
    limit = min(limit, MAX_MICRO_BATCH_TOKENS * s.parallel.cp // s.seq_len)
    return _largest(lambda n: estimate(m, s.with_(batch=n), gpu).fits, 1, limit)
