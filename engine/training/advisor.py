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

Host RAM (issue 20): when a node's RAM is given and the run's host RAM (``engine.training.host``) does not fit it,
the roadmap goes on with the host-side levers, the source guide's "節約內存" strategies and the loading mode, each
only where it lowers the node's peak: the dataset as a memory-mapped Arrow file (its pages shared by the node's
processes, and by their DataLoader workers, which then copy nothing), then streamed from Parquet (a shuffle buffer
per reader instead of the whole set), then the checkpoint read by local rank 0 only and broadcast
(accelerate's ``cpu_ram_efficient_loading``), then read shard by shard from the meta device, and last the same GPUs
spread over more nodes (fewer processes, so less host RAM, per node).

A rung whose setup the model cannot take (QLoRA's 4-bit base under tensor or pipeline parallelism, a GPU count
that is no multiple of tp x pp x cp) is skipped, as a rung that changes nothing is.
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
    DatasetStorage,
    GpuSpec,
    Loss,
    Method,
    ModelLoading,
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
    # host RAM (module docstring), when a node's RAM is given and the run does not fit it
    ARROW = "arrow"  # the dataset as a memory-mapped Arrow file
    STREAMING = "streaming"  # the dataset streamed from Parquet
    RANK0_LOADING = "rank0-loading"  # the checkpoint read by local rank 0 and broadcast
    SHARDED_LOADING = "sharded-loading"  # the checkpoint read shard by shard (meta device)
    NODES = "nodes"  # the same GPUs over more nodes: ``setup.host.nodes`` says how many


#: the rungs that act on host RAM, not on the GPU
HOST_RUNGS = frozenset({Rung.ARROW, Rung.STREAMING, Rung.RANK0_LOADING, Rung.SHARDED_LOADING, Rung.NODES})


@dataclass(frozen=True, slots=True)
class Step:
    """One rung of the roadmap: which one, the setup with it (and all before it), and the estimate."""

    key: Rung
    setup: TrainingSetup
    estimate: Estimate

    @property
    def fits(self) -> bool:
        """The GPU fits; for a host rung, the node's RAM too."""
        return self.estimate.fits and (self.key not in HOST_RUNGS or host_fits(self.estimate))


def host_fits(e: Estimate) -> bool:
    """Whether one node's RAM holds the run's host RAM at its peak (``True`` when no RAM is given)."""
    ram = e.setup.host.ram_bytes
    return ram is None or e.host_bytes <= ram


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
    """Cumulative steps until the setup fits ``gpu`` (the last one may be 'more GPUs'), then, if the node's RAM is
    given and still too small, until host RAM fits it too; empty if it all fits."""
    first = estimate(m, s, gpu)
    if first.fits and host_fits(first):
        return []
    steps = [] if first.fits else _gpu_steps(m, s, gpu)
    last = steps[-1].estimate if steps else first
    if not host_fits(last):
        steps += _walk(m, last.setup, gpu, _host_rungs(m, gpu), host_fits)
    return steps


def _try(m: ModelSpec, gpu: GpuSpec, cur: TrainingSetup, apply: Change) -> Estimate | None:
    """The estimate after one rung, or None when it changes nothing or the model cannot take the result."""
    try:
        new = apply(cur)
        return None if new is None else estimate(m, new, gpu)
    except ValueError:  # a setup the engine refuses (pydantic) or a layout the model cannot take (LayoutError)
        return None


def _walk(m: ModelSpec, s: TrainingSetup, gpu: GpuSpec, rungs: list[tuple[Rung, Change]],
          done: Callable[[Estimate], bool]) -> list[Step]:
    """Apply the rungs one on top of the other until ``done``."""
    steps: list[Step] = []
    cur = s
    for key, apply in rungs:
        e = _try(m, gpu, cur, apply)
        if e is None:
            continue
        cur = e.setup
        steps.append(Step(key, cur, e))
        if done(e):
            break
    return steps


def _gpu_steps(m: ModelSpec, s: TrainingSetup, gpu: GpuSpec) -> list[Step]:
    """The guide's rungs for the GPU, then more GPUs with ZeRO-3 if they are not enough."""
    steps = _walk(m, s, gpu, _rungs(m, s, gpu), lambda e: e.fits)
    if steps and steps[-1].fits:
        return steps
    cur = steps[-1].setup if steps else s
    try:
        zero3 = cur.with_(sharding=Sharding.ZERO3)
    except ValueError:
        return steps
    more = min_gpus(m, zero3, gpu)
    if more is not None and more > cur.gpus:
        wide = zero3.with_(gpus=more)
        steps.append(Step(Rung.GPUS, wide, estimate(m, wide, gpu)))
    return steps


def _host_rungs(m: ModelSpec, gpu: GpuSpec) -> list[tuple[Rung, Change]]:
    """The host-RAM rungs (module docstring), each only where it lowers the node's peak."""
    def host(**kw: object) -> Change:
        def apply(cur: TrainingSetup) -> TrainingSetup | None:
            new = cur.with_(host={**cur.host.model_dump(), **kw})
            if new == cur or estimate(m, new, gpu).host_bytes >= estimate(m, cur, gpu).host_bytes:
                return None
            return new

        return apply

    def more_nodes(cur: TrainingSetup) -> TrainingSetup | None:
        for nodes in range(cur.host.nodes + 1, cur.gpus + 1):
            if cur.gpus % nodes == 0:
                new = cur.with_(host={**cur.host.model_dump(), "nodes": nodes})
                if host_fits(estimate(m, new, gpu)):
                    return new
        return None

    def data(**kw: object) -> Change:
        return lambda cur: host(**kw)(cur) if cur.host.dataset_tokens else None

    return [
        (Rung.ARROW, lambda c: data(dataset_storage=DatasetStorage.ARROW_MMAP)(c) if c.host.dataset_storage in (
            DatasetStorage.PYTHON_LISTS, DatasetStorage.NUMPY) else None),
        (Rung.STREAMING, data(dataset_storage=DatasetStorage.STREAMING)),
        (Rung.RANK0_LOADING, lambda c: host(model_loading=ModelLoading.RANK0_BROADCAST)(c)
         if c.host.model_loading is ModelLoading.FULL_PER_PROCESS else None),
        (Rung.SHARDED_LOADING, host(model_loading=ModelLoading.META_SHARDED)),
        (Rung.NODES, more_nodes),
    ]


def logits_over_weights(e: Estimate) -> tuple[int, int] | None:
    """(logits, weights) in bytes at the peak when the logits are the larger, else None: the sign that a lever
    on the weights (LoRA, QLoRA) cannot help much and the long-context rungs can (issue 19: Llama 3.1 8B, LoRA,
    32,768 tokens: logits 50.4 GB beside 16.2 GB of weights; ``engine.training.loss`` for the logits' formula)."""
    by_name = {t.name: t.bytes for t in e.terms}
    logits, weights = by_name.get(TermName.LOGITS, 0), by_name.get(TermName.WEIGHTS, 0)
    return (logits, weights) if logits > weights else None


def min_gpus(m: ModelSpec, s: TrainingSetup, gpu: GpuSpec, limit: int = ROADMAP_GPU_LIMIT) -> int | None:
    """The fewest GPUs (1..limit) on which ``s`` fits, or None (counts the setup cannot take are skipped)."""
    for n in range(1, limit + 1):
        try:
            if estimate(m, s.with_(gpus=n), gpu).fits:
                return n
        except ValueError:  # not a multiple of tp x pp x cp or of the nodes; a layout the model refuses there
            continue
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
    the engine's tokens per micro-batch (``MAX_MICRO_BATCH_TOKENS``). With context parallelism only multiples of
    2 x cp are lengths it can run (``engine.training.layout``)."""
    limit = min(limit, MAX_MICRO_BATCH_TOKENS * s.parallel.cp // s.batch)
    step = 2 * s.parallel.cp if s.parallel.cp > 1 else 1
    found = _largest(lambda k: estimate(m, s.with_(seq_len=k * step), gpu).fits, 1, limit // step)
    return None if found is None else found * step


def max_batch(m: ModelSpec, s: TrainingSetup, gpu: GpuSpec, limit: int = 4_096) -> int | None:
    """The largest micro-batch that fits as things stand (None: not even one), searched up to ``limit`` and the
    engine's tokens per micro-batch."""
    limit = min(limit, MAX_MICRO_BATCH_TOKENS * s.parallel.cp // s.seq_len)
    return _largest(lambda n: estimate(m, s.with_(batch=n), gpu).fits, 1, limit)
