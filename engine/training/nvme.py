"""ZeRO-Infinity's NVMe offload: what goes to disk, and what it keeps in host RAM to get there.

``offload_optimizer.device: nvme`` and ``offload_param.device: nvme`` (DeepSpeed 0.19.8, ZeRO-3; costed with
DeepSpeed's defaults, ``runtime/zero/offload_config.py`` and ``runtime/zero/config.py``), each process for its own
partition of ``ceil(P / N)`` of every parameter (``partition_numel``):

* optimizer states to NVMe: ``runtime/swap_tensor/partitioned_optimizer_swapper.py`` writes each sub-group's fp32
  master weights, its optimizer states and its fp32 gradients to swap files (the disk); the CPU optimizer steps
  one sub-group at a time in page-locked buffers: ``optimizer_utils.py`` ``OptimizerSwapper.__init__`` makes
  ``SwapBufferManager(num_elems=largest_numel, count=buffer_count)``, ``buffer_count`` = 4 (parameter, gradient
  and Adam's two states) fp32 buffers of the largest sub-group's numel, io-aligned (``AIO_ALIGNED_BYTES`` 1,024 x
  ``intra_op_parallelism`` 1). Sub-groups: ``stage3.py`` ``_create_fp16_sub_groups`` adds parameters' partitions,
  in the model's order, until ``sub_group_size`` (1e9) is reached;
* parameters to NVMe (``params_in_nvme_and_cpu``): ``stage3.py`` ``_create_param_groups_fp16_flat_cpu_memory``
  keeps the first ``max_in_cpu`` (1e9) elements of the partition in a pinned flat CPU buffer (``pin_memory``
  true), the rest on disk in the model's dtype; ``partitioned_param_swapper.py`` ``AsyncPartitionedParameterSwapper``
  pins ``buffer_count`` (5) x ``buffer_size`` (1e8) elements of the model's dtype for the parameters it brings in,
  and, when some sub-group finds no room in the CPU buffer, ``reserve_partitioned_swap_space`` one more pinned
  buffer holding the whole (unpartitioned) tensors of the largest sub-group, io-aligned each.

The GPU holds none of it either way; the disk figure is ``disk_bytes``. Costed for full fine-tuning (LoRA's frozen
base under parameter NVMe offload swaps through other paths: refused by name).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from engine.specs import ModelSpec, OffloadDevice, TrainingSetup
from engine.training.plan import Plan
from engine.training.precision import FP32
from engine.training.tensors import Tensor, full_tensors, trained_tensors

SUB_GROUP_SIZE = 1_000_000_000  # zero_optimization.sub_group_size
OPTIMIZER_BUFFER_COUNT = 4  # offload_optimizer.buffer_count
PARAM_BUFFER_COUNT = 5  # offload_param.buffer_count
PARAM_BUFFER_SIZE = 100_000_000  # offload_param.buffer_size (elements)
MAX_IN_CPU = 1_000_000_000  # offload_param.max_in_cpu (elements)
AIO_ALIGNED_BYTES = 1_024  # swap_tensor/utils.py AIO_ALIGNED_BYTES x aio.intra_op_parallelism (1)

SOURCE = ("DeepSpeed 0.19.8 runtime/swap_tensor/optimizer_utils.py (OptimizerSwapper: buffer_count x largest "
          "sub-group, fp32, pinned), partitioned_param_swapper.py (buffer_count x buffer_size, pinned), "
          "runtime/zero/stage3.py (_create_fp16_sub_groups, _create_param_groups_fp16_flat_cpu_memory: max_in_cpu); "
          "defaults from runtime/zero/offload_config.py; Rajbhandari et al. 2021 (ZeRO-Infinity, arXiv:2104.07857)")


@dataclass(frozen=True, slots=True)
class NvmeBytes:
    """One process's share: page-locked host RAM, and what it writes to disk."""

    pinned: int
    disk: int
    detail: str


def _aligned(numel: int, element: int) -> int:
    per = AIO_ALIGNED_BYTES // element
    return -(-numel // per) * per


def _parameters(tensors: tuple[Tensor, ...]) -> list[int]:
    """Every parameter's numel, one entry per tensor, in the order engine.training.tensors lists them."""
    return [t.numel for t in tensors for _ in range(t.count)]


def largest_sub_group(numels: list[int], ranks: int, element: int) -> tuple[int, int]:
    """(partition numel, whole numel with each tensor io-aligned for ``element``-byte values) of the largest
    sub-group: partitions added in order until ``SUB_GROUP_SIZE`` is reached (``_create_fp16_sub_groups``)."""
    best = (0, 0)
    part = whole = 0
    for i, n in enumerate(numels):
        part += math.ceil(n / ranks)
        whole += _aligned(n, element)
        if part >= SUB_GROUP_SIZE or i == len(numels) - 1:
            best = max(best, (part, whole))
            part = whole = 0
    return best


def nvme_bytes(m: ModelSpec, s: TrainingSetup, plan: Plan) -> NvmeBytes:
    """What one process pins and writes to disk with NVMe offload (module docstring); nothing without."""
    ranks = s.gpus  # ZeRO-3 partitions over every data-parallel GPU (no layout with offload)
    pinned = disk = 0
    notes = []
    if s.offload_optimizer and s.offload_optimizer_device is OffloadDevice.NVME:
        numels = _parameters(trained_tensors(m, s))
        part, _ = largest_sub_group(numels, ranks, FP32)
        pinned += OPTIMIZER_BUFFER_COUNT * _aligned(part, FP32) * FP32
        share = sum(math.ceil(n / ranks) for n in numels)
        per_param = (plan.optimizer_bytes + plan.counts.trainable * FP32) / max(plan.counts.trainable, 1)
        disk += round(share * per_param)  # master + states + fp32 gradients
        notes.append(f"optimizer: {OPTIMIZER_BUFFER_COUNT} pinned fp32 buffers of {part:,} values")
    if s.offload_params and s.offload_params_device is OffloadDevice.NVME:
        element = plan.dtypes.weight
        numels = _parameters(full_tensors(m))
        share = sum(math.ceil(n / ranks) for n in numels)
        in_cpu = min(share, MAX_IN_CPU)
        # the reuse buffer only when some sub-group has no room in the CPU buffer (stage3.py
        # should_create_fp16_flat_reuse_buffer): the largest sub-group's whole tensors
        reuse = largest_sub_group(numels, ranks, element)[1] if share > in_cpu else 0
        pinned += (in_cpu + PARAM_BUFFER_COUNT * _aligned(PARAM_BUFFER_SIZE, element) + reuse) * element
        disk += (share - in_cpu) * element
        notes.append(f"parameters: {in_cpu:,} values kept in CPU, {share - in_cpu:,} on disk")
    return NvmeBytes(pinned, disk, "; ".join(notes))
