"""The layout planner: which ways of spreading a training run over at most N GPUs fit, fewest GPUs first.

For every combination of tensor parallelism (t <= 8, within a node, dividing the attention and key/value heads),
pipeline parallelism (powers of two up to the layers, and the divisors of the layer count up to 32: an even or
nearly even split), context parallelism (for sequences of 16,384 tokens and more), expert parallelism (MoE
models: powers of two dividing the experts), a ZeRO stage (ZeRO-1 only beside pipeline parallelism, as Megatron-LM's
distributed optimizer and DeepSpeed's pipeline engine allow) and activation checkpointing, the planner finds the
fewest data-parallel replicas with which it fits, then reports it with :func:`engine.training.estimate`'s own
numbers for exactly that setup. Sequence parallelism is always on with t > 1 (it only saves memory: Korthikanti et
al. 2022, arXiv:2205.05198, s4.2.2). A pipeline runs 4 micro-batches per stage unless the setup says otherwise
(bubble ``(p - 1) / m`` under 25%: Narayanan et al. 2021, arXiv:2104.04473, s2.2).

GPU counts are 1, 2, 4 or whole nodes of 8 (a multiple of 8): the shapes clusters are rented in.

The search screens each candidate on the first and the last pipeline stage (the most loaded ones under an even
split: the first holds the most micro-batches in flight and the embedding, the last the output layer and the
loss), then confirms the smallest fitting one with the full estimate of every stage.

Each row's note states what the layout costs in communication: tensor parallelism's all-reduces stay inside a
node of 8 GPUs (Shoeybi et al. 2019, arXiv:1909.08053, s3); the pipeline bubble; ZeRO-3 moves 1.5x the data of
data parallelism (Rajbhandari et al. 2020, arXiv:1910.02054, s7).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from enum import StrEnum

from engine.lever_facts import PAPER_FACTOR
from engine.specs import Checkpointing, GpuSpec, ModelSpec, OffloadDevice, ParallelSpec, Sharding, TrainingSetup
from engine.training import stacks
from engine.training.estimate import Estimate, estimate, stage_fits
from engine.training.layout import LayoutError, layout
from engine.training.stacks import StackError

NODE_GPUS = 8
MAX_PP = 32
MICRO_BATCHES_PER_STAGE = 4
LONG_SEQUENCE = 16_384


@dataclass(frozen=True, slots=True)
class PlanRow:
    """One layout that fits: its setup and the estimate of exactly that setup."""

    setup: TrainingSetup
    estimate: Estimate
    note: str


def _powers(limit: int) -> list[int]:
    out, n = [], 1
    while n <= limit:
        out.append(n)
        n *= 2
    return out


def _candidates(m: ModelSpec, s: TrainingSetup, max_gpus: int) -> Iterator[ParallelSpec]:
    """Every (tp, pp, cp, ep) layout shape worth trying (module docstring), user-fixed sizes kept."""
    fixed = s.parallel
    kv = m.num_kv_heads if m.mla is None else m.num_heads
    tps = [fixed.tp] if fixed.tp > 1 else [t for t in _powers(NODE_GPUS) if m.num_heads % t == 0 and kv % t == 0]
    pps = [fixed.pp] if fixed.pp > 1 else sorted(set(_powers(min(MAX_PP, m.num_layers)))
                                                 | {p for p in range(1, min(MAX_PP, m.num_layers) + 1)
                                                    if m.num_layers % p == 0})
    cps = [fixed.cp] if fixed.cp > 1 else ([1, 2, 4, 8] if s.seq_len >= LONG_SEQUENCE else [1])
    eps = [fixed.ep] if fixed.ep > 1 else ([e for e in _powers(m.moe.num_experts) if m.moe.num_experts % e == 0]
                                           if m.moe is not None else [1])
    for tp in tps:
        for pp in pps:
            for cp in cps:
                if tp * pp * cp > max_gpus:
                    continue
                for ep in eps:
                    m_b = fixed.micro_batches if fixed.micro_batches > 1 else (
                        MICRO_BATCHES_PER_STAGE * pp if pp > 1 else 1)
                    yield ParallelSpec(tp=tp, pp=pp, cp=cp, ep=ep, etp=fixed.etp, sequence_parallel=tp > 1,
                                       micro_batches=m_b, schedule=fixed.schedule if pp > 1 else "1f1b",
                                       virtual_stages=fixed.virtual_stages if pp > 1 else 1)


def search_base(s: TrainingSetup) -> TrainingSetup:
    """The setup a layout search starts from: ``s`` with no layout, one GPU per node, no ZeRO and no parameter
    offload (nor its NVMe device), so that every layout is searched, not only the current one. Derived
    (``TrainingSetup.derived``), not re-validated: an optimizer offloaded to NVMe, which DeepSpeed swaps under ZeRO-3
    only (``runtime/zero/stage3.py``), stays, and only the ZeRO-3 layouts take it (``_setup`` validates each)."""
    return s.derived(parallel=ParallelSpec(), gpus=s.host.nodes, sharding=Sharding.NONE, offload_params=False,
                     offload_params_device=OffloadDevice.CPU)


def _shardings(pp: int) -> list[Sharding]:
    return [Sharding.NONE, Sharding.ZERO1] if pp > 1 else list(Sharding)


def _setup(s: TrainingSetup, p: ParallelSpec, sharding: Sharding, ckpt: Checkpointing, dp: int) -> TrainingSetup | None:
    gpus = dp * p.model_parallel
    if gpus > NODE_GPUS and gpus % NODE_GPUS:
        return None  # not whole nodes
    try:
        return s.with_(parallel=p.model_dump(), sharding=sharding, checkpointing=ckpt, gpus=gpus,
                       offload_params=s.offload_params and sharding is Sharding.ZERO3)
    except ValueError:
        return None


def _smallest(lo: int, hi: int, fits: Callable[[int], bool]) -> int | None:
    """The smallest n in [lo, hi] with fits(n), for a predicate that stays true once true (binary search)."""
    if lo > hi or not fits(hi):
        return None
    while lo < hi:
        mid = (lo + hi) // 2
        lo, hi = (lo, mid) if fits(mid) else (mid + 1, hi)
    return lo


class Cost(StrEnum):
    """What a layout costs in communication, one id per kind (the GUI words each; :func:`note` in English)."""

    TP_NODE = "tp-node"  # tensor parallelism inside a node: value = t
    TP_ACROSS = "tp-across"  # tensor parallelism across nodes: slow; value = t
    PP_BUBBLE = "pp-bubble"  # the pipeline bubble; value = (p - 1) / (m v)
    CP_RING = "cp-ring"  # ring attention passes K, V around; value = c
    EP_ALL_TO_ALL = "ep-all-to-all"  # an all-to-all per MoE layer; value = e
    ZERO3 = "zero3"  # 1.5x the communication of data parallelism; value = 1.5
    DP_ONLY = "dp-only"  # data parallelism only; value = 0


def costs(e: Estimate) -> tuple[tuple[Cost, float], ...]:
    """What the layout costs in communication, as (id, number) pairs (module docstring)."""
    lay = e.layout
    parts: list[tuple[Cost, float]] = []
    if lay is not None and lay.tp > 1:
        parts.append((Cost.TP_NODE if lay.tp <= NODE_GPUS else Cost.TP_ACROSS, lay.tp))
    if lay is not None and lay.pp > 1:
        parts.append((Cost.PP_BUBBLE, lay.bubble))
    if lay is not None and lay.cp > 1:
        parts.append((Cost.CP_RING, lay.cp))
    if lay is not None and lay.ep > 1:
        parts.append((Cost.EP_ALL_TO_ALL, lay.ep))
    if e.setup.sharding is Sharding.ZERO3:
        parts.append((Cost.ZERO3, PAPER_FACTOR))  # Rajbhandari et al. 2020, s7
    return tuple(parts) or ((Cost.DP_ONLY, 0.0),)


_NOTES = {
    Cost.TP_NODE: "TP {v:.0f} inside a node",
    Cost.TP_ACROSS: "TP {v:.0f} across nodes: slow",
    Cost.PP_BUBBLE: "PP bubble {v:.0%} ((p-1)/m)",
    Cost.CP_RING: "CP {v:.0f}: ring attention passes K, V around",
    Cost.EP_ALL_TO_ALL: "EP {v:.0f}: all-to-all per MoE layer",
    Cost.ZERO3: "ZeRO-3: {v:g}x the communication of data parallelism",
    Cost.DP_ONLY: "data parallelism only",
}


def note(e: Estimate) -> str:
    """What the layout costs in communication, in English (module docstring; :func:`costs` gives the parts)."""
    return "; ".join(_NOTES[kind].format(v=value) for kind, value in costs(e))


class PlanCancelledError(Exception):
    """The search was cancelled (``plan``'s ``cancelled`` said so) before it finished."""


Progress = Callable[[int, int], None]


def plan(m: ModelSpec, s: TrainingSetup, gpu: GpuSpec, max_gpus: int, *, progress: Progress | None = None,
         cancelled: Callable[[], bool] | None = None) -> list[PlanRow]:
    """The layouts of ``s`` that fit ``gpu`` on at most ``max_gpus`` GPUs, fewest GPUs first, then the lowest
    device total (module docstring: the search).

    For a caller that runs it in the background (the GUI): ``progress(done, total)`` is called after each layout
    shape is searched, and ``cancelled()`` is asked before each; when it says so, ``PlanCancelledError`` is raised."""
    rows: dict[TrainingSetup, PlanRow] = {}
    ckpts = [Checkpointing.NONE, Checkpointing.FULL]
    shapes = list(_candidates(m, s, max_gpus))
    for done, p in enumerate(shapes, start=1):
        if cancelled is not None and cancelled():
            raise PlanCancelledError
        for sharding in _shardings(p.pp):
            for ckpt in ckpts:
                found = _best(m, s, gpu, max_gpus=max_gpus, p=p, sharding=sharding, ckpt=ckpt)
                if found is not None:
                    rows.setdefault(found.setup, found)
        if progress is not None:
            progress(done, len(shapes))
    return sorted(rows.values(), key=lambda r: (r.setup.gpus, r.estimate.device_bytes))


def _best(m: ModelSpec, s: TrainingSetup, gpu: GpuSpec, *, max_gpus: int, p: ParallelSpec, sharding: Sharding,
          ckpt: Checkpointing) -> PlanRow | None:
    """The fewest data-parallel replicas with which this layout fits (None: not within ``max_gpus``)."""
    top = max_gpus // p.model_parallel

    def setup(dp: int) -> TrainingSetup | None:
        return _setup(s, p, sharding, ckpt, dp)

    def screened(dp: int) -> bool:
        candidate = setup(_whole(dp, p.model_parallel))
        if candidate is None or not _valid(m, candidate):
            return False
        lay = layout(m, candidate)
        return all(stage_fits(m, candidate, gpu, i) for i in {0, lay.pp - 1})

    lo = 1
    if sharding is Sharding.NONE:  # without ZeRO more replicas do not help: the fewest valid ones only
        lo = next((dp for dp in range(1, top + 1) if _valid(m, setup(dp))), top + 1)
        top = lo
    dp = _smallest(lo, top, screened)
    dp = _whole(dp, p.model_parallel) if dp is not None else None
    if dp == 1 and sharding is not Sharding.NONE:
        return None  # ZeRO over one replica is no sharding: the row without it says the same
    while dp is not None and dp <= max_gpus // p.model_parallel:
        candidate = setup(dp)
        if candidate is not None and _valid(m, candidate):
            e = estimate(m, candidate, gpu)
            if e.fits:
                return PlanRow(candidate, e, note(e))
        dp += 1
        if sharding is Sharding.NONE:
            return None
    return None


def _whole(dp: int, model_parallel: int) -> int:
    """The smallest dp' >= dp whose GPU count is 1, 2, 4 or whole nodes (the predicate stays monotone)."""
    while dp * model_parallel > NODE_GPUS and (dp * model_parallel) % NODE_GPUS:
        dp += 1
    return dp


def _valid(m: ModelSpec, s: TrainingSetup | None) -> bool:
    """The model can take the layout and the stack can run the setup (``engine.training.stacks.check``:
    torchtitan's FSDP2 has no ZeRO-1, Megatron-LM's distributed optimizer no ZeRO-2 / ZeRO-3): a layout that fails
    either is left out."""
    if s is None:
        return False
    try:
        layout(m, s)
        stacks.check(m, s)
    except (LayoutError, StackError):
        return False
    return True
