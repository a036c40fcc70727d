"""Synthetic PyTorch memory snapshots, written from the documented schema, for tests and the load benchmark.

``torch.cuda.memory._record_memory_history`` needs a CUDA build (on the CPU build ``torch._C`` has no
``_cuda_record_memory_history``), so these snapshots are built here instead: the engine's model of the caching
allocator (``engine.allocator.caching``: 512-byte rounding, 2 MiB segments for blocks up to 1 MiB, 20 MiB or
larger segments beyond, best fit, splitting and merging, expandable segments with ``settings``) replays a training
loop written as allocations and frees with the frames a real step has (Python frames innermost first, shared frame
dicts as PyTorch's symbolizer shares them, optionally C++ frames as ``stacks="all"`` records them), and its trace
entries become the snapshot's events. The result has the shape of ``torch.cuda.memory._snapshot()`` (schema:
``torch/cuda/memory.py``): ``segments`` with their blocks at the end, and ``device_traces`` with ``alloc``,
``free_requested``/``free_completed``, ``segment_alloc``, ``segment_free`` (``segment_map``/``segment_unmap``
with expandable segments) and ``oom`` events.

The builder also keeps the truth: the live requested bytes after every event (and before the first), each
block's term, and the reserved bytes, so a test can check a replay against it.

Run ``python tools/snapshot_fixtures.py OUT.pickle [--events N] [--stacks python|all] [--gzip]`` to write one.
"""

from __future__ import annotations

import argparse
import gzip
import pickle
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from engine.allocator.caching import Block, CachingAllocator, OutOfMemory
from engine.allocator.rules import Settings

MIB = 1024 * 1024
SITE = "/opt/conda/lib/python3.11/site-packages/"


class FakeAllocator:
    """The engine's caching allocator model, writing a snapshot (module docstring)."""

    def __init__(self, device: int = 0, settings: Settings | None = None) -> None:
        self.device = device
        self.settings = settings or Settings()
        self.model = CachingAllocator(self.settings, trace=self._trace)
        self.blocks: dict[int, Block] = {}  # allocated blocks by address
        self.frames_of: dict[int, list[dict[str, Any]]] = {}
        self.term_of: dict[int, str] = {}
        self.events: list[dict[str, Any]] = []
        self.recording = False
        self.live = 0  # requested bytes of active blocks
        self.time = 1_700_000_000_000_000
        self.truth_allocated: list[int] = []  # after each event
        self.truth_initial = 0
        self.terms_live: dict[str, int] = {}
        self.peak_terms: dict[str, int] = {}
        self.peak = -1
        self._frames: list[dict[str, Any]] = []
        self._pending: tuple[int, str] = (0, "")

    # -- events -----------------------------------------------------------------------------------------------
    def _trace(self, action: str, addr: int, size: int, stream: int) -> None:
        """The model's trace entries (``record_trace``); an ``alloc`` counts its block as live from here on."""
        if action == "alloc":
            requested, term = self._pending
            self.live += requested
            self.terms_live[term] = self.terms_live.get(term, 0) + requested
        self._event(action, addr, size, stream)

    def _event(self, action: str, addr: int, size: int, stream: int = 0) -> None:
        if not self.recording:
            return
        self.time += 7
        key = "device_free" if action == "oom" else "addr"
        self.events.append({"action": action, key: addr, "size": size, "stream": stream, "time_us": self.time,
                            "frames": list(self._frames)})
        self.truth_allocated.append(self.live)
        if self.live > self.peak:
            self.peak = self.live
            self.peak_terms = {k: v for k, v in self.terms_live.items() if v}

    def start_recording(self) -> None:
        """Like ``_record_memory_history``: from now on, events are recorded."""
        self.recording = True
        self.truth_initial = self.live
        self.peak = self.live
        self.peak_terms = {k: v for k, v in self.terms_live.items() if v}

    # -- allocation ---------------------------------------------------------------------------------------------
    def malloc(self, requested: int, frames: list[dict[str, Any]], term: str, stream: int = 0) -> int:
        """Allocate ``requested`` bytes; returns the block's address."""
        self._frames, self._pending = frames, (requested, term)
        block = self.model.malloc(requested, stream)
        self.blocks[block.addr] = block
        self.frames_of[block.addr] = frames if self.recording else []
        self.term_of[block.addr] = term
        return block.addr

    def free(self, addr: int, frames: list[dict[str, Any]]) -> None:
        block = self.blocks.pop(addr)
        self.live -= block.requested
        self.terms_live[self.term_of.pop(addr)] -= block.requested
        self.frames_of.pop(addr)
        self._frames = frames
        self.model.free(block)

    def oom(self, requested: int, capacity: int, frames: list[dict[str, Any]]) -> None:
        """A failed allocation on a device of ``capacity`` bytes: the retry releases every cached segment
        (``release_cached_blocks``), then the ``oom`` event."""
        self._frames = frames
        self.model.capacity = capacity
        try:
            self.model.malloc(requested)
        except OutOfMemory:
            pass
        finally:
            self.model.capacity = None

    @property
    def reserved(self) -> int:
        return self.model.reserved

    # -- output -------------------------------------------------------------------------------------------------
    def snapshot(self) -> dict[str, Any]:
        """The dict ``torch.cuda.memory._snapshot()`` returns (unused optional keys left out)."""
        segments = []
        for v in self.model.segment_views():
            blocks = [{"address": b.addr, "size": b.size, "requested_size": b.requested,
                       "state": _state(b), "frames": self.frames_of.get(b.addr, []) if b.allocated else []}
                      for b in v.blocks]
            allocated = sum(b.size for b in v.blocks if b.allocated)
            segments.append({
                "device": self.device, "address": v.address, "total_size": v.size, "stream": v.stream,
                "segment_type": "small" if v.small else "large", "segment_pool_id": (0, 0),
                "allocated_size": allocated, "active_size": allocated,
                "requested_size": sum(b.requested for b in v.blocks), "is_expandable": v.expandable, "frames": [],
                "blocks": blocks,
            })
        traces: list[list[dict[str, Any]]] = [[] for _ in range(self.device + 1)]
        traces[self.device] = self.events
        return {"segments": segments, "device_traces": traces, "allocator_settings": _settings(self.settings)}


