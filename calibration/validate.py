"""Check the fake-tensor trace against a real CPU run of the same steps, counted the same way.

    /work/calib-venv/bin/python -m calibration.validate

Each check case runs twice: on fake tensors (nothing allocated) and on real CPU tensors with real values. The
counter must report the same peak, the same per-phase peaks and the same at-peak breakdown, byte for byte: that
shows fake tensors allocate, alias and free exactly as the real kernels do for this step (kernel choice included,
e.g. SDPA's flash path).

The real run is also watched by torch.profiler's allocator events (every CPU allocation and free, tensors or
not): their running peak must match the counter's to within 1% (the gap is memory the kernels allocate without
making a tensor, such as checkpointing's saved RNG state). This does not check CUDA: see README for the
comparison with the H200 measurements.
"""

from __future__ import annotations

import sys
import warnings

import torch
from torch.profiler import ProfilerActivity, profile
from transformers.utils import logging as transformers_logging

from calibration.cases import CHECKS
from calibration.counter import allocator_peak
from calibration.trace import run_case

FIELDS = ("peak_bytes", "peak_phase", "phase_peaks", "at_peak")


def check(c: dict) -> bool:
    fake = run_case(c, fake=True)
    with profile(activities=[ProfilerActivity.CPU], profile_memory=True) as prof:
        real = run_case(c, fake=False)
    alloc = allocator_peak(prof)
    same = all(fake[f] == real[f] for f in FIELDS)
    near = 0 <= alloc - real["peak_bytes"] <= 0.01 * real["peak_bytes"]
    print(f"{c['id']:18s} fake {fake['peak_bytes']:>10,d}  real {real['peak_bytes']:>10,d}  "
          f"{'identical' if same else 'DIFFERENT'}  allocator {alloc:>10,d} "
          f"({100 * (alloc / real['peak_bytes'] - 1):+.3f}%)  {fake['peak_phase']}", flush=True)
    if not same:
        for f in FIELDS:
            if fake[f] != real[f]:
                print(f"    {f}: fake {fake[f]}\n    {f}: real {real[f]}")
    return same and near


def main() -> int:
    warnings.filterwarnings("ignore")
    transformers_logging.set_verbosity_error()
    torch.manual_seed(0)
    results = [check(c) for c in CHECKS]
    print(f"{sum(results)} of {len(results)} cases: fake == real, allocator within 1%")
    return 0 if all(results) else 1


if __name__ == "__main__":
    sys.exit(main())
