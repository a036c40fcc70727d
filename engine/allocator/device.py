"""The device memory a training process holds besides the caching allocator's reserve, addend by addend.

What ``nvidia-smi`` shows for a PyTorch process is the allocator's reserve plus memory the allocator never sees:

* the **CUDA context** (the driver's state, the kernels loaded into it, library handles): ``cuda_context``;
* **NCCL's buffers**, which NCCL allocates itself for every communicator (``cudaMalloc`` / ``cuMem*``):
  ``nccl_buffers``;

and inside the reserve, allocated from PyTorch's allocator but not by any tensor the engine counts, each matmul
thread's **cuBLAS workspace** (``cublas_workspace_bytes``: the allocator replay, ``engine.allocator.step``, hands
them out). cuDNN's handles live in the context, its workspaces come from the allocator as temporaries: no addend
of their own.
"""

from __future__ import annotations

from dataclasses import dataclass

from engine.specs import GpuSpec, TrainingSetup

MIB = 1024 * 1024

#: compute capability of the catalog's NVIDIA GPUs (NVIDIA, "CUDA GPUs - Compute Capability",
#: developer.nvidia.com/cuda-gpus)
COMPUTE_CAPABILITY: dict[str, tuple[int, int]] = {
    "v100-32gb": (7, 0), "t4": (7, 5), "a100-40gb": (8, 0), "a100-80gb": (8, 0), "a10": (8, 6), "rtx-3090": (8, 6),
    "rtx-a6000": (8, 6), "l4": (8, 9), "l40s": (8, 9), "rtx-4090": (8, 9), "rtx-6000-ada": (8, 9),
    "h100-80gb": (9, 0), "h200": (9, 0), "h20": (9, 0), "b200": (10, 0), "gb200": (10, 0), "rtx-5080": (12, 0),
    "rtx-5090": (12, 0), "rtx-pro-6000": (12, 0),
}
#: NVLink links per GPU of the SXM / HGX parts the catalog names (NVIDIA datasheets: V100 SXM2 6 x 25 GB/s = 300
#: GB/s, A100 SXM4 12 links = 600 GB/s, H100 / H200 / H20 SXM5 18 links = 900 GB/s, B200 / GB200 18 NVLink-5
#: links = 1.8 TB/s); the others talk over PCIe
NVLINKS: dict[str, int] = {"v100-32gb": 6, "a100-40gb": 12, "a100-80gb": 12, "h100-80gb": 18, "h200": 18, "h20": 18,
                           "b200": 18, "gb200": 18}
#: HGX baseboards with NVSwitch and NVLink SHARP (multicast), where NCCL sets up NVLS buffers (sm90 and later)
NVLS_GPUS = frozenset({"h100-80gb", "h200", "h20", "b200", "gb200"})

#: NCCL's buffers, per protocol (NVIDIA/nccl v2.30.7, src/init.cc ``computeBuffSizes``, src/include/device.h):
#: Simple ``DEFAULT_BUFFSIZE`` 4 MiB, LL 8 lines x 512 threads x 8 steps x 16 bytes, LL128 120 x 640 x 8 x 8 bytes
NCCL_SIMPLE = 1 << 22
NCCL_LL = 8 * 512 * 8 * 16
NCCL_LL128 = 120 * 640 * 8 * 8
#: every P2P connection's buffers are rounded up to ``CUDA_IPC_MIN`` (2 MiB, src/transport/p2p.cc)
NCCL_ALIGN = 2 * MIB
#: NCCL's most channels (``MAXCHANNELS``)
NCCL_MAX_CHANNELS = 32


@dataclass(frozen=True, slots=True)
class Addend:
    """One part of the device total outside the allocator: bytes, the formula and where it comes from."""

    name: str
    bytes: int
    formula: str
    source: str


def compute_capability(gpu: GpuSpec) -> tuple[int, int] | None:
    return COMPUTE_CAPABILITY.get(gpu.id) if gpu.vendor == "NVIDIA" else None


def cuda_context(gpu: GpuSpec) -> Addend:
    """The CUDA context of a training process (``GpuSpec.context_bytes``).

    No vendor documents its size by architecture or CUDA version; the catalog's figure is this project's own
    measurement of a training step on an H200 (torch 2.11 + CUDA 13: 0.55 GB, shared/ENVIRONMENT.md), which
    includes the kernels a step loads lazily. Published figures for the context alone are lower: 287,047,680
    bytes with lazy module loading against 666,632,192 without (PyTorch 1.13, CUDA 11.7; pytorch/pytorch#86509),
    426 MiB on an RTX 6000 Ada (torch 2.10 + CUDA 13.0; unslothai/unsloth-zoo#1053), "around 400MB if CUDA >= 11.7
    is used and lazy module loading enabled" (pytorch/pytorch#109888)."""
    return Addend("cuda_context", gpu.context_bytes, "CUDA context, the kernels a step loads and library handles",
                  "0.55 GB measured on an H200 (shared/ENVIRONMENT.md); the context alone: 287 MB with lazy loading "
                  "(pytorch#86509), 426 MiB on an RTX 6000 Ada with CUDA 13 (unsloth-zoo#1053)")


