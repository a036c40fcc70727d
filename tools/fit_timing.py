"""Fit the step-time model's constants on published throughput and report its errors (issue 29).

Reads ``calibration/timing/published.json`` (one row per published measurement, with its source and the set it
belongs to: ``fit`` or ``validation``), predicts each row with ``engine.timing.step_time``, and

* ``--report``: prints the errors per source and set (and writes ``calibration/timing/report.md``);
* ``--fit``: fits the constants named in ``FITTED`` by minimising the squared log error over the ``fit`` rows
  (Nelder-Mead on the logs of the constants, within bounds), writes them to ``engine/timing/data/fitted.json``
  with their fit set, then reports;
* ``--gemm``: the GEMM model (``engine.timing.kernels.gemm_seconds``) against OpenXLA's measured H100 matmul
  table (``calibration/timing/gemm_h100_xla.json``): the fixed cost and epilogue share that fit it best, and the
  error.

Run from the repository root: ``python tools/fit_timing.py --fit``.
"""

from __future__ import annotations

import argparse
import json
import math
import statistics
import sys
from collections import defaultdict
from dataclasses import fields, replace
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from engine.catalog import get_gpu, get_model  # noqa: E402
from engine.specs import ModelSpec, TrainingSetup  # noqa: E402
from engine.timing import CannotTimeError, TimingOptions, step_time  # noqa: E402
from engine.timing.fitted import DATA as FITTED_JSON  # noqa: E402
from engine.timing.fitted import Fitted, fitted  # noqa: E402

ROWS = ROOT / "calibration" / "timing" / "published.json"
REPORT = ROOT / "calibration" / "timing" / "report.md"

#: what each constant means, its unit, and its bounds in the fit (None: sourced, not fitted)
META: dict[str, tuple[str, str, tuple[float, float] | None, str]] = {
    "gemm_peak_fraction": ("achieved / datasheet matmul peak for a GPU without a MAMF measurement", "ratio", None,
                           "median MAMF / peak of the measured NVIDIA GPUs (engine/catalog/gpu_perf.json: A100 0.87, "
                           "H100/H200 0.80, GH200 0.84, B200 0.78, B300 0.79, GB200 0.73)"),
    "gemm_sustained": ("sustained share of the maximum achievable matmul rate inside a training step (clocks under "
                       "load, the shapes a step runs)", "ratio", (0.5, 1.0), ""),
    "desktop_gemm_factor": ("desktop and workstation cards' matmul rate over their datasheet figure times the "
                            "MAMF fraction (GPU Boost runs above the rated boost clock under load)", "ratio",
                            (0.8, 1.25), ""),
    "gemm_fixed_s": ("seconds every GEMM costs beyond its work (launch, prologue, tail)", "s", (1e-6, 2e-5), ""),
    "gemm_epilogue": ("share of a GEMM's output write not hidden behind its main loop", "ratio", None,
                      "fitted on measured GEMMs, not on steps: the 72 H100 bf16 shapes of OpenXLA's matmul table "
                      "(calibration/timing/gemm_h100_xla.json; tools/fit_timing.py --gemm): 0.5 with a 5 us fixed "
                      "cost, 5.1% median error"),
    "memory_efficiency": ("achieved / datasheet memory bandwidth of elementwise kernels", "ratio", (0.4, 0.95), ""),
    "kernel_floor_s": ("the least GPU seconds of any kernel", "s", (1e-6, 1e-5), ""),
    "dequant_efficiency": ("achieved / datasheet bandwidth of an eager 4-bit dequantization kernel (bitsandbytes "
                           "dequantize_4bit, torchao NF4)", "ratio", (0.05, 0.95), ""),
    "flash2_fwd": ("FlashAttention-2 forward on Ampere / Ada, share of the datasheet peak", "ratio", None,
                   "Dao 2023, arXiv:2307.08691, abstract: up to 73% of the A100's peak"),
    "flash2_hopper_fwd": ("FlashAttention-2 forward on Hopper / Blackwell, share of the datasheet peak", "ratio", None,
                          "Shah et al. 2024, arXiv:2407.08608, s1: 35% on the H100"),
    "flash3_fwd": ("FlashAttention-3 / cuDNN fused attention forward, share of the datasheet peak", "ratio", None,
                   "Shah et al. 2024, abstract: 740 TFLOP/s, 75% of the H100's peak"),
    "attention_bwd_ratio": ("a fused attention backward's FLOP rate over its forward's", "ratio", (0.4, 1.0), ""),
    "attention_ramp_tokens": ("sequence length at which an attention kernel runs at half its long-sequence rate",
                              "tokens", (32.0, 4096.0), ""),
    "eager_softmax_efficiency": ("achieved / datasheet bandwidth of eager attention's s x s kernels", "ratio",
                                 (0.2, 0.95), ""),
    "cpu_op_eager_s": ("CPU seconds per dispatched op, eager PyTorch with autograd", "s", (2e-6, 6e-5), ""),
    "cpu_op_compiled_s": ("CPU seconds per launched kernel of a torch.compile'd graph", "s", (1e-6, 3e-5), ""),
    "cpu_op_megatron_s": ("CPU seconds per dispatched op, Megatron-Core / Transformer Engine", "s", (1e-6, 4e-5), ""),
    "cpu_checkpoint_hook_s": ("CPU seconds non-reentrant checkpointing's saved-tensor hooks add per forward and "
                              "rerun op (eager stacks)", "s", (1e-7, 4e-5), ""),
    "overlap_power": ("p of the soft maximum (gpu^p + cpu^p)^(1/p) of a micro-batch's GPU and CPU seconds", "",
                      (1.5, 12.0), ""),
    "link_efficiency": ("achieved / datasheet link bandwidth of NCCL collectives", "ratio", (0.3, 0.95), ""),
    "step_fixed_s": ("seconds per optimizer step outside the micro-batches (data loading, logging, syncs)", "s",
                     (1e-4, 0.2), ""),
    "float8_speedup": ("achieved float8 / bf16 GEMM rate, scaling and casts included (torchao, Transformer Engine)",
                       "ratio", (1.0, 2.0), ""),
}
FITTED = [k for k, v in META.items() if v[2] is not None]