def _settings(s: Settings) -> dict[str, Any]:
    """``allocator_settings`` as ``torch/csrc/cuda/Module.cpp`` writes it (``max_split_size`` -1: unlimited;
    ``roundup_power2_divisions`` by interval start in MB)."""
    conf = [*(["expandable_segments:True"] if s.expandable_segments else []),
            *([f"max_split_size_mb:{s.max_split_size // MIB}"] if s.max_split_set else []),
            *([f"garbage_collection_threshold:{s.garbage_collection_threshold}"]
              if s.garbage_collection_threshold else [])]
    divisions = s.roundup_power2_divisions or (0,) * 16
    return {"PYTORCH_CUDA_ALLOC_CONF": ",".join(conf), "max_split_size": s.max_split_size if s.max_split_set else -1,
            "garbage_collection_threshold": s.garbage_collection_threshold,
            "expandable_segments": s.expandable_segments,
            "roundup_power2_divisions": {str(1 << i): d for i, d in enumerate(divisions)}}


def _state(b: Block) -> str:
    """A block's state as ``torch/csrc/cuda/Module.cpp`` names it."""
    if b.allocated:
        return "active_allocated"
    return "active_pending_free" if b.event_count else "inactive"


class Frames:
    """Stacks of a Hugging Face-style training loop, innermost first, built from shared frame dicts."""

    def __init__(self, stacks: str = "python") -> None:
        self.cpp = stacks == "all"
        self._cache: dict[tuple[str, int, str], dict[str, Any]] = {}

    def f(self, filename: str, line: int, name: str) -> dict[str, Any]:
        key = (filename, line, name)
        if key not in self._cache:
            self._cache[key] = {"filename": filename, "line": line, "name": name}
        return self._cache[key]

    def _alloc_cpp(self) -> list[dict[str, Any]]:
        if not self.cpp:
            return []
        return [self.f("??", 0, "c10::cuda::CUDACachingAllocator::Native::DeviceCachingAllocator::malloc(...)"),
                self.f("??", 0, "at::native::empty_cuda(...)")]

    def main(self) -> list[dict[str, Any]]:
        return [self.f("train.py", 41, "train_step"), self.f("train.py", 63, "<module>")]

    def module(self, inner: str, line: int) -> list[dict[str, Any]]:
        mod = SITE + "torch/nn/modules/module.py"
        call = [self.f(mod, 1762, "_call_impl"), self.f(mod, 1751, "_wrapped_call_impl")]
        llama = SITE + "transformers/models/llama/modeling_llama.py"
        return [*self._alloc_cpp(), self.f(SITE + inner, line, "forward"), *call,
                self.f(llama, 310, "forward"), *call, self.f(llama, 560, "forward"), *call, *self.main()]

    def weights(self) -> list[dict[str, Any]]:
        mod = SITE + "torch/nn/modules/module.py"
        return [*self._alloc_cpp(), self.f(mod, 1343, "convert"), self.f(mod, 942, "_apply"),
                self.f(mod, 1355, "to"), self.f("train.py", 20, "<module>")]

    def loss(self) -> list[dict[str, Any]]:
        utils = SITE + "transformers/loss/loss_utils.py"
        return [*self._alloc_cpp(), self.f(SITE + "torch/nn/functional.py", 3462, "cross_entropy"),
                self.f(utils, 36, "fixed_cross_entropy"), self.f(utils, 67, "ForCausalLMLoss"),
                *self.module("transformers/models/llama/modeling_llama.py", 590)[len(self._alloc_cpp()) + 1:]]

    def backward_main(self) -> list[dict[str, Any]]:
        return [*self._alloc_cpp(), self.f(SITE + "torch/autograd/graph.py", 824, "_engine_run_backward"),
                self.f(SITE + "torch/autograd/__init__.py", 353, "backward"),
                self.f(SITE + "torch/_tensor.py", 647, "backward"), *self.main()]

    def backward(self, node: str = "MmBackward0") -> list[dict[str, Any]]:
        """The autograd engine's thread: no Python frames; with C++ stacks, the node and the engine."""
        if not self.cpp:
            return []
        return [*self._alloc_cpp(), self.f("??", 0, f"torch::autograd::generated::{node}::apply(...)"),
                self.f("??", 0, "torch::autograd::Engine::evaluate_function(...)"),
                self.f("??", 0, "torch::autograd::Engine::thread_main(...)")]

    def optimizer(self, inner: str) -> list[dict[str, Any]]:
        optim = SITE + "torch/optim/"
        return [*self._alloc_cpp(), self.f(optim + "adamw.py", 180 if inner == "_init_group" else 420, inner),
                self.f(optim + "adamw.py", 230, "step"), self.f(optim + "optimizer.py", 485, "wrapper"),
                *self.main()]

    def clip(self) -> list[dict[str, Any]]:
        return [*self._alloc_cpp(), self.f(SITE + "torch/nn/utils/clip_grad.py", 40, "clip_grad_norm_"),
                *self.main()]

    def zero_grad(self) -> list[dict[str, Any]]:
        return [self.f(SITE + "torch/optim/optimizer.py", 960, "zero_grad"), *self.main()]

    def other(self) -> list[dict[str, Any]]:
        return [*self._alloc_cpp(), self.f("train.py", 38, "train_step"), self.f("train.py", 63, "<module>")]


