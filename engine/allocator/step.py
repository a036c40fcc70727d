"""Two training steps replayed through the caching allocator model: the reserve the predicted step makes.

The sequence is the engine's own step (``engine.training.timeline``'s fine moments: every layer's forward and
backward, the loss, the optimizer step, for steps 1 and 2), each term's change between two moments cut into the
tensors that make it:

* weights (before the first moment), gradients (a layer's at its backward, the embedding's and the head's at the
  end) and optimizer states (at the first optimizer step, two per trainable tensor for Adam-like optimizers):
  one block per parameter tensor, sized by the parameter counts of ``engine.params`` (``layer_linears``, the norms,
  the embedding and the head; experts stored fused are one 3-D tensor per projection; LoRA's and QLoRA's
  trainable tensors are the adapters, ``r x n_in`` and ``n_out x r`` per adapted linear);
* activations: at a layer's forward, the parts of what it saves (``LayerCoeffs.saved_parts``: each norm's input,
  each linear group's input, the attention core, the MLP, ...) and its b x s^2 part; elsewhere one block;
* temporaries: what a moment needs on top, allocated for the moment and freed after it; the logits and the
  other terms: one block per increase.

A term's decrease frees its most recent blocks first (what stays of the last one, when it held more, is allocated
again). At each moment the frees come first (autograd releases a
node's saved tensors once its backward ran, before the next node's), then the allocations, then the moment's
temporaries. Besides the terms, each thread that runs matmuls gets its cuBLAS workspace from the allocator
(``engine.allocator.device.cublas_workspace_bytes``): the forward's and optimizer's thread and the autograd
engine's device thread, held to the end.

Streams: everything is on the compute stream but the sharding buffers (ZeRO-3 / FSDP's gathered parameters and
the gradients waiting for their reduce-scatter), which the collectives' own stream allocates and the compute
stream uses (FSDP's ``record_stream`` on the all-gather output; torch/distributed/fsdp): freed, such a block goes
back to the collectives' pool only once the compute stream has done its work, which it has by the next moment.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from engine.allocator.caching import Block, CachingAllocator
from engine.allocator.rules import Settings
from engine.params import (
    Linear,
    attention_norm_params,
    embedding_params,
    layer_linears,
    lm_head_params,
    mixer_tensors,
    norm_params,
)
from engine.specs import ExpertStorage, LayerSpec, Method, ModelSpec, Optimizer, TrainingSetup
from engine.terms import TermName
from engine.training.moments import MomentKind
from engine.training.plan import Plan
from engine.training.saved.inputs import Ctx

#: optimizers that keep one state per parameter tensor (the rest: two, as Adam's exp_avg and exp_avg_sq; the
#: optimizer-states term says how many bytes, this only how many blocks)
_ONE_STATE = frozenset({Optimizer.SGD_MOMENTUM, Optimizer.LION, Optimizer.ADAFACTOR})
_EACH_MOMENT = frozenset({TermName.TEMPORARIES})
COMPUTE, COLLECTIVES = 0, 1  # streams
_ON_COLLECTIVES = frozenset({TermName.SHARDING_BUFFERS})


@dataclass(frozen=True, slots=True)
class Replay:
    """The two steps through the model: its reserved and allocated bytes at each moment, the reserved peak, and
    the moment of the allocated peak with the reserved bytes then."""

    reserved: npt.NDArray[np.int64]  # reserved at each moment (its largest: nothing is released in a step)
    allocated: npt.NDArray[np.int64]  # blocks allocated at each moment (workspaces included), as memory_allocated()
    requested: npt.NDArray[np.int64]  # the bytes those blocks were asked for (block sizes round them up)
    peak_reserved: int
    peak_moment: int  # where the allocated total is largest
    reserved_at_peak: int
    allocated_at_peak: int
    workspaces: int  # cuBLAS workspaces among the allocated blocks

    @property
    def fragmentation(self) -> int:
        """Reserved bytes in no live block at the allocated peak: cached free blocks the step could not use."""
        return self.reserved_at_peak - self.allocated_at_peak


def _copies(kind: LayerSpec, x: Linear) -> int:
    """How many tensors hold a linear's ``count`` weights: one 3-D parameter for experts stored fused
    (``ExpertStorage.FUSED``: transformers 5), else one per expert."""
    moe = kind.mlp.moe if kind.mlp is not None else None
    fused = moe is not None and moe.storage is ExpertStorage.FUSED and x.role.startswith("experts_")
    return 1 if fused else x.count


def _layer_tensors(m: ModelSpec, plan: Plan, layer: int) -> list[int]:
    """Parameter counts of one decoder layer's tensors (``engine.params``)."""
    kind, h = plan.kinds[layer], m.hidden_size
    out = [x.params // n for x in layer_linears(kind, h) for n in [_copies(kind, x)] for _ in range(n)]
    out += [norm_params(m)] * kind.norms
    extra = attention_norm_params(kind.attention) if kind.attention is not None else 0
    mixer = mixer_tensors(kind.mixer, h) if kind.mixer is not None else []
    return out + ([extra] if extra else []) + mixer


def _outer_tensors(m: ModelSpec) -> list[int]:
    """Parameter counts outside the decoder layers: the embedding, the final norm, an untied head."""
    return [t for t in (embedding_params(m), norm_params(m), lm_head_params(m)) if t]


def _adapter_tensors(m: ModelSpec, plan: Plan, layer: int, ctx: Ctx) -> list[int]:
    """LoRA's trainable tensors of one layer: A (r x n_in) and B (n_out x r) of each adapted linear (of each
    tensor that holds it)."""
    kind, r = plan.kinds[layer], plan.setup.lora.rank
    adapted = ctx.adapted(kind)
    out = []
    for x in layer_linears(kind, m.hidden_size):
        if x.role in adapted:
            c, rr = _copies(kind, x), r * x.rank_mult
            out += [n * x.count // c for _ in range(c) for n in (rr * x.n_in, x.n_out * rr)]
    return out


class _Tensors:
    """The parameter tensors of the model, whole and per layer (trainable ones apart)."""

    def __init__(self, m: ModelSpec, plan: Plan) -> None:
        layers = range(len(plan.kinds))
        self.weights = [_layer_tensors(m, plan, i) for i in layers]
        self.outer = _outer_tensors(m)
        if plan.setup.method is Method.FULL:
            self.trainable, self.trainable_outer = self.weights, self.outer
        else:
            ctx = Ctx(m, plan.setup, plan.dtypes, plan.windows)
            self.trainable = [_adapter_tensors(m, plan, i, ctx) for i in layers]
            self.trainable_outer = []

    def all_weights(self) -> list[int]:
        return [t for layer in self.weights for t in layer] + self.outer

    def all_trainable(self) -> list[int]:
        return [t for layer in self.trainable for t in layer] + self.trainable_outer


def _split(total: int, shares: Sequence[float]) -> list[int]:
    """``total`` bytes cut in proportion to ``shares`` (the last block takes the rounding)."""
    shares = [s for s in shares if s > 0]
    whole = sum(shares)
    if total <= 0:
        return []
    if not shares or whole <= 0:
        return [total]
    out = [int(total * s / whole) for s in shares[:-1]]
    out.append(total - sum(out))
    return [b for b in out if b > 0]


class _Sequence:
    """The allocator driven moment by moment (module docstring)."""

    def __init__(self, m: ModelSpec, plan: Plan, s: TrainingSetup, settings: Settings, workspace: int, *,
                 capacity: int | None, device_total: int | None) -> None:
        self.m, self.plan, self.s = m, plan, s
        self.t = _Tensors(m, plan)
        self.model = CachingAllocator(settings, capacity=capacity, device_total=device_total)
        self.live: dict[str, list[Block]] = {}
        self.workspace = workspace
        self.threads: set[str] = set()
        self.states = 1 if s.optimizer in _ONE_STATE else 2

    def _pieces(self, name: str, total: int, kind: MomentKind, layer: int | None) -> list[int]:
        t = self.t
        if name == TermName.WEIGHTS:  # the weights, then (autocast) a layer's 16-bit copies of them
            first = not self.live.get(name)
            return _split(total, [float(x) for x in (t.weights[layer] if layer is not None and not first
                                                         else t.all_weights())])
        if name == TermName.GRADIENTS:
            if layer is not None:
                shares = t.trainable[layer]
            elif kind is MomentKind.OPTIMIZER_STEP:  # fp32 copies of every gradient, made for the step
                shares = t.all_trainable()
            else:  # the embedding's and the head's, last in the backward
                shares = t.trainable_outer or t.all_trainable()
            return _split(total, [float(x) for x in shares])
        if name == TermName.OPTIMIZER_STATES:
            return _split(total, [float(x) for x in t.all_trainable() for _ in range(self.states)])
        if name == TermName.TEMPORARIES and kind is MomentKind.OPTIMIZER_STEP:  # a foreach step works per tensor
            return _split(total, [float(x) for x in t.all_trainable()])
        if name == TermName.ACTIVATIONS and kind is MomentKind.FORWARD_LAYER and layer is not None:
            lc = self.plan.coeffs.per_layer[layer]
            tokens = self.s.batch * self.s.seq_len
            parts = [p * tokens for p in lc.saved_parts] + [lc.saved_bs2 * tokens * self.s.seq_len]
            return _split(total, parts)
        return [total]

    def _alloc(self, name: str, total: int, kind: MomentKind, layer: int | None) -> None:
        blocks = self.live.setdefault(name, [])
        side = name in _ON_COLLECTIVES
        for n in self._pieces(name, total, kind, layer):
            blocks.append(self._malloc(n, side))

    def _malloc(self, n: int, side: bool) -> Block:
        b = self.model.malloc(n, COLLECTIVES if side else COMPUTE)
        if side:
            self.model.record_stream(b, COMPUTE)
        return b

    def _free(self, name: str, total: int) -> None:
        """Free the term's most recent blocks; when the last one freed is larger than the decrease, what stays of
        it is allocated again (the term's tensors change: the loss keeps part of what the forward's end held)."""
        blocks = self.live.get(name, [])
        freed = 0
        while blocks and freed < total:
            b = blocks.pop()
            freed += b.requested
            self.model.free(b)
        if freed > total:
            blocks.append(self._malloc(freed - total, name in _ON_COLLECTIVES))

    def _workspace(self, thread: str) -> None:
        """A thread's first matmul takes its cuBLAS workspace (``getCurrentCUDABlasHandle``: one per handle and
        stream; the autograd engine runs the backward on a thread of its own, with a handle of its own)."""
        if self.workspace and thread not in self.threads:
            self.threads.add(thread)
            self.model.malloc(self.workspace)

    def moment(self, kind: MomentKind, phase: str, layer: int | None, prev: dict[str, int], now: dict[str, int]
               ) -> tuple[int, int, int]:
        """One moment: frees, allocations, its temporaries; reserved, allocated and requested at its height."""
        self._workspace("autograd" if phase == "backward" else "main")
        for name, v in now.items():
            if name not in _EACH_MOMENT and v < prev.get(name, 0):
                self._free(name, prev.get(name, 0) - v)
        for name, v in now.items():
            if name not in _EACH_MOMENT and v > prev.get(name, 0):
                self._alloc(name, v - prev.get(name, 0), kind, layer)
        scratch = [self.model.malloc(b) for n in _EACH_MOMENT if now.get(n, 0) > 0
                   for b in self._pieces(n, now[n], kind, layer)]
        top = (self.model.reserved, self.model.allocated, self.model.requested)
        for b in scratch:
            self.model.free(b)
        self.model.stream_done(COMPUTE)
        return top


def replay(m: ModelSpec, plan: Plan, s: TrainingSetup, settings: Settings, workspace: int, *,
           capacity: int | None = None, device_total: int | None = None) -> Replay:
    """Steps 1 and 2 of ``plan`` at ``s``'s batch and length through the allocator (module docstring), on a
    device that gives the allocator at most ``capacity`` bytes (None: unlimited; then ``OutOfMemory`` may be
    raised) of ``device_total`` (a memory fraction's base)."""
    from engine.training.estimate import plan_table, tokens_of

    table = plan_table(plan, 0, fine=True)
    values = table.values(*tokens_of(s))
    names = [str(r.name) for r in table.rules]
    seq = _Sequence(m, plan, s, settings, workspace, capacity=capacity, device_total=device_total)
    reserved, allocated, requested = [], [], []
    prev: dict[str, int] = {}
    for mo, row in zip(table.moments, values, strict=True):
        now = {n: round(float(v)) for n, v in zip(names, row, strict=True)}
        r, a, q = seq.moment(mo.kind, mo.phase, mo.layer, prev, now)
        reserved.append(r)
        allocated.append(a)
        requested.append(q)
        prev = {n: v for n, v in now.items() if n not in _EACH_MOMENT}
    res, alloc = np.asarray(reserved, dtype=np.int64), np.asarray(allocated, dtype=np.int64)
    peak = int(alloc.argmax())
    return Replay(res, alloc, np.asarray(requested, dtype=np.int64), seq.model.peak_reserved, peak, int(res[peak]),
                  int(alloc[peak]), len(seq.threads) * workspace)
