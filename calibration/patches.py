"""Patches that make a CPU trace follow what the same step does on a CUDA GPU.

- transformers treats fake tensors as a compile trace: it then refuses to skip the causal mask and builds an
  explicit (b, 1, s, s) mask for SDPA, which also moves SDPA off its flash kernel. On a real GPU the mask is
  skipped. Its check for packed sequences reads tensor values, which fake tensors do not have (the batches here
  are never packed).
- Dropout: on CPU `F.dropout` multiplies by a noise tensor of the input's dtype and saves it for backward; on
  CUDA it runs the fused `native_dropout`, which saves a 1-byte bool mask. The patch runs `native_dropout`
  (it has a CPU kernel) so the saved state is the CUDA one.
- SDPA with dropout: the CPU flash kernel has no dropout, so PyTorch falls back to the math path that keeps the
  s x s probabilities; CUDA's flash kernel applies dropout inside and keeps only a random seed and offset. The
  patch calls SDPA without dropout, which is what a CUDA GPU holds in memory.
- SDPA with a boolean mask (sliding-window layers longer than their window: Gemma 3, OLMo 3, EXAONE 4; transformers
  cannot skip that mask): the CPU flash kernel takes no mask, so PyTorch falls back to the math path and keeps the
  s x s probabilities of every such layer. On CUDA, ``scaled_dot_product_attention`` converts the boolean mask to
  an additive bias in the query's dtype (aten/src/ATen/native/transformers/attention.cpp,
  ``convert_boolean_attn_mask``) and runs the memory-efficient kernel, which saves q, k, v, the output, the
  log-sum-exp and that bias for backward. The patch does the same in memory: it makes the bias, keeps it until
  the layer's backward (a pass-through autograd function saves it) and runs the flash kernel causally.
- SDPA with a value head narrower than the query's (MLA: DeepSeek-V3 has 192-wide queries and keys, 128-wide
  values): the CPU flash kernel needs equal widths and PyTorch falls back to the math path (fp32 s x s scores); on
  CUDA the memory-efficient kernel takes them as they are and saves q, k, v, the output and an fp32 log-sum-exp per
  head and row. The patch computes the output with the flash kernel on a zero-padded value without autograd, keeps
  exactly those tensors for backward and returns gradients of the inputs' shapes.
"""

from __future__ import annotations

from typing import Any

import torch

_ORIGINAL = {"dropout": torch.nn.functional.dropout, "sdpa": torch.nn.functional.scaled_dot_product_attention}


def _cuda_like_dropout(input: torch.Tensor, p: float = 0.5, training: bool = True, inplace: bool = False) -> Any:
    if training and 0.0 < p < 1.0 and input.numel() > 0:
        return torch.native_dropout(input, p, True)[0]
    return _ORIGINAL["dropout"](input, p, training, inplace)


class _KeepForBackward(torch.autograd.Function):
    """Returns its first input unchanged and saves the second until its backward (what the CUDA kernel saves)."""

    @staticmethod
    def forward(ctx: Any, out: torch.Tensor, kept: torch.Tensor) -> torch.Tensor:
        ctx.save_for_backward(kept)
        return out.view_as(out)

    @staticmethod
    def backward(ctx: Any, grad: torch.Tensor) -> tuple[torch.Tensor, None]:
        return grad, None


class _MemoryEfficientNarrowValue(torch.autograd.Function):
    """SDPA with a narrower value head, holding what CUDA's memory-efficient kernel holds (module docstring)."""

    @staticmethod
    def forward(ctx: Any, query: torch.Tensor, key: torch.Tensor, value: torch.Tensor, scale: Any) -> torch.Tensor:
        with torch.no_grad():
            padded = torch.nn.functional.pad(value, (0, query.shape[-1] - value.shape[-1]))
            wide = _ORIGINAL["sdpa"](query, key, padded, None, 0.0, True, scale=scale)
            out = wide[..., : value.shape[-1]].contiguous()
            del padded, wide
        lse = query.new_empty(query.shape[:-1], dtype=torch.float32)
        ctx.save_for_backward(query, key, value, out, lse)
        return out

    @staticmethod
    def backward(ctx: Any, grad: torch.Tensor) -> tuple[Any, ...]:
        query, key, value, _, _ = ctx.saved_tensors
        return torch.empty_like(query), torch.empty_like(key), torch.empty_like(value), None


def _cuda_like_sdpa(query: torch.Tensor, key: torch.Tensor, value: torch.Tensor, attn_mask: Any = None,  # noqa: PLR0917 (torch's signature)
                    dropout_p: float = 0.0, is_causal: bool = False, *args: Any, **kwargs: Any) -> torch.Tensor:
    narrow = value.shape[-1] < query.shape[-1] and attn_mask is None and is_causal and not args
    if narrow and torch.is_grad_enabled() and set(kwargs) <= {"scale", "enable_gqa"}:
        return _MemoryEfficientNarrowValue.apply(query, key, value, kwargs.get("scale"))
    if attn_mask is None or attn_mask.dtype != torch.bool or not torch.is_grad_enabled():
        return _ORIGINAL["sdpa"](query, key, value, attn_mask, 0.0, is_causal, *args, **kwargs)
    bias = torch.zeros_like(attn_mask, dtype=query.dtype).masked_fill_(attn_mask.logical_not(), float("-inf"))
    out = _ORIGINAL["sdpa"](query, key, value, None, 0.0, True, *args, **kwargs)
    return _KeepForBackward.apply(out, bias)


def apply() -> None:
    """Install every patch (idempotent)."""
    from transformers import masking_utils
    from transformers.utils import import_utils

    import_utils.is_fake_tensor = lambda _x: False
    masking_utils.find_packed_sequence_indices = lambda _position_ids: None
    torch.nn.functional.dropout = _cuda_like_dropout
    torch.nn.functional.scaled_dot_product_attention = _cuda_like_sdpa