@dataclass(frozen=True)
class StepShape:
    """Sizes of the toy model: ``layers`` layers of ``weight`` bytes each, ``act`` saved bytes per layer."""

    layers: int = 4
    weight: int = 8 * MIB
    act: int = 3 * MIB
    temp: int = 5 * MIB
    logits: int = 6 * MIB
    batch: int = 4096


def training(shape: StepShape = StepShape(), *, steps: int = 2, stacks: str = "python", oom: bool = True,
             record_weights: bool = False, clip: bool = True, settings: Settings | None = None) -> FakeAllocator:
    """Two training steps (forward, loss, backward, clipping, AdamW, ``zero_grad``) of a toy model.

    The weights are allocated before recording (so their blocks predate the trace) unless ``record_weights``; a
    cached buffer allocated before recording is freed during step 1 (a free with no alloc in the trace). The
    first optimizer step creates two states per weight; later ones allocate nothing (a fused AdamW), so only
    ``zero_grad``'s frees mark them (and gradient clipping, unless ``clip`` is False). After the steps, an
    allocation of 1 TiB fails: an ``oom`` event.
    """
    fr, a = Frames(stacks), FakeAllocator(settings=settings)
    cached = a.malloc(MIB, fr.other(), "unattributed")
    if record_weights:
        a.start_recording()
    for _ in range(shape.layers):
        a.malloc(shape.weight, fr.weights(), "weights")
    if not record_weights:
        a.start_recording()
    a.free(cached, fr.other())
    grads: list[int] = []
    for step in range(steps):
        _one_step(a, fr, shape, grads, first=step == 0, clip=clip)
    if oom:
        a.oom(1 << 40, 80 * 1024 * MIB, fr.module("torch/nn/modules/linear.py", 125))
    return a