def load() -> list[dict[str, Any]]:
    rows: list[dict[str, Any]] = json.loads(ROWS.read_text(encoding="utf-8"))["rows"]
    return rows


def load_ratios() -> list[dict[str, Any]]:
    ratios: list[dict[str, Any]] = json.loads(ROWS.read_text(encoding="utf-8")).get("ratios", [])
    return ratios


def published_ratios(constants: Fitted | None = None) -> list[tuple[dict[str, Any], float | None]]:
    """(ratio row, the model's ratio) for each published ratio (None: not timed)."""
    out: list[tuple[dict[str, Any], float | None]] = []
    for q in load_ratios():
        try:
            out.append((q, predict(q["numerator"], constants) / predict(q["denominator"], constants)))
        except CannotTimeError:
            out.append((q, None))
    return out


def _model(spec: str | dict[str, Any]) -> ModelSpec:
    return get_model(spec) if isinstance(spec, str) else ModelSpec.model_validate(spec)


def predict(row: dict[str, Any], constants: Fitted | None = None) -> float:
    """The row's metric as the model gives it."""
    m, gpu = _model(row["model"]), get_gpu(row["gpu"])
    options = {k: v for k, v in row.get("options", {}).items() if v is not None}
    setup = dict(row["setup"])
    if "stack" in options:  # the stack is the setup's (issue 25): its AdamW default follows it
        setup["stack"] = options.pop("stack")
    if "optimizer_impl" in options:
        setup["optimizer_impl"] = options.pop("optimizer_impl")
    s = TrainingSetup.model_validate(setup)
    opts = TimingOptions.of(s, **options)
    t = step_time(m, s, gpu, opts, constants)
    metric = row["metric"]
    if metric == "step_seconds":
        return t.step_seconds
    if metric == "tokens_per_second_total":
        return t.tokens_per_second_per_gpu * s.gpus
    return t.tokens_per_second_per_gpu


def errors(rows: list[dict[str, Any]], constants: Fitted | None = None) -> list[tuple[dict[str, Any], float | None]]:
    """(row, log(predicted / measured)) for each row; None where the model cannot time it."""
    out: list[tuple[dict[str, Any], float | None]] = []
    for r in rows:
        try:
            out.append((r, math.log(predict(r, constants) / r["value"])))
        except CannotTimeError:
            out.append((r, None))
    return out


def _with(base: Fitted, x: np.ndarray) -> Fitted:
    return replace(base, **{k: float(math.exp(v)) for k, v in zip(FITTED, x, strict=True)})


def _clip(x: np.ndarray) -> np.ndarray:
    lo = np.array([math.log(META[k][2][0]) for k in FITTED])  # type: ignore[index]
    hi = np.array([math.log(META[k][2][1]) for k in FITTED])  # type: ignore[index]
    clipped: np.ndarray = np.clip(x, lo, hi)
    return clipped


