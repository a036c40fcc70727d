"""engine.allocator.device: the addends outside the allocator, from NCCL's and PyTorch's own defaults."""

from __future__ import annotations

from engine.allocator.device import _ring_channel_bytes, communicators, cublas_workspace_bytes, nccl_buffers
from engine.catalog import get_gpu
from engine.specs import ParallelSpec, Sharding, TrainingSetup

MIB = 1024 * 1024


def test_cublas_workspace_by_architecture() -> None:
    """parseChosenWorkspaceSize: 4096 KiB x 8 on sm90, 4096 KiB x 2 + 16 KiB x 8 elsewhere; none on MPS."""
    assert cublas_workspace_bytes(get_gpu("h200")) == 32 * MIB
    assert cublas_workspace_bytes(get_gpu("a100-80gb")) == 8 * MIB + 128 * 1024
    assert cublas_workspace_bytes(get_gpu("m3-max-128gb")) == 0


def test_one_ring_channel_is_12_mib() -> None:
    """LL 524,288 + LL128 4,915,200 + Simple 4,194,304 bytes = 9,633,792, rounded up to 10 MiB on the receive
    side, plus the 2 MiB send side: the 10,485,760 and 2,097,152-byte buffers NVIDIA/nccl#1685 logs."""
    assert _ring_channel_bytes() == 12 * MIB


def test_nccl_buffers_by_topology() -> None:
    """8 x H100 under ZeRO-3: one data-parallel communicator, 32 channels x 12 MiB, and NVLS: 8 heads x 16
    channels x 2 x 1 MiB = 256 MiB; 8 x A100 (12 NVLinks, no NVLS): 24 channels; PCIe GPUs: 2 channels."""
    zero3 = TrainingSetup(gpus=8, sharding=Sharding.ZERO3)
    assert nccl_buffers(get_gpu("h100-80gb"), zero3).bytes == 32 * 12 * MIB + 256 * MIB
    assert nccl_buffers(get_gpu("a100-80gb"), zero3).bytes == 24 * 12 * MIB
    assert nccl_buffers(get_gpu("rtx-4090"), TrainingSetup(gpus=4)).bytes == 2 * 12 * MIB
    assert nccl_buffers(get_gpu("h200"), TrainingSetup()).bytes == 0


def test_communicators_of_a_layout() -> None:
    """tp 2 x pp 2 x dp 2: the data-parallel, the tensor-parallel and two pipeline neighbours' communicators."""
    s = TrainingSetup(gpus=8, parallel=ParallelSpec(tp=2, pp=2))
    assert communicators(s) == [("data", 2), ("tensor", 2), ("pipeline", 2), ("pipeline", 2)]
