"""bitsandbytes' real 4-bit layers and optimizers on fake CPU tensors, allocating what they allocate on CUDA.

bitsandbytes 0.50.2 runs unchanged: `Linear4bit`, `Params4bit`, `MatMul4Bit` (autograd/_functions.py) and the
8-bit / paged optimizers (optim/optimizer.py) are its own code. Its kernels are `torch.library` ops with fake
implementations (`_ops.py`, `register_fake`), which give each op's outputs and nothing else. Three things differ
from a CUDA run, and are set here so that the trace holds what CUDA holds:

1. `bitsandbytes::gemm_4bit` (the forward matmul): the fake kernel makes only the output. On CUDA, for more than
   512 rows (tokens) against a weight of 4 Mi elements or more, and always past 1,536 rows,
   `backends/cuda/ops.py` takes `_dequant_linear_fallback`: the nested absmax dequantized to fp32 (n/64 x 4 bytes,
   then `+ offset`, another), the weight dequantized to the compute dtype (`B_dq`, N x K x 2 bytes) and
   `F.linear`; the temporaries die with the call. `CudaGemm4bit` runs that path (the default backend's
   `_gemm_4bit_default_impl`, the same ops) so the counter sees them. Below 513 rows the custom kernel makes only
   the output, as the fake kernel does. The backward (`MatMul4Bit.backward`) is plain Python: it dequantizes the
   weight (`F.dequantize_4bit(B, ctx.state).to(grad_output.dtype)`) and runs as it is. `MatMul4Bit.forward`
   saves no activation: `ctx.tensors = (None, B)`, B being the packed weight (a parameter).
2. The code maps (`create_dynamic_map`, NF4's table) are built from Python lists (`.tolist()`), which fake
   tensors cannot give: they are built once on real CPU tensors (256 floats each; values only). A `Params4bit`
   cannot wrap a fake tensor: its packed data is a real, never written CPU tensor (`_install_quantize`).
3. Paged optimizers: on CUDA a state buffer of a tensor with at least 1e5 elements is CUDA managed memory
   (`Optimizer8bit.get_state_buffer` -> `F.get_paged`), outside PyTorch's allocator; smaller ones are ordinary
   `torch.zeros_like`. On CPU bitsandbytes never pages. `install(counter)` applies the CUDA rule and makes the
   managed buffers inside the counter's `outside_allocator()`.
"""

from __future__ import annotations

import functools
from typing import Any

import torch
from torch.utils._python_dispatch import TorchDispatchMode

BNB_VERSION = "0.50.2"
#: backends/cuda/ops.py: past this many rows the dequantize + F.linear fallback always runs
CUSTOM_MAX_M = 1536
#: backends/cuda/ops.py `_gemm_4bit_use_custom_cuda`: non-small weights (N*K >= 4 Mi) fall back above 512 rows
CUSTOM_MAX_M_LARGE = 512
SMALL_WEIGHT = 4 * 1024 * 1024
#: optim/optimizer.py `get_state_buffer`: a paged optimizer pages buffers of tensors with this many elements or more
PAGED_MIN_NUMEL = 1e5


def _uses_fallback(a: torch.Tensor, shape_b: Any) -> bool:
    """Whether CUDA runs gemm_4bit as dequantize + F.linear (module docstring, point 1)."""
    k = a.shape[-1]
    m = a.numel() // k
    n = shape_b[0]
    if m > CUSTOM_MAX_M:
        return True
    return n * k >= SMALL_WEIGHT and m > CUSTOM_MAX_M_LARGE


class CudaGemm4bit(TorchDispatchMode):
    """Runs `bitsandbytes::gemm_4bit` as the CUDA backend does for large inputs (module docstring, point 1).

    Enter it inside the counter (it must sit above it) so that the ops it runs are counted.
    """

    def __torch_dispatch__(self, func: Any, types: Any, args: Any = (), kwargs: Any = None) -> Any:
        kwargs = kwargs or {}
        if func is torch.ops.bitsandbytes.gemm_4bit.default and _uses_fallback(args[0], args[2]):
            from bitsandbytes.backends.default.ops import _gemm_4bit_default_impl

            return _gemm_4bit_default_impl(*args, **kwargs)
        return func(*args, **kwargs)


def _real(fn: Any) -> Any:
    """Run `fn` on real tensors even inside a FakeTensorMode, once per argument set."""

    @functools.cache
    def cached(*args: Any, **kwargs: Any) -> Any:
        with torch._subclasses.fake_tensor.unset_fake_temporarily():
            return fn(*args, **kwargs)

    return cached


def install(counter: Any = None) -> None:
    """Patch points 2 and 3 (idempotent); `counter` is a StackBytes whose outside_allocator() takes paged buffers."""
    import bitsandbytes.functional as bnb_f
    from bitsandbytes.optim import optimizer as bnb_optim

    if not getattr(bnb_f, "_calibration_real_maps", False):
        bnb_f.create_dynamic_map = _real(bnb_f.create_dynamic_map)
        bnb_f._calibration_real_maps = True
        with torch._subclasses.fake_tensor.unset_fake_temporarily():  # fills functional.name2qmap["dynamic"]
            bnb_f.quantize_4bit(torch.zeros(256, 64, dtype=torch.bfloat16), blocksize=64, compress_statistics=True)

    def get_state_buffer(self: Any, p: torch.Tensor, dtype: torch.dtype = torch.float32) -> torch.Tensor:
        # optim/optimizer.py get_state_buffer, CUDA branch: small or unpaged -> zeros_like; else managed memory
        if not self.is_paged or p.numel() < PAGED_MIN_NUMEL or counter is None:
            return torch.zeros_like(p, dtype=dtype, device=p.device)
        with counter.outside_allocator():
            return torch.zeros_like(p, dtype=dtype, device=p.device)

    bnb_optim.Optimizer8bit.get_state_buffer = get_state_buffer
    _install_quantize()


def _install_quantize() -> None:
    """nn/modules.py `Params4bit._quantize`, line for line, with the packed weight kept as a real, unwritten tensor.

    A `Params4bit` (a `Parameter` subclass) cannot wrap a fake tensor; the quantized data and the `QuantState`
    computed from it stay fake. `torch.empty` on the CPU never touches its pages, so a 7B model's 3.4 GB of packed
    weights costs no RAM.
    """
    import bitsandbytes as bnb
    from bitsandbytes.nn import modules

    def _quantize(self: Any, device: Any) -> Any:
        w = self.data.contiguous().to(device)
        w_4bit, quant_state = bnb.functional.quantize_4bit(
            w, blocksize=self.blocksize, compress_statistics=self.compress_statistics, quant_type=self.quant_type,
            quant_storage=self.quant_storage)
        with torch._subclasses.fake_tensor.unset_fake_temporarily():
            self.data = torch.empty(w_4bit.shape, dtype=w_4bit.dtype)
        self.quant_state = quant_state
        if self.module is not None:
            self.module.quant_state = quant_state
        self.bnb_quantized = True
        return self

    modules.Params4bit._quantize = _quantize