#: the H200 lever ratios the issue checks (numerator row, denominator row), weighted in the fit
RATIOS = [(f"h200-{m}-{a}-gc", f"h200-{m}-{a}-nogc") for m in ("full", "lora") for a in ("sdpa", "eager")] + [
    (f"h200-{m}-eager-{g}", f"h200-{m}-sdpa-{g}") for m in ("full", "lora") for g in ("gc", "nogc")] + [
    (f"h200-lora-{a}-{g}", f"h200-full-{a}-{g}") for a in ("sdpa", "eager") for g in ("gc", "nogc")]
RATIO_WEIGHT = 4.0


def ratio_errors(errs: list[tuple[dict[str, Any], float | None]]) -> list[tuple[str, float, float]]:
    """(name, measured, model) of every H200 lever ratio (``RATIOS``)."""
    by = {r["id"]: (r, e) for r, e in errs}
    out = []
    for a, b in RATIOS:
        (ra, ea), (rb, eb) = by[a], by[b]
        if ea is None or eb is None:
            continue
        measured = ra["value"] / rb["value"]
        out.append((f"{a} / {b}", measured, measured * math.exp(ea - eb)))
    return out


def loss(x: np.ndarray, base: Fitted, rows: list[dict[str, Any]]) -> float:
    c = _with(base, _clip(x))
    errs = errors(rows, c)
    e = [v for _, v in errs if v is not None]
    # a robust loss: squared log error, linear beyond 30% (pseudo-Huber), so that a few odd rows do not rule
    total = sum(0.3 ** 2 * (math.sqrt(1 + (v / 0.3) ** 2) - 1) for v in e)
    total += RATIO_WEIGHT * sum((mod - mea) ** 2 for _, mea, mod in ratio_errors(errs))
    for q, v in published_ratios(c):
        if q["set"] == "fit" and v is not None:
            total += math.log(v / q["value"]) ** 2
    return float(total)


def nelder_mead(f: Any, x0: np.ndarray, steps: int, scale: float = 0.3) -> np.ndarray:
    """Minimise ``f`` from ``x0`` (Nelder & Mead 1965; standard coefficients)."""
    n = len(x0)
    simplex = [x0] + [x0 + scale * np.eye(n)[i] for i in range(n)]
    values = [f(x) for x in simplex]
    for _ in range(steps):
        order = np.argsort(values)
        simplex = [simplex[i] for i in order]
        values = [values[i] for i in order]
        centroid = np.mean(simplex[:-1], axis=0)
        worst = simplex[-1]
        xr = centroid + (centroid - worst)
        fr = f(xr)
        if fr < values[0]:
            xe = centroid + 2 * (centroid - worst)
            fe = f(xe)
            simplex[-1], values[-1] = (xe, fe) if fe < fr else (xr, fr)
        elif fr < values[-2]:
            simplex[-1], values[-1] = xr, fr
        else:
            xc = centroid + 0.5 * (worst - centroid)
            fc = f(xc)
            if fc < values[-1]:
                simplex[-1], values[-1] = xc, fc
            else:
                best = simplex[0]
                simplex = [best] + [best + 0.5 * (x - best) for x in simplex[1:]]
                values = [values[0]] + [f(x) for x in simplex[1:]]
    best_point: np.ndarray = simplex[int(np.argmin(values))]
    return best_point


def fit(rows: list[dict[str, Any]], steps: int) -> Fitted:
    base = fitted()
    train = [r for r in rows if r["set"] == "fit"]
    x0 = np.array([math.log(getattr(base, k)) for k in FITTED])
    best = _clip(nelder_mead(lambda x: loss(x, base, train), x0, steps))
    return _with(base, best)


def write(c: Fitted, rows: list[dict[str, Any]]) -> None:
    sources = sorted({r["source"] for r in rows if r["set"] == "fit"})
    params: dict[str, Any] = {}
    for f_ in fields(Fitted):
        meaning, unit, bounds, source = META[f_.name]
        entry: dict[str, Any] = {"value": getattr(c, f_.name), "unit": unit, "meaning": meaning}
        if bounds is None:
            entry["source"] = source
        else:
            entry["fitted"] = True
            entry["bounds"] = list(bounds)
        params[f_.name] = entry
    FITTED_JSON.write_text(json.dumps({
        "schema": 1,
        "note": "Written by tools/fit_timing.py --fit. Fitted constants: least squares on the log step time "
                "(pseudo-Huber, 30%) over the fit set's rows of calibration/timing/published.json; sourced ones carry "
                "their source.",
        "fit_set": sources, "parameters": params}, indent=1) + "\n", encoding="utf-8")


def _pct(v: float) -> str:
    return f"{100 * (math.exp(v) - 1):+.1f}%"


