"""Allocator model speed: one training step of a 70B-sized model, about 31,500 allocator trace entries (target:
<= 0.5 s median x machine factor; measured 0.04-0.05 s at machine factor 1.3-1.5).

The sequence is shaped like a Llama 2 70B step under FSDP on 8 GPUs at 4,096 tokens (80 layers; per layer a
gathered bf16 weight buffer on an all-gather stream held until the compute stream is done with it, a dozen saved
activations and a few temporaries in the forward pass, and in backward the gradients, reduce-scattered on their own
stream, and the activations freed), plus the loss and an optimizer step: the event count and sizes of a real step,
not its exact tensors. Run: ``python bench/allocator_replay.py [--json] [--check]``.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.machine import Target, report
from engine.allocator import Block, CachingAllocator, Settings

MIB = 1024 * 1024
LAYERS, TOKENS, HIDDEN, FFN = 80, 4096, 8192, 28672
GATHER, REDUCE = 1, 2  # streams


def _layer_forward(a: CachingAllocator, saved: list[list[Block]]) -> None:
    gathered = a.malloc(2 * (4 * HIDDEN * HIDDEN + 3 * HIDDEN * FFN) // 8, GATHER)  # 1/8 of the layer's bf16 weights
    a.record_stream(gathered, 0)
    keep = []
    for width in (HIDDEN, HIDDEN, HIDDEN // 8, HIDDEN // 8, HIDDEN, HIDDEN, FFN, FFN, FFN, HIDDEN, HIDDEN, 64):
        keep.append(a.malloc(2 * TOKENS * width))
        tmp = a.malloc(4 * TOKENS * width // 2)
        a.free(tmp)
    for _ in range(40):  # small tensors: norms' statistics, RoPE tables, masks, views' storages
        a.free(a.malloc(4 * TOKENS))
    a.free(gathered)
    a.stream_done(0)
    saved.append(keep)


def _layer_backward(a: CachingAllocator, keep: list[Block]) -> None:
    gathered = a.malloc(2 * (4 * HIDDEN * HIDDEN + 3 * HIDDEN * FFN) // 8, GATHER)
    a.record_stream(gathered, 0)
    grads = a.malloc(4 * (4 * HIDDEN * HIDDEN + 3 * HIDDEN * FFN) // 8)
    for b in reversed(keep):
        dx = a.malloc(b.requested)
        a.free(b)
        a.free(dx)
        for _ in range(4):
            a.free(a.malloc(4 * TOKENS))
    a.record_stream(grads, REDUCE)
    a.free(grads)
    a.free(gathered)
    a.stream_done(0)
    a.stream_done(REDUCE)


def step(a: CachingAllocator) -> None:
    saved: list[list[Block]] = []
    for _ in range(LAYERS):
        _layer_forward(a, saved)
    logits = a.malloc(4 * TOKENS * 32000)
    dlogits = a.malloc(4 * TOKENS * 32000)
    a.free(logits)
    for keep in reversed(saved):
        _layer_backward(a, keep)
    a.free(dlogits)
    for _ in range(2 * LAYERS):  # a foreach optimizer's temporaries, layer by layer
        a.free(a.malloc(4 * (4 * HIDDEN * HIDDEN + 3 * HIDDEN * FFN) // 8))


def events_per_step() -> int:
    count = [0]

    def trace(action: str, addr: int, size: int, stream: int) -> None:
        count[0] += 1

    step(CachingAllocator(trace=trace))
    return count[0]


def bench(repeats: int = 7, settings: Settings | None = None) -> float:
    times = []
    for _ in range(repeats):
        a = CachingAllocator(settings)
        t0 = time.perf_counter()
        step(a)
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--check", action="store_true", help="exit 1 when a target is missed")
    args = ap.parse_args()
    result = {"events": events_per_step(), "step_s": round(bench(), 3),
              "step_expandable_s": round(bench(settings=Settings(expandable_segments=True)), 3)}
    targets = [Target("70B-sized step through the allocator model (median)", float(result["step_s"]), 0.5, "s",
                      scaled=True),
               Target("the same with expandable segments (median)", float(result["step_expandable_s"]), 0.5, "s",
                      scaled=True)]
    missed = report(result, targets, args.json)
    return missed if args.check else 0


if __name__ == "__main__":
    sys.exit(main())
