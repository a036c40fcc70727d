"""Published vLLM start-up logs against ``python -m engine serve``, each run as its user ran it.

Every file of ``tests/engine/serving/data/logs/`` is one start-up a user (or a public benchmark) posted: the URL,
the setup as its author stated it, the ``serve`` flags that state the same setup (``args``), and only the log lines
that carry the figures (the weights, the KV cache's memory, blocks or tokens). ``check(path)`` runs ``serve`` with
those flags and compares:

* the KV capacity: the logged tokens (``GPU KV cache size: N tokens``, or the token count of vLLM's "max seq len ...
  larger than the maximum number of tokens that can be stored in KV cache (N)" error), else the logged blocks
  (``# GPU blocks: N``: ``num_blocks``), else the logged bytes (``Available KV cache memory``, ``kv_cache_size``,
  ``the rest of the memory reserved for KV Cache is``);
* the weights: ``Loading model weights took`` / ``Model loading took`` / ``model weights take`` (GiB; the older
  lines say "GB" for the same GiB figure, ``DeviceMemoryProfiler`` divides by 2^30).

``python tools/serve_logs.py`` prints one row per log and the error distribution (median and 90th percentile of
the absolute error) per vLLM version range: the table in docs/accuracy.md's serving section (kept in
docs/accuracy/serving.md).
"""

from __future__ import annotations

import argparse
import math
import re
import statistics
import sys
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

from engine.commands import serve  # noqa: E402
from engine.serving.vllm_versions import parse_version  # noqa: E402

LOGS = REPO / "tests" / "engine" / "serving" / "data" / "logs"
GIB = 2**30
#: version ranges of the summary, by the rule changes of engine.serving.vllm_versions
RANGES = (((0, 2, 0), (0, 5, 5), "0.2-0.5"), ((0, 6, 0), (0, 6, 6), "0.6"), ((0, 7, 0), (0, 8, 5), "0.7-0.8"),
          ((0, 9, 0), (0, 10, 2), "0.9-0.10"), ((0, 11, 0), (0, 16, 99), "0.11-0.16"),
          ((0, 17, 0), (0, 19, 99), "0.17-0.19"))

_WEIGHTS = (r"Loading model weights took ([\d.]+) GB", r"Model loading took ([\d.]+) Gi?B",
            r"model weights take ([\d.]+) ?GiB", r"weights memory: ([\d.]+) ?GiB")
_TOKENS = (r"GPU KV cache size: ([\d,]+) tokens", r"can be stored in KV cache \((\d+)\)")
_BLOCKS = (r"(?:# )?(?:GPU|CUDA|cuda) blocks: (\d+)", r"num_gpu_blocks is: (\d+)")
_KV_GIB = (r"Available KV cache memory: ([\d.]+) GiB", r"reserved for KV Cache is ([\d.]+) ?GiB",
           r"kv_cache_size=([\d.]+) ?GiB", r"available_kv_cache_memory\s+([\d.]+) ?GiB")


@dataclass(frozen=True, slots=True)
class Logged:
    """The figures one stored log gives (None: the log does not print it)."""

    weights_gib: float | None
    tokens: int | None
    blocks: int | None
    kv_gib: float | None


@dataclass(frozen=True, slots=True)
class Check:
    """One log against ``serve``: the KV capacity's metric, both values and the relative errors."""

    name: str
    version: str
    engine: str
    source: str
    metric: str  # tokens | blocks | bytes
    logged_kv: float
    predicted_kv: float
    logged_weights: float | None
    predicted_weights: float
    kv_tolerance: float
    weights_tolerance: float

    @property
    def kv_error(self) -> float:
        return self.predicted_kv / self.logged_kv - 1

    @property
    def weights_error(self) -> float | None:
        if self.logged_weights is None:
            return None
        return self.predicted_weights / self.logged_weights - 1


def _first(patterns: tuple[str, ...], text: str) -> str | None:
    for p in patterns:
        m = re.search(p, text)
        if m:
            return m.group(1).replace(",", "")
    return None


