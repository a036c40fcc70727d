"""What the GPU hands out beyond the tensors: PyTorch's caching allocator, and the device memory outside it.

``engine.allocator.caching`` models ``c10/cuda/CUDACachingAllocator.cpp`` (its size rules in
``engine.allocator.rules``), ``engine.allocator.conf`` reads a ``PYTORCH_CUDA_ALLOC_CONF`` string. Qt-free, like the
rest of the engine.
"""

from __future__ import annotations

from engine.allocator.caching import Block, CachingAllocator, OutOfMemory
from engine.allocator.rules import Settings

__all__ = ["Block", "CachingAllocator", "OutOfMemory", "Settings"]
