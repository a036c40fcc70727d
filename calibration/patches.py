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
"""

from __future__ import annotations

from typing import Any

import torch

_ORIGINAL = {"dropout": torch.nn.functional.dropout, "sdpa": torch.nn.functional.scaled_dot_product_attention}


def _cuda_like_dropout(input: torch.Tensor, p: float = 0.5, training: bool = True, inplace: bool = False) -> Any:
    if training and 0.0 < p < 1.0 and input.numel() > 0:
        return torch.native_dropout(input, p, True)[0]
    return _ORIGINAL["dropout"](input, p, training, inplace)


def _cuda_like_sdpa(query: torch.Tensor, key: torch.Tensor, value: torch.Tensor, attn_mask: Any = None,
                    dropout_p: float = 0.0, *args: Any, **kwargs: Any) -> torch.Tensor:
    return _ORIGINAL["sdpa"](query, key, value, attn_mask, 0.0, *args, **kwargs)


def apply() -> None:
    """Install every patch (idempotent)."""
    from transformers import masking_utils
    from transformers.utils import import_utils

    import_utils.is_fake_tensor = lambda _x: False
    masking_utils.find_packed_sequence_indices = lambda _position_ids: None
    torch.nn.functional.dropout = _cuda_like_dropout
    torch.nn.functional.scaled_dot_product_attention = _cuda_like_sdpa
