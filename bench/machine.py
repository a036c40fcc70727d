"""What every benchmark shares: the machine factor, targets and how a run reports against them.

These machines differ about 3x in single-thread speed (shared/ENVIRONMENT.md, "Timing"), so a figure from one
says little on its own. Each benchmark prints its **machine factor**: the best time of ``sum(range(10000))`` in
CPython over 100 us, about 1 on a typical laptop and 2.5 to 3 on the slow development machine. A target given
"x machine factor" is scaled by it; a ratio against a baseline started the same way in the same run (start-up
against a bare window) needs no scaling.
"""

from __future__ import annotations

import json
import timeit
from collections.abc import Mapping
from dataclasses import asdict, dataclass

LAPTOP_SECONDS = 100e-6


def machine_factor() -> float:
    """Best of several timings of ``sum(range(10000))``, over a typical laptop's 100 us."""
    best = min(timeit.repeat("sum(range(10000))", number=200, repeat=7)) / 200
    return round(best / LAPTOP_SECONDS, 2)


@dataclass(frozen=True, slots=True)
class Target:
    """One measured figure against its limit (``scaled``: the limit is multiplied by the machine factor)."""

    name: str
    value: float
    limit: float
    unit: str
    scaled: bool = False

    def limit_here(self, factor: float) -> float:
        return self.limit * factor if self.scaled else self.limit

    def met(self, factor: float) -> bool:
        return self.value <= self.limit_here(factor)

    def line(self, factor: float) -> str:
        scale = f" x machine factor {factor:g} = {self.limit_here(factor):g}" if self.scaled else ""
        verdict = "met" if self.met(factor) else "MISSED"
        return f"{self.name}: {self.value:g} {self.unit} (target <= {self.limit:g} {self.unit}{scale}): {verdict}"


def report(result: Mapping[str, object], targets: list[Target], as_json: bool) -> int:
    """Print the result (JSON, or one line per target) with the machine factor; 1 if a target was missed."""
    factor = machine_factor()
    checked = [{**asdict(t), "limit_here": t.limit_here(factor), "met": t.met(factor)} for t in targets]
    if as_json:
        print(json.dumps({**result, "machine_factor": factor, "targets": checked}))
    else:
        print(f"machine factor {factor:g} (sum(range(10000)) best / 100 us)")
        for t in targets:
            print("  " + t.line(factor))
    return 0 if all(t.met(factor) for t in targets) else 1
