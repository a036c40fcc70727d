"""How accurate the host-RAM model is, computed from the measurements bundled in ``catalog/host_rss.json``.

Each row is measured by ``calibration/host_rss.py``: a DataLoader epoch over a dataset held one way, with 0, 2 or
4 forked workers (a process tree: the sum of its processes' PSS, so that a page they share counts once), or a
checkpoint loaded one way (one of two processes loading at once: its PSS, which splits the page cache of a file
both map, as the engine's per-process figure does). The engine costs the same case with
:func:`engine.training.host.host_estimate` (one GPU, no CUDA host side; the loading rows on the measured
checkpoint's architecture) and adds the measured figure before the data or the weights, which stands for the
runtime (measured on its own in the ``runtime-*`` rows). Two errors per row: of the total (what the issue asks to
be within 10%) and of the part the engine models alone (what the data, the workers or the weights add).

Streamed rows are listed but not held to that: what a streaming reader holds mid-epoch grew with the size of
the Parquet row group it was decoding (about six times its Arrow size in the main process, much less in forked
workers) and with the allocator (pyarrow's default mimalloc pool or glibc's), which the engine's figure (a shuffle
buffer and one row group per reader) does not follow. Nor are the rows
where transformers 5.24 left the weights file-backed (safetensors kept in their own dtype): both processes then
share one copy in the page cache (each one's RSS still shows all of it), while ``full-per-process`` costs a private
copy per process, as every other path makes one (the fp32 rows: a dtype change).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import cache
from importlib import resources
from typing import Any

from engine.specs import DatasetStorage, HostSetup, ModelLoading, ModelSpec, Precision, Sharding, TrainingSetup
from engine.training.host import RUNTIME_CPU_BYTES, host_estimate


@dataclass(frozen=True, slots=True)
class HostComparison:
    """One measured process (tree) against the engine's figure for the same case."""

    id: str
    described: str
    before_bytes: int  # measured RSS before the data or the weights: the runtime
    measured_bytes: int  # measured total: main RSS (+ workers' USS)
    modelled_bytes: int  # the engine's terms for this case (data + workers, or the weights this process loads)
    comparable: bool = True  # False: an effect the engine does not model (module docstring)

    @property
    def estimated_bytes(self) -> int:
        return self.before_bytes + self.modelled_bytes

    @property
    def error(self) -> float:
        """Signed relative error of the total (+0.01: 1% above the measured RSS)."""
        return self.estimated_bytes / self.measured_bytes - 1

    @property
    def added_bytes(self) -> int:
        return self.measured_bytes - self.before_bytes

    @property
    def added_error(self) -> float:
        """Signed relative error of the modelled part alone (what the data, workers or weights added)."""
        return self.modelled_bytes / max(self.added_bytes, 1) - 1


def _load() -> list[dict[str, Any]]:
    path = resources.files("engine.catalog").joinpath("host_rss.json")
    if not path.is_file():
        return []
    runs: list[dict[str, Any]] = json.loads(path.read_text(encoding="utf-8"))["runs"]
    return runs


def _dataset(r: dict[str, Any]) -> HostComparison:
    host = HostSetup(dataset_tokens=r["tokens"], dataset_storage=DatasetStorage(r["kind"]),
                     num_workers=r["workers"], prefetch_factor=r["prefetch_factor"])
    s = TrainingSetup(batch=r["batch"], seq_len=r["seq_len"], host=host)
    h = host_estimate(ModelSpec.model_validate(_TINY), s, cuda=False)
    modelled = sum(t.per_process for t in h.phases[1].terms if t.name in ("dataset", "dataloader_workers"))
    pool = f" ({r['arrow_pool']} pool)" if r.get("arrow_pool") else ""
    what = f"{r['kind']}{pool}, {r['tokens']:,} tokens, {r['workers']} worker(s)"
    return HostComparison(r["id"], what, r["before_bytes"], r["measured_bytes"], modelled,
                          r["kind"] != DatasetStorage.STREAMING)


def _loading(r: dict[str, Any]) -> HostComparison:
    n = r["world_size"]
    host = HostSetup(model_loading=ModelLoading(r["mode"]))
    s = TrainingSetup(gpus=n, sharding=Sharding.ZERO3, precision=Precision(r["precision"]), host=host)
    term = next(t for t in host_estimate(ModelSpec.model_validate(r["spec"]), s, cuda=False).phases[0].terms
                if t.name == "model_loading")
    modelled = 0 if r["mode"] == ModelLoading.RANK0_BROADCAST and r["rank"] else term.per_process
    mapped = r["file_bytes"] > r["local_weight_bytes"] // 2  # the weights stayed file-backed: a shared page cache
    what = f"{r['mode']} ({r['precision']}), rank {r['rank']} of {n}"
    return HostComparison(r["id"], what, r["before_bytes"], r["measured_bytes"], modelled,
                          not (mapped and r["mode"] == ModelLoading.FULL_PER_PROCESS))


#: any architecture: the dataset rows do not depend on the model
_TINY = {"id": "tiny", "vocab_size": 2, "hidden_size": 1, "num_layers": 1, "num_heads": 1, "num_kv_heads": 1,
         "intermediate_size": 1}


@cache
def host_runs() -> tuple[HostComparison, ...]:
    """Every dataset and loading row, each against the engine."""
    out = []
    for r in _load():
        if r["part"] == "dataset":
            out.append(_dataset(r))
        elif r["part"] == "loading":
            out.append(_loading(r))
    return tuple(out)


@cache
def runtime_rows() -> tuple[tuple[str, int], ...]:
    """(what was imported, measured RSS) of the runtime rows; the engine's constant is the last one."""
    return tuple((r["what"], r["measured_bytes"]) for r in _load() if r["part"] == "runtime")


@cache
def token_rows() -> tuple[tuple[str, float], ...]:
    """(form, measured bytes per token): the issue's sanity check (about 40, 89 and 4)."""
    return tuple((r["form"], r["bytes_per_token"]) for r in _load() if r["part"] == "tokens")


def runtime_constant_matches() -> bool:
    """The engine's runtime constant is the measured torch + transformers + meta-model row."""
    return any(what.endswith("meta-model") and rss == RUNTIME_CPU_BYTES for what, rss in runtime_rows())