def _one_step(a: FakeAllocator, fr: Frames, shape: StepShape, grads: list[int], *, first: bool, clip: bool) -> None:
    """One step; ``grads`` holds the gradients' addresses until ``zero_grad`` frees them."""
    batch = a.malloc(shape.batch, fr.other(), "unattributed")
    saved = []
    for _ in range(shape.layers):  # forward: each layer saves its activations, with a temporary on the way
        saved.append(a.malloc(shape.act, fr.module("torch/nn/modules/linear.py", 125), "activations"))
        tmp = a.malloc(shape.temp, fr.module("torch/nn/modules/activation.py", 432), "temporaries")
        a.free(tmp, fr.module("torch/nn/modules/activation.py", 433))
    logits = a.malloc(shape.logits, fr.module("torch/nn/modules/linear.py", 125), "logits")
    logp = a.malloc(2 * shape.logits, fr.loss(), "logits")
    seed = a.malloc(512, fr.backward_main(), "temporaries")
    dlogits = a.malloc(2 * shape.logits, fr.backward("LogSoftmaxBackward0"), "logits")
    a.free(logp, fr.backward())
    a.free(logits, fr.backward())
    for layer in reversed(range(shape.layers)):  # backward: gradients appear as activations go
        grads.append(a.malloc(shape.weight, fr.backward("AccumulateGrad"), "gradients"))
        dx = a.malloc(shape.act, fr.backward(), "temporaries")
        a.free(saved[layer], fr.backward())
        a.free(dx, fr.backward())
    a.free(dlogits, fr.backward())
    a.free(seed, fr.backward())
    if clip:
        norm = a.malloc(4 * shape.layers, fr.clip(), "temporaries")
        a.free(norm, fr.clip())
    if first:  # AdamW creates exp_avg and exp_avg_sq at its first step
        for _ in range(2 * shape.layers):
            a.malloc(shape.weight, fr.optimizer("_init_group"), "optimizer_states")
        upd = a.malloc(shape.weight, fr.optimizer("_multi_tensor_adamw"), "temporaries")
        a.free(upd, fr.optimizer("_multi_tensor_adamw"))
    for g in grads:  # zero_grad(set_to_none=True)
        a.free(g, fr.zero_grad())
    grads.clear()
    a.free(batch, fr.other())


def large(events: int, stacks: str = "python") -> dict[str, Any]:
    """A snapshot of at least ``events`` events: as many training steps of a 64-layer model as it takes."""
    shape = StepShape(layers=64, weight=MIB, act=MIB // 2, temp=MIB // 4, logits=4 * MIB)
    per_step = 10 * shape.layers + 30  # about
    return training(shape, steps=max(2, -(-events // per_step)), stacks=stacks, oom=False).snapshot()


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("out", type=Path)
    ap.add_argument("--events", type=int, default=0, help="at least this many events (default: two small steps)")
    ap.add_argument("--stacks", choices=["python", "all"], default="python")
    ap.add_argument("--gzip", action="store_true")
    args = ap.parse_args()
    snap = large(args.events, args.stacks) if args.events else training(stacks=args.stacks).snapshot()
    data = pickle.dumps(snap, protocol=4)
    args.out.write_bytes(gzip.compress(data) if args.gzip else data)
    print(f"{args.out}: {sum(len(t) for t in snap['device_traces']):,} events, {len(data):,} bytes")
    return 0


if __name__ == "__main__":
    sys.exit(main())