def parse_log(text: str) -> Logged:
    """The figures of a stored log (the first line of each kind: the driver worker's)."""
    w, t, b, k = (_first(p, text) for p in (_WEIGHTS, _TOKENS, _BLOCKS, _KV_GIB))
    return Logged(float(w) if w else None, int(t) if t else None, int(b) if b else None,
                  float(k) if k else None)


def load(path: Path) -> dict[str, Any]:
    with path.open("rb") as f:
        return tomllib.load(f)


def startup(args: list[str]) -> dict[str, Any]:
    """``serve --json`` with these flags, as the CLI runs it."""
    parser = argparse.ArgumentParser()
    serve.add_serve_arguments(parser)
    data, _ = serve.run(parser.parse_args(args))
    return data


def check(path: Path) -> Check:
    data = load(path)
    args = [str(x) for x in data["args"]]
    logged = parse_log(str(data.get("log", "")))
    if "logged" in data:  # figures a publication parsed out of its logs (no log lines published)
        x = data["logged"]
        logged = Logged(x.get("weights_gib"), x.get("tokens"), x.get("blocks"), x.get("kv_gib"))
    st = startup(args)
    if logged.tokens is not None:
        metric, got, want = "tokens", float(st["kv_cache_tokens"]), float(logged.tokens)
    elif logged.blocks is not None:
        metric, got, want = "blocks", float(st["num_blocks"]), float(logged.blocks)
    elif logged.kv_gib is not None:
        metric, got, want = "bytes", st["kv_cache_bytes"] / GIB, logged.kv_gib
    else:
        raise ValueError(f"{path.name}: the log gives no KV capacity")
    return Check(path.stem, st["vllm_version"], st["vllm_engine"], str(data["source"]), metric, want, got,
                 logged.weights_gib, st["weights_bytes"] / GIB, float(data.get("kv_tolerance", 0.03)),
                 float(data.get("weights_tolerance", 0.01)))


def paths() -> list[Path]:
    return sorted(LOGS.glob("*.toml"))


def version_range(version: str) -> str:
    v = parse_version(version)
    return next(name for lo, hi, name in RANGES if lo <= v <= hi)


def nearest_rank(xs: list[float], q: float) -> float:
    """The ``q`` quantile of ``xs`` (nearest rank: the smallest value with at least ``q`` of them at or below)."""
    s = sorted(xs)
    return s[max(0, math.ceil(q * len(s)) - 1)]


def summary(checks: list[Check]) -> list[tuple[str, int, float, float, int, float]]:
    """(range, logs, KV median |error|, KV p90 |error|, logs with weights, weights median |error|) per range and
    over all."""
    groups: dict[str, list[Check]] = {}
    for c in checks:
        groups.setdefault(version_range(c.version), []).append(c)
    groups["all"] = checks
    out = []
    for name in [r[2] for r in RANGES] + ["all"]:
        cs = groups.get(name, [])
        if not cs:
            continue
        kv = [abs(c.kv_error) for c in cs]
        w = [abs(e) for c in cs if (e := c.weights_error) is not None]
        out.append((name, len(cs), statistics.median(kv), nearest_rank(kv, 0.9), len(w),
                    statistics.median(w) if w else math.nan))
    return out


def main() -> int:
    checks = [check(p) for p in paths()]
    print("| log | vLLM | metric | logged | predicted | error | weights logged | predicted | error |")
    print("|---|---|---|---|---|---|---|---|---|")
    for c in checks:
        w = f"{c.logged_weights:.4g} | {c.predicted_weights:.4g} | {c.weights_error:+.2%}" \
            if c.weights_error is not None else f"- | {c.predicted_weights:.4g} | -"
        print(f"| {c.name} | {c.version} {c.engine} | {c.metric} | {c.logged_kv:,.6g} | {c.predicted_kv:,.6g} | "
              f"{c.kv_error:+.2%} | {w} |")
    print()
    print("| vLLM | logs | KV median | KV p90 | weights logs | weights median |")
    print("|---|---|---|---|---|---|")
    for name, n, med, p90, nw, wmed in summary(checks):
        print(f"| {name} | {n} | {med:.2%} | {p90:.2%} | {nw} | {wmed:.2%} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
