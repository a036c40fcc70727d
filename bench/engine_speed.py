"""Engine speed: one estimate (target <= 50 us median), a 256-point sequence-length sweep (<= 5 ms) and one
lesson check (<= 1 ms median for the slowest lesson: the GUI checks the goal on every slider move).

Run: ``python bench/engine_speed.py [--json]``. Medians over repeated runs; every run uses a fresh setup
object (a new pydantic model, as a slider move makes), so caches keyed on the setup are not flattered.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.machine import Target, report
from engine.catalog import get_gpu, get_model
from engine.lessons import Changes, lessons
from engine.specs import TrainingSetup
from engine.training import estimate
from engine.training.sweep import sweep_seq_len


def bench_estimate(repeats: int = 2000) -> float:
    m, gpu = get_model("llama-2-7b"), get_gpu("a100-80gb")
    base = TrainingSetup()
    setups = [base.with_(seq_len=128 + (i % 97) * 64) for i in range(repeats)]
    estimate(m, setups[0], gpu)  # warm the per-model caches, as a running app has
    times = []
    for s in setups:
        t0 = time.perf_counter()
        estimate(m, s, gpu)
        times.append(time.perf_counter() - t0)
    return statistics.median(times) * 1e6


def bench_sweep(repeats: int = 200) -> float:
    m, gpu = get_model("llama-2-7b"), get_gpu("a100-80gb")
    lengths = [int(128 * 1024 ** (i / 255)) for i in range(256)]
    times = []
    for i in range(repeats):
        s = TrainingSetup(batch=1 + i % 4)
        t0 = time.perf_counter()
        sweep_seq_len(m, s, gpu, lengths)
        times.append(time.perf_counter() - t0)
    return statistics.median(times) * 1e3


def bench_lesson_checks(repeats: int = 200) -> dict[str, tuple[float, float]]:
    """Per lesson, median microseconds of ``Lesson.check`` on its solution with a setup it has not seen (the
    gradient-accumulation count varies): cold (the engine builds its cost table for the new setup) and warm (the
    same situation checked again, as after the page itself has computed it: the engine's caches hit, the goal and
    its sentence are built anew)."""
    out = {}
    for lesson in lessons():
        solved = lesson.solution_situation()
        situations = [solved.changed(Changes.model_validate({"setup": {"grad_accum": 2 + i}}))
                      for i in range(repeats)]
        cold: list[float] = []
        warm: list[float] = []
        for s in situations:
            for times in (cold, warm):
                t0 = time.perf_counter()
                lesson.check(s)
                times.append(time.perf_counter() - t0)
        out[lesson.id] = (statistics.median(cold) * 1e6, statistics.median(warm) * 1e6)
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--check", action="store_true", help="exit 1 when a target is missed")
    args = ap.parse_args()
    checks = bench_lesson_checks()
    slowest = max(checks, key=lambda k: checks[k][1])
    result = {"estimate_us": round(bench_estimate(), 2), "sweep_256_ms": round(bench_sweep(), 3),
              "lesson_check_warm_us": round(statistics.median(w for _, w in checks.values()), 1),
              "lesson_check_warm_slowest_us": round(checks[slowest][1], 1), "lesson_check_slowest": slowest,
              "lesson_check_cold_us": round(statistics.median(c for c, _ in checks.values()), 1),
              "lesson_check_cold_slowest_us": round(max(c for c, _ in checks.values()), 1)}
    if not args.json:
        print(f"lesson check, a setup the engine has not seen: {result['lesson_check_cold_us']:.0f} us median; "
              f"slowest {result['lesson_check_cold_slowest_us']:.0f} us ({result['lesson_check_slowest']} is the "
              "slowest warm)")
    estimate_us, sweep_ms = float(str(result["estimate_us"])), float(str(result["sweep_256_ms"]))
    slowest_us = float(str(result["lesson_check_warm_slowest_us"]))
    targets = [Target("one estimate (median)", estimate_us, 50, "us", scaled=True),
               Target("256-point sequence sweep (median)", sweep_ms, 5, "ms", scaled=True),
               Target("slowest lesson check, caches warm", slowest_us, 1000, "us", scaled=True)]
    missed = report(result, targets, args.json)
    return missed if args.check else 0


if __name__ == "__main__":
    sys.exit(main())
