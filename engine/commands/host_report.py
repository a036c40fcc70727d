"""The host-RAM flags of ``python -m engine estimate`` and its ``host`` JSON object and text section (issue 20).

Flags and keys are a contract: ``--model-loading``, ``--dataset-tokens``, ``--dataset-storage``, ``--num-workers``,
``--prefetch-factor``, ``--pin-memory``, ``--nodes``, ``--host-ram-gb``; ``host`` = {``per_node_bytes``,
``per_process_bytes``, ``processes_per_node``, ``terms``, ``terms_detail``, ...}.
"""

from __future__ import annotations

import argparse
from typing import Any

from engine.specs import DatasetStorage, HostSetup, ModelLoading
from engine.training.host import HostEstimate
from engine.units import GB, Unit, format_bytes


def _positive_gb(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number: {text!r}") from None
    if not 0 < value < 1e9:  # NaN fails both comparisons
        raise argparse.ArgumentTypeError(f"must be a positive number of GB, got {text!r}")
    return value


def add_host_arguments(p: argparse.ArgumentParser) -> None:
    """How the model is loaded, how the data is held and read, how the GPUs are spread over nodes."""
    d = HostSetup()
    g = p.add_argument_group("host RAM")
    g.add_argument("--model-loading", choices=[e.value for e in ModelLoading], default=d.model_loading.value)
    g.add_argument("--dataset-tokens", type=int, default=d.dataset_tokens, help="tokens in the training set")
    g.add_argument("--dataset-storage", choices=[e.value for e in DatasetStorage], default=d.dataset_storage.value)
    g.add_argument("--num-workers", type=int, default=d.num_workers, help="DataLoader workers per process")
    g.add_argument("--prefetch-factor", type=int, default=d.prefetch_factor, help="batches per worker in flight")
    g.add_argument("--pin-memory", action="store_true", help="DataLoader pin_memory=True")
    g.add_argument("--nodes", type=int, default=d.nodes, help="machines the GPUs are spread over (must divide --gpus)")
    g.add_argument("--host-ram-gb", type=_positive_gb, default=None, help="one node's RAM, for a verdict")


def host_from_args(a: argparse.Namespace) -> HostSetup:
    return HostSetup(
        model_loading=ModelLoading(a.model_loading),
        dataset_tokens=a.dataset_tokens,
        dataset_storage=DatasetStorage(a.dataset_storage),
        num_workers=a.num_workers,
        prefetch_factor=a.prefetch_factor,
        pin_memory=a.pin_memory,
        nodes=a.nodes,
        ram_bytes=None if a.host_ram_gb is None else round(a.host_ram_gb * GB),
    )


def host_json(h: HostEstimate) -> dict[str, Any]:
    """``terms``: bytes per node at the peak phase, summing to ``per_node_bytes``."""
    terms = h.terms
    verdict = h.verdict
    return {
        "per_node_bytes": h.per_node_bytes,
        "per_process_bytes": h.per_process_bytes,
        "processes_per_node": h.processes_per_node,
        "nodes": h.nodes,
        "peak_phase": h.peak.name,
        "terms": {t.name: t.per_node for t in terms},
        "terms_detail": [
            {"name": t.name, "bytes": t.per_node, "per_process_bytes": t.per_process, "formula": t.formula,
             "source": t.source, "detail": t.detail}
            for t in terms
        ],
        "phases": [{"phase": p.name, "per_node_bytes": p.per_node, "per_process_bytes": p.per_process}
                   for p in h.phases],
        "ram_bytes": h.ram_bytes,
        "fits": None if verdict is None else h.headroom_bytes is not None and h.headroom_bytes >= 0,
        "verdict": None if verdict is None else verdict.value,
        "headroom_bytes": h.headroom_bytes,
        **({"disk_bytes": h.disk_bytes} if h.disk_bytes else {}),  # NVMe offload (issue 27): only then
    }


def host_text(h: HostEstimate) -> list[str]:
    """The text section: each term per node (and per process), then the node total and the verdict."""
    u = Unit.GB
    lines = [f"host RAM per node ({h.processes_per_node} process(es) on each of {h.nodes} node(s)), "
             f"peak while {h.peak.name}"]
    lines += [f"  {t.name:<19} {format_bytes(t.per_node, u):>12}  ({format_bytes(t.per_process, u)} per process)"
              for t in h.terms if t.per_node]
    other = [p for p in h.phases if p is not h.peak]
    lines += [f"  (while {p.name}: {format_bytes(p.per_node, u)} per node)" for p in other]
    if h.offloaded_activations:
        lines.append(f"  saved activations {format_bytes(h.offloaded_activations * h.processes_per_node, u):>12}  "
                     "moved to host RAM per node while training (activation offload)")
    total = f"host RAM         {format_bytes(h.per_node_bytes, u):>12}  per node"
    if h.ram_bytes is not None and h.headroom_bytes is not None:
        verdict = h.verdict.value if h.verdict is not None and h.headroom_bytes >= 0 else (
            f"short by {format_bytes(-h.headroom_bytes, u)}")
        total += f" of {format_bytes(h.ram_bytes, u)}: {verdict}"
    return [*lines, total]