def cublas_workspace_bytes(gpu: GpuSpec) -> int:
    """One cuBLAS workspace (per handle and stream), which PyTorch takes from its caching allocator
    (aten/src/ATen/cuda/CublasHandlePool.cpp, ``getNewWorkspace``; ``parseChosenWorkspaceSize`` without
    ``CUBLAS_WORKSPACE_CONFIG``: 4096 KiB x 8 = 32 MiB on sm90, else 4096 KiB x 2 + 16 KiB x 8; cuBLASLt shares it,
    ``TORCH_CUBLASLT_UNIFIED_WORKSPACE``). Apple's GPUs: none (MPS)."""
    if gpu.vendor == "Apple":
        return 0
    return 4096 * 1024 * 8 if compute_capability(gpu) == (9, 0) else 4096 * 1024 * 2 + 16 * 1024 * 8


def nccl_channels(gpu: GpuSpec) -> int:
    """Channels of one communicator: NCCL's P2P rule (src/graph/paths.cc ``ncclTopoGetNchannels``: 2 x the NVLink
    bandwidth between two GPUs over one link's, 2 over PCIe) at the GPU's NVLink count, at most ``MAXCHANNELS``.
    Rings are given the same count (NCCL's ring search, src/graph/search.cc, is not modelled); NVIDIA/nccl#1685
    logs 32 channels between two of 8 H100s."""
    links = NVLINKS.get(gpu.id, 0)
    return min(NCCL_MAX_CHANNELS, 2 * links) if links else 2


def _ring_channel_bytes() -> int:
    """One ring channel's buffers on one GPU: the receive side of the connection from the previous rank (LL,
    LL128 and Simple, rounded to 2 MiB) and the send side to the next (its small header, 2 MiB); with P2P reads
    (NVLink) Simple moves to the send side, which comes to the same 12 MiB (src/transport/p2p.cc ``p2pSendSetup``,
    ``p2pRecvSetup``; NVIDIA/nccl#1685 logs these 10,485,760 and 2,097,152-byte buffers)."""
    recv = -(-(NCCL_LL + NCCL_LL128 + NCCL_SIMPLE) // NCCL_ALIGN) * NCCL_ALIGN
    return recv + NCCL_ALIGN


def _nvls_bytes(gpu: GpuSpec, local_ranks: int, nodes: int) -> int:
    """NVLink SHARP's buffers (src/transport/nvls.cc ``ncclNvlsBufferSetup``): one 128 KiB chunk x 8 steps per
    channel and direction, for each of the node's ranks (the heads): 16 channels on sm90, 24 on one sm100 node,
    32 over several."""
    if gpu.id not in NVLS_GPUS or local_ranks < 2:
        return 0
    cc = compute_capability(gpu)
    channels = 16 if cc == (9, 0) else (32 if nodes > 1 else 24)
    return local_ranks * channels * 2 * 128 * 1024 * 8


def communicators(s: TrainingSetup) -> list[tuple[str, int]]:
    """The NCCL communicators one GPU joins, as (group, ranks): data parallelism's (DDP, ZeRO, FSDP), tensor,
    context and expert parallelism's, and a pipeline's two neighbours (PyTorch makes a two-rank communicator for
    each pair that sends and receives, ``ProcessGroupNCCL``'s P2P keys)."""
    p = s.parallel
    groups = [("data", s.dp), ("tensor", p.tp), ("context", p.cp), ("expert", p.ep)]
    out = [(name, n) for name, n in groups if n > 1]
    if p.pp > 1:
        out += [("pipeline", 2), ("pipeline", 2)]
    return out


def nccl_buffers(gpu: GpuSpec, s: TrainingSetup) -> Addend:
    """NCCL's buffers on one GPU: for each communicator, its ring channels' buffers, and NVLS's on an NVSwitch
    board (module docstrings of the parts: NVIDIA/nccl v2.30.7 defaults, ``NCCL_BUFFSIZE`` unset). Trees,
    CollNet and the network transport's own buffers are not counted; NCCL connects them only for the algorithms
    a job runs (``NCCL_RUNTIME_CONNECT``)."""
    if gpu.vendor == "Apple":
        return Addend("nccl_buffers", 0, "no NCCL on Apple GPUs", "")
    comms = communicators(s)
    per_node = max(1, s.gpus // s.host.nodes)
    channel = _ring_channel_bytes()
    total = 0
    parts = []
    for name, ranks in comms:
        local = min(ranks, per_node)
        ring = nccl_channels(gpu) * channel
        nvls = _nvls_bytes(gpu, local, s.host.nodes) if name != "pipeline" else 0
        total += ring + nvls
        parts.append(f"{name} ({ranks} ranks)")
    formula = (f"{len(comms)} communicator(s): {', '.join(parts)}; {nccl_channels(gpu)} channels x "
               f"{channel // MIB} MiB" + (" + NVLS" if any(_nvls_bytes(gpu, min(r, per_node), s.host.nodes)
                                                         for n, r in comms if n != "pipeline") else "")
               if comms else "one GPU: no communicator")
    return Addend("nccl_buffers", total, formula,
                  "NVIDIA/nccl v2.30.7: src/init.cc computeBuffSizes, src/transport/p2p.cc, src/transport/nvls.cc, "
                  "src/graph/paths.cc; NVIDIA/nccl#1685 (32 channels, 10 + 2 MiB per connection on H100)")