def report(rows: list[dict[str, Any]], constants: Fitted | None = None, out: Path | None = REPORT) -> str:
    errs = errors(rows, constants)
    by: dict[tuple[str, str], list[float]] = defaultdict(list)
    refused = [r["id"] for r, e in errs if e is None]
    for r, e in errs:
        if e is not None:
            by[(r["set"], r["source"])].append(e)
    lines = ["| set | source | rows | median abs error | median signed | worst |", "|---|---|---|---|---|---|"]
    for (sset, src), es in sorted(by.items()):
        a = [abs(math.exp(e) - 1) for e in es]
        worst = max(es, key=abs)
        lines.append(f"| {sset} | {src} | {len(es)} | {100 * statistics.median(a):.1f}% | "
                     f"{_pct(statistics.median(es))} | {_pct(worst)} |")
    for sset in ("fit", "validation"):
        a = [abs(math.exp(e) - 1) for r, e in errs if e is not None and r["set"] == sset]
        if a:
            lines.append(f"| {sset} | all | {len(a)} | {100 * statistics.median(a):.1f}% | | {100 * max(a):.0f}% |")
    allv = [abs(math.exp(e) - 1) for _, e in errs if e is not None]
    lines.append(f"| all | all | {len(allv)} | {100 * statistics.median(allv):.1f}% | | {100 * max(allv):.0f}% |")
    detail = ["", "| row | measured | model | error |", "|---|---|---|---|"]
    for r, e in errs:
        if e is None:
            continue
        detail.append(f"| {r['id']} | {r['value']:g} | {r['value'] * math.exp(e):.4g} | {_pct(e)} |")
    ratios = ["", "| H200 lever ratio | measured | model | difference |", "|---|---|---|---|"]
    ratios += [f"| {n} | {a:.3f} | {b:.3f} | {b - a:+.3f} |" for n, a, b in ratio_errors(errs)]
    ratios += ["", "| published ratio | source | measured | model | error |", "|---|---|---|---|---|"]
    ratios += [f"| {q['id']} | {q['source'].split(' (')[0]} | {q['value']:.3f} | {v:.3f} | "
               f"{100 * (v / q['value'] - 1):+.1f}% |" for q, v in published_ratios(constants) if v is not None]
    text = "\n".join(lines + ([f"\nnot timed: {', '.join(refused)}"] if refused else []) + ratios + detail)
    if out is not None:
        out.write_text("# Step-time model against published throughput\n\nWritten by tools/fit_timing.py.\n\n"
                       + text + "\n", encoding="utf-8")
    return text


GEMM_TABLE = ROOT / "calibration" / "timing" / "gemm_h100_xla.json"


def gemm_fit() -> str:
    """The GEMM model's (fixed seconds, epilogue share) grid-fitted on the measured H100 GEMMs, and its errors at
    the MAMF rate (an isolated GEMM: no sustained-clock factor)."""
    from engine.timing.hardware import gpu_perf
    from engine.timing.kernels import gemm_seconds

    perf = gpu_perf(get_gpu("h100-80gb"))
    table = json.loads(GEMM_TABLE.read_text(encoding="utf-8"))["rows"]

    def errs(fixed: float, epilogue: float) -> list[float]:
        c = replace(fitted(), gemm_fixed_s=fixed, gemm_epilogue=epilogue)
        return [math.log(gemm_seconds(r["m"], r["n"], r["k"], perf, c, batch=r["b"], rate=perf.mamf["bf16"])
                         / (2 * r["b"] * r["m"] * r["n"] * r["k"] / r["bf16_flops"])) for r in table]

    grid = [(f, e) for f in (2e-6, 3e-6, 4e-6, 5e-6, 6e-6) for e in (0.0, 0.25, 0.5, 0.75, 1.0)]
    best = min(grid, key=lambda fe: statistics.median(abs(v) for v in errs(*fe)))
    a = [abs(math.exp(v) - 1) for v in errs(*best)]
    return (f"{len(table)} H100 GEMMs: fixed {best[0] * 1e6:.0f} us, epilogue {best[1]:g}: median error "
            f"{100 * statistics.median(a):.1f}%, worst {100 * max(a):.0f}%")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--fit", action="store_true")
    ap.add_argument("--steps", type=int, default=400)
    ap.add_argument("--report", action="store_true")
    ap.add_argument("--gemm", action="store_true")
    args = ap.parse_args()
    if args.gemm:
        print(gemm_fit())
        return
    rows = load()
    if args.fit:
        c = fit(rows, args.steps)
        write(c, rows)
        print(report(rows, c))
    else:
        print(report(rows))


if __name__ == "__main__":
    main()
