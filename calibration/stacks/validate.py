"""The stack harness on fake tensors against the same steps on real CPU tensors, counted the same way.

    PYTHONPATH=. /work/calib-venv/bin/python -m calibration.stacks.validate

Tiny Llama (2 layers, hidden 64) through `hf_trainer.run_case` with `fake=True` and `fake=False`: QLoRA with PEFT's
default checkpointing and without, paged 8-bit AdamW and foreach AdamW, 2,048 tokens (past bitsandbytes' 1,536-row
limit, so the forward runs the dequantize + F.linear path) and 128 (its custom kernel), and a full fine-tune with
foreach AdamW. The real run executes bitsandbytes' CPU kernels and torch's CPU ops; the fake one their fake kernels.

Result (torch 2.13.0+cpu, transformers 5.24.0, peft 0.21.2, bitsandbytes 0.50.2): three of four identical in
`peak_bytes`, `peak_phase`, all six phase peaks and the at-peak breakdown; the paged 8-bit case is 2,048 bytes
(0.013%) higher on fake tensors from the optimizer's creation on: the 8-bit optimizer's two 256-entry fp32 code
maps (`Optimizer8bit.fill_qmap`), which are made on real tensors (bnb_cuda.py point 2) and counted once more as
the fake tensors the fake mode makes of them. A constant 2 KB, not per layer.
"""

from __future__ import annotations

import sys
from typing import Any

from calibration.stacks.cases import full_case, qlora_case

CASES = [
    qlora_case("tiny-llama", seq_len=2048),
    qlora_case("tiny-llama", seq_len=2048, checkpointing="none", optim="adamw_torch"),
    qlora_case("tiny-llama", seq_len=128, rank=8, targets="qv", optim="paged_adamw_32bit"),
    full_case("tiny-llama", seq_len=256),
]
FIELDS = ("peak_bytes", "peak_phase", "phase_peaks", "at_peak", "weights_at_peak", "paged_bytes")


def main() -> int:
    from calibration.stacks import hf_trainer

    failed = 0
    for case in CASES:
        fake, real = hf_trainer.run_case(case, fake=True), hf_trainer.run_case(case, fake=False)
        diff: dict[str, Any] = {k: (fake[k], real[k]) for k in FIELDS if fake[k] != real[k]}
        failed += bool(diff)
        status = "identical" if not diff else f"DIFFERENT {diff}"
        print(f"{case['id']:64s} fake {fake['peak_bytes']:>12,}  real {real['peak_bytes']:>12,}  {status}", flush=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
