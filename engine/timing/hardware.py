"""What a GPU can do per second: peak dense FLOP/s per dtype, memory bandwidth, the links between GPUs.

The figures are data (``engine/catalog/gpu_perf.json``, each GPU with its vendor datasheet or whitepaper), keyed
by the ids of ``engine/catalog/gpus.json``. A GPU the file does not cover, or lists as ``unavailable``, cannot be
timed: :func:`gpu_perf` raises :class:`CannotTimeError` naming it and why.

Units: FLOP/s and bytes/s. Link bandwidths are per direction: the file holds NVLink / Infinity Fabric as vendors
publish it (both directions together), halved here; PCIe is the PCI-SIG rate per direction of a x16 link
(gen3 15.75 GB/s, gen4 31.5, gen5 63, gen6 126: 8, 16, 32, 64 GT/s x 16 lanes, 128b/130b coding), scaled by lanes;
a network link is bits per second over 8.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

from engine.specs import GpuSpec

DATA = Path(__file__).resolve().parent.parent / "catalog" / "gpu_perf.json"
TERA = 1e12
GIGA = 1e9
#: PCIe bytes per second per direction of a x16 link, by generation (PCI-SIG: 8, 16, 32, 64 GT/s, 128b/130b)
PCIE_X16 = {3: 15.75e9, 4: 31.5e9, 5: 63.0e9, 6: 126.0e9}


class CannotTimeError(ValueError):
    """A case the step-time model cannot time; the message names what and why (one line)."""


@dataclass(frozen=True, slots=True)
class GpuPerf:
    """One GPU's throughput figures (module docstring: units and sources)."""

    id: str
    arch: str
    sm_count: int
    peak: dict[str, float]  # FLOP/s by dtype: bf16, fp16, fp8, tf32, fp32 (dense)
    mamf: dict[str, float]  # measured maximum achievable matmul FLOP/s by dtype (where measured)
    hbm: float  # memory bandwidth, bytes/s
    nvlink: float  # per direction, bytes/s (0: none)
    pcie: float  # per direction, bytes/s
    p2p: bool  # peer-to-peer over PCIe between cards of this type
    node_gpus: int  # GPUs in one NVLink / PCIe domain (a node)
    network: float  # bytes/s per GPU per direction between nodes
    source: str

    def has(self, dtype: str) -> bool:
        return dtype in self.peak

    @property
    def intra_node(self) -> float:
        """Bytes/s per direction between two GPUs of a node: NVLink, else PCIe; without peer-to-peer NCCL stages
        every transfer through host memory (its SHM transport): each byte crosses PCIe twice and is copied once
        in host memory, a third of the link (NCCL ``transport/shm.cc``)."""
        if self.nvlink:
            return self.nvlink
        return self.pcie if self.p2p else self.pcie / 3


def _raw() -> dict[str, Any]:
    data: dict[str, Any] = json.loads(DATA.read_text(encoding="utf-8"))
    return data


def _perf(d: dict[str, Any]) -> GpuPerf:
    pcie = d["pcie"]
    node = d["node"]
    return GpuPerf(
        id=d["id"], arch=d["arch"], sm_count=int(d["sm_count"]),
        peak={k: float(v) * TERA for k, v in d["peak_tflops"].items()},
        mamf={k: float(v) * TERA for k, v in d.get("mamf_tflops", {}).items()},
        hbm=float(d["hbm_gbps"]) * GIGA, nvlink=float(d["nvlink_gbps"]) * GIGA / 2,
        pcie=PCIE_X16[int(pcie["gen"])] * int(pcie["lanes"]) / 16, p2p=bool(d["p2p"]),
        node_gpus=int(node["gpus"]), network=float(node["network_gbit_per_gpu"]) * GIGA / 8, source=d["source"])


@cache
def _table() -> tuple[dict[str, GpuPerf], dict[str, str]]:
    raw = _raw()
    perf: dict[str, GpuPerf] = {}
    for d in raw["gpus"]:
        p = _perf(d)
        for key in (d["id"], *d.get("aliases", ())):
            perf[key] = p
    refused = {d["id"]: d["reason"] for d in raw["unavailable"]}
    return perf, refused


def gpu_perf(gpu: GpuSpec) -> GpuPerf:
    """The figures of ``gpu`` (``CannotTimeError`` naming the GPU where there are none)."""
    perf, refused = _table()
    if gpu.id in refused:
        raise CannotTimeError(f"cannot time {gpu.name}: {refused[gpu.id]}")
    found = perf.get(gpu.id)
    if found is None:
        raise CannotTimeError(f"cannot time {gpu.name}: engine/catalog/gpu_perf.json has no peak FLOP/s or "
                              "bandwidth for it")
    return found


def known_ids() -> frozenset[str]:
    """Every GPU id (and alias) with figures."""
    return frozenset(_table()[0])


def refused_ids() -> frozenset[str]:
    """Every GPU id the timing model refuses by name."""
    return frozenset(_table()[1])
