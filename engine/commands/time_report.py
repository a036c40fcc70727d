"""``estimate``'s step time: the ``--epochs`` and ``--price-per-gpu-hour`` flags and the ``time`` JSON object
(issue 29's contract).

``time`` = {``step_seconds`` (one optimizer step, accumulation included), ``tokens_per_second_per_gpu``, ``mfu``
and ``mfu_convention`` (the FLOPs it counts), ``model_flops_per_token``, ``tokens_per_step``, ``stack``,
``breakdown`` (seconds of the step: ``compute``, ``memory_bound``, ``communication_exposed``, ``bubble``,
``offload``, ``overhead``: the CPU's launches and the step's fixed costs), ``source``}; with ``--dataset-tokens N``
and ``--epochs E`` also ``steps``, ``run_hours`` and ``gpu_hours``, and with ``--price-per-gpu-hour P`` ``cost``
(``gpu_hours x P``, in P's currency). A case the model cannot time gives ``time: {"error": "cannot time ..."}``.
"""

from __future__ import annotations

import argparse
import math
from typing import Any

from engine.specs import GpuSpec, ModelSpec, TrainingSetup
from engine.timing import CannotTimeError, StepTime, step_time
from engine.timing.run import run_cost

SOURCE = ("engine/timing: op by op over the training plan (GEMMs at the GPU's maximum achievable matmul rate, "
          "attention kernels, the stack's elementwise kernels, collectives over their links, the pipeline "
          "bubble, offload over PCIe, CPU launches); constants fitted in engine/timing/data/fitted.json "
          "(tools/fit_timing.py; errors in docs/accuracy.md, 'Step time')")


def _positive(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number: {text!r}") from None
    if not (math.isfinite(value) and value > 0):
        raise argparse.ArgumentTypeError(f"must be a positive number, got {text!r}")
    return value


def add_time_arguments(p: argparse.ArgumentParser) -> None:
    g = p.add_argument_group("run time and cost (with --dataset-tokens)")
    g.add_argument("--epochs", type=_positive, default=None, help="passes over --dataset-tokens: run hours")
    g.add_argument("--price-per-gpu-hour", type=_positive, default=None,
                   help="your price of one GPU-hour (any currency): the run's cost")


def check_time_arguments(a: argparse.Namespace) -> None:
    """``--epochs`` needs ``--dataset-tokens``; a price needs both."""
    epochs, price = getattr(a, "epochs", None), getattr(a, "price_per_gpu_hour", None)
    if epochs is not None and not a.dataset_tokens:
        raise ValueError("--epochs needs --dataset-tokens (the tokens of one epoch)")
    if price is not None and epochs is None:
        raise ValueError("--price-per-gpu-hour needs --dataset-tokens and --epochs (the run it prices)")


def time_of(m: ModelSpec, s: TrainingSetup, gpu: GpuSpec) -> StepTime | str:
    """The step time, or the one-line reason the model cannot time it."""
    try:
        return step_time(m, s, gpu)
    except CannotTimeError as e:
        return str(e)


def time_json(m: ModelSpec, s: TrainingSetup, gpu: GpuSpec, epochs: float | None = None,
              price: float | None = None) -> dict[str, Any]:
    """The ``time`` object (module docstring)."""
    t = time_of(m, s, gpu)
    if isinstance(t, str):
        return {"error": t}
    out = {**t.as_json(), "source": SOURCE}
    if epochs is not None and s.host.dataset_tokens:
        out.update(run_cost(t, s.gpus, s.host.dataset_tokens, epochs, price).as_json())
        if price is not None:
            out["price_per_gpu_hour"] = price
    return out


def time_text(data: dict[str, Any]) -> list[str]:
    """The text lines of a ``time`` object."""
    if "error" in data:
        return [f"step time        {data['error']}"]
    lines = [f"step time        {data['step_seconds']:.3g} s, {data['tokens_per_second_per_gpu']:,.0f} tokens/s "
             f"per GPU, MFU {100 * data['mfu']:.0f}% ({data['stack']})"]
    if "run_hours" in data:
        cost = f", cost {data['cost']:,.2f}" if "cost" in data else ""
        lines.append(f"run              {data['run_hours']:,.2f} h, {data['gpu_hours']:,.1f} GPU-hours{cost}")
    return lines
