"""Communication: each collective's seconds over the link it crosses.

Ring collectives over ``g`` GPUs move ``2 (g - 1) / g`` of the buffer through every GPU's link for an
all-reduce and ``(g - 1) / g`` for an all-gather, a reduce-scatter or an all-to-all (Patarasuk & Yuan 2009;
NCCL's ``busBw`` convention, nccl-tests ``doc/PERFORMANCE.md``), plus a latency per ring step.

Which link a group crosses follows Megatron-LM's rank order, tensor-parallel ranks innermost, then context, then
data parallel, pipeline outermost (``parallel_state.initialize_model_parallel``, ``order="tp-cp-ep-dp-pp"``): a
group whose ranks span at most one node (``engine.timing.hardware``: the node's GPUs) talks over NVLink (or PCIe
where the card has none), otherwise over the network, one NIC per GPU (DGX / HGX designs). The achieved share of
a link's bandwidth is fitted (``engine.timing.fitted``).
"""

from __future__ import annotations

from dataclasses import dataclass

from engine.specs import TrainingSetup
from engine.timing.hardware import GpuPerf

#: NCCL's latency per ring step inside a node and across nodes (nccl-tests small-message times, about 5-10 us
#: on NVLink and 10-20 us over InfiniBand; the lower ends)
LATENCY_INTRA = 5e-6
LATENCY_INTER = 10e-6


@dataclass(frozen=True, slots=True)
class Link:
    """A group's link: bytes/s per direction as achieved, the latency of one ring step, and its kind."""

    bandwidth: float
    latency: float
    kind: str  # nvlink, pcie or network

    def all_reduce(self, nbytes: float, g: int) -> float:
        if g <= 1 or nbytes <= 0:
            return 0.0
        return 2 * (g - 1) / g * nbytes / self.bandwidth + 2 * (g - 1) * self.latency

    def gather(self, nbytes: float, g: int) -> float:
        """An all-gather (or a reduce-scatter, or an all-to-all) of a buffer of ``nbytes`` in total."""
        if g <= 1 or nbytes <= 0:
            return 0.0
        return (g - 1) / g * nbytes / self.bandwidth + (g - 1) * self.latency

    def send(self, nbytes: float) -> float:
        return nbytes / self.bandwidth + self.latency if nbytes > 0 else 0.0


def node_gpus(perf: GpuPerf, s: TrainingSetup) -> int:
    """GPUs in one node: the setup's (gpus / nodes), at most the card's node (its NVLink or PCIe domain)."""
    per_node = max(1, s.gpus // max(1, s.host.nodes))
    return max(1, min(perf.node_gpus, per_node))


def link(perf: GpuPerf, s: TrainingSetup, span: int, stride: int, efficiency: float) -> Link:
    """The link a group crosses whose ranks are ``stride`` apart and span ``span`` consecutive ranks (module
    docstring). Across nodes, NCCL runs one ring per NIC and each ring crosses a node boundary once per node, so a
    group with k members in each node moves data between nodes through k NICs at once: ``min(NVLink, k x NIC)``
    per GPU (NCCL's rings over multiple NICs, nccl-tests ``doc/PERFORMANCE.md``, bus bandwidth)."""
    node = node_gpus(perf, s)
    if span <= node:
        kind = "nvlink" if perf.nvlink else "pcie"
        return Link(perf.intra_node * efficiency, LATENCY_INTRA, kind)
    members = max(1, node // stride) if stride < node else 1
    return Link(min(members * perf.network, perf.intra_node) * efficiency, LATENCY_INTER, "network")
