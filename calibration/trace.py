"""Trace the peak memory of two training steps of each calibration case, without allocating it.

    /work/calib-venv/bin/python -m calibration.trace --all       # regenerate calibration/traces.jsonl
    /work/calib-venv/bin/python -m calibration.trace --case ID   # run one case, replace its line
    /work/calib-venv/bin/python -m calibration.trace --list      # list the cases

The model is built on `meta`, then given fake CPU storage inside `FakeTensorMode`; the step runs for real on
fake tensors while `LiveBytes` counts the bytes of live storages (see counter.py). `run_case(case, fake=False)`
runs the same thing on real CPU tensors (validate.py compares the two).
"""

from __future__ import annotations

import argparse
import contextlib
import json
import sys
import time
import warnings
from pathlib import Path
from typing import Any

import torch
from transformers.utils import logging as transformers_logging

from calibration import kernels, long_context, options, patches
from calibration.cases import CASES, case_by_id
from calibration.counter import LiveBytes
from calibration.models import CATALOG, build_model, materialize
from calibration.step import make_optimizer, mark_kinds, train_step

TRACES = Path(__file__).with_name("traces.jsonl")


def run_case(case: dict[str, Any], fake: bool = True) -> dict[str, Any]:
    """Trace one case; return its record (see README for the fields)."""
    patches.apply()
    kernels.install()  # before the model's modeling file is imported: transformers binds the kernels then
    kernels.LAUNCHED.clear()
    start = time.perf_counter()
    model = options.build_model(case) if options.builds(case) else build_model(case)
    fake_mode = torch._subclasses.fake_tensor.FakeTensorMode
    mode = fake_mode(allow_non_fake_inputs=True) if fake else contextlib.nullcontext()
    counter = LiveBytes()
    offload = None
    with mode:
        materialize(model)
        extra = options.quantize(model) if options.builds(case) else []  # the 8-bit base's row scales
        opt = options.make_optimizer(model, case) if options.is_option(case) else make_optimizer(model)
        vocab = model.get_output_embeddings().weight.shape[0]
        input_ids = torch.randint(0, vocab, (case["batch"], case["seq_len"]))
        lc = long_context.is_long_context(case)
        offload = long_context.prepare(model, case) if lc else None
        with counter:
            counter.track(input_ids)
            mark_kinds(model, opt, counter)
            for t in extra:
                counter.mark(t, "parameters")
            options.mark_extra(opt, counter)
            int8_kernels = options.CudaInt8() if options.builds(case) else contextlib.nullcontext()
            for n in (1, 2):
                with int8_kernels:  # the 8-bit base's kernels as CUDA allocates them
                    if lc:
                        long_context.train_step(model, opt, input_ids, case=case, counter=counter, n=n,
                                                offload=offload)
                    else:
                        train_step(model, opt, input_ids, precision=case["precision"], counter=counter, n=n)
    record = _record(case, model, counter, time.perf_counter() - start)
    if offload is not None:
        record["host_offloaded_peak_bytes"] = offload.host_peak  # what moved to host RAM, at its largest
    if kernels.LAUNCHED:  # the kernel packages' fakes this model ran (calibration/kernels.py)
        record["fake_kernels"] = sorted(kernels.LAUNCHED)
    if case.get("loss") == "chunked":  # run by TRL's own code
        import trl

        record["trl"] = trl.__version__
    return record


def _record(case: dict[str, Any], model: torch.nn.Module, counter: LiveBytes, seconds: float) -> dict[str, Any]:
    import peft
    import transformers

    params = list(model.parameters())
    return {
        **{k: case[k] for k in ("id", "model")},
        "hf_config": CATALOG[case["model"]],
        **{k: v for k, v in case.items() if k not in ("id", "model")},
        "lora_target_modules": _resolved_targets(model, "target_modules"),
        "lora_target_parameters": _resolved_targets(model, "target_parameters"),
        "total_params": sum(p.numel() for p in params),
        "trainable_params": sum(p.numel() for p in params if p.requires_grad),
        "peak_bytes": counter.peak,
        "peak_phase": counter.peak_phase,
        "phase_peaks": counter.phase_peaks,
        "at_peak": counter.at_peak(),
        "at_peak_top_activations": counter.top_at_peak(),
        "torch": torch.__version__.split("+")[0],
        "transformers": transformers.__version__,
        "peft": peft.__version__,
        "trace_seconds": round(seconds, 2),
    }


def _resolved_targets(model: torch.nn.Module, field: str) -> list[str] | None:
    """The LoRA targets PEFT resolved ("all-linear" becomes names; on MoE it adds expert parameters)."""
    config = getattr(model, "peft_config", None)
    if not config:
        return None
    return sorted(getattr(config["default"], field, None) or [])  # OFTConfig has no target_parameters


def _write(records: dict[str, dict[str, Any]]) -> None:
    """Write the records in case order (those of unknown cases last)."""
    order = {c["id"]: i for i, c in enumerate(CASES)}
    ids = sorted(records, key=lambda i: order.get(i, len(order)))
    TRACES.write_text("".join(json.dumps(records[i]) + "\n" for i in ids))


def _load() -> dict[str, dict[str, Any]]:
    if not TRACES.exists():
        return {}
    return {r["id"]: r for r in map(json.loads, TRACES.read_text().splitlines()) if r}


def _run(ids: list[str], keep: dict[str, dict[str, Any]]) -> int:
    """Run the cases one at a time, rewriting traces.jsonl after each; return the number that failed."""
    failed = 0
    for case_id in ids:
        try:
            record = run_case(case_by_id(case_id))
        except Exception as exc:  # keep going: one architecture failing must not lose the others
            failed += 1
            print(f"{case_id:56s} FAILED: {type(exc).__name__}: {str(exc)[:200]}", flush=True)
            continue
        keep[case_id] = record
        _write(keep)
        print(f"{case_id:56s} peak {record['peak_bytes'] / 2**30:8.3f} GiB  {record['peak_phase']}  "
              f"{record['trace_seconds']:5.1f} s", flush=True)
    return failed


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    group = parser.add_mutually_exclusive_group(required=True)
    group.add_argument("--all", action="store_true", help="run every case, rewrite traces.jsonl")
    group.add_argument("--case", action="append", metavar="ID", help="run one case (repeatable)")
    group.add_argument("--list", action="store_true", help="list the case ids")
    args = parser.parse_args(argv)
    warnings.filterwarnings("ignore")  # PEFT and transformers warn about things that do not change memory
    transformers_logging.set_verbosity_error()
    if args.list:
        for c in CASES:
            print(c["id"])
        return 0
    if args.all:
        return 1 if _run([c["id"] for c in CASES], {}) else 0
    return 1 if _run(args.case, _load()) else 0


if __name__ == "__main__":
    sys.exit(main())
