"""A memory snapshot made by PyTorch itself on this CPU-only machine (dev only; writes a test fixture).

``torch.cuda.memory._record_memory_history`` needs CUDA (the CPU build's ``torch._C`` lacks
``_cuda_record_memory_history``), but ``torch.profiler`` with ``profile_memory=True`` records every CPU
allocation, and PyTorch's own ``torch.cuda._memory_viz._profile_to_snapshot`` turns that profile into the
snapshot shape memory_viz opens (its ``profile_plot``): ``segments`` and ``device_traces`` with ``alloc`` /
``free_requested`` / ``free_completed`` events, frames named by the profiler (``"path.py(line): function"``,
filename ``"none"``), and on each ``alloc`` the profiler's own ``category`` (parameter, gradient,
optimizer_state, activation, temporary...). ``tests/engine/snapshot/test_profiler_fixture.py`` reads it.

That converter gives every version of a tensor the frames of its first allocation and turns each in-place
update into a free and an alloc, so its frames do not say where each event happened, as the CUDA allocator's do:
good for checking the reader and the replay on a file PyTorch made, not for checking phases or terms.

Run from the repository root (about 10 s; the output path is the test's fixture):
    /work/calib-venv/bin/python -m calibration.profiler_snapshot \
        tests/engine/snapshot/data/profiler_tiny_llama.pickle.gz

Two Trainer-like steps of ``tiny-llama`` (``calibration/models.py``), fp32, SDPA, batch 2 x 64 tokens, fused
AdamW, gradient clipping at 1.0, ``zero_grad(set_to_none=True)``; the weights exist before profiling starts.
"""

from __future__ import annotations

import argparse
import gzip
import pickle
import sys
from pathlib import Path

import torch
from torch.cuda._memory_viz import _profile_to_snapshot
from torch.profiler import ProfilerActivity, profile

from calibration.models import build_model, materialize

CASE = {"model": "tiny-llama", "precision": "fp32", "attention": "sdpa", "checkpointing": "none", "method": "full"}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("out", type=Path)
    args = ap.parse_args()
    torch.manual_seed(0)
    model = materialize(build_model(CASE))
    opt = torch.optim.AdamW(model.parameters(), lr=1e-5, fused=True)
    ids = torch.randint(0, 512, (2, 64))
    with profile(activities=[ProfilerActivity.CPU], profile_memory=True, record_shapes=True,
                 with_stack=True) as prof:
        for _ in range(2):
            loss = model(input_ids=ids, labels=ids).loss
            loss.backward()
            del loss
            torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
            opt.step()
            opt.zero_grad(set_to_none=True)
    snap = _profile_to_snapshot(prof)
    data = gzip.compress(pickle.dumps(snap), mtime=0)
    args.out.write_bytes(data)
    events = sum(len(t) for t in snap["device_traces"])
    print(f"{args.out}: {events:,} events, {len(data):,} bytes (gzip)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
