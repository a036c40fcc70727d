"""What each precision regime holds, in bytes per element.

Regimes are named by what sits in memory (see ``engine.specs.Precision``):

* ``fp32``: everything fp32, no autocast.
* ``bf16``: "pure" bf16: weights, gradients and AdamW states in bf16, 8 bytes per parameter with AdamW.
  What the Hugging Face Trainer holds with ``bf16=True`` on a model loaded in bf16, and what torchtune does.
* ``bf16-mixed`` / ``fp16-mixed``: 16-bit weights and gradients plus an fp32 master copy and fp32 AdamW states:
  2 + 2 + 12 = 16 bytes per parameter (Rajbhandari et al. 2020, ZeRO, arXiv:1910.02054, section 3.1).
* ``amp-bf16`` / ``amp-fp16``: fp32 weights, gradients and states, with 16-bit autocast; autocast casts every
  linear weight to 16 bits for its matmul (PyTorch AMP docs, "Autocast op reference"), 16 + 2 bytes per weight
  while the copy lives.

LoRA adapters stay fp32 whatever the regime (PEFT's ``autocast_adapter_dtype=True`` default).
"""

from __future__ import annotations

from dataclasses import dataclass

from engine.specs import Precision

FP32 = 4
HALF = 2


@dataclass(frozen=True, slots=True)
class DtypePlan:
    """Bytes per element of each kind of tensor under one precision regime."""

    weight: int  # parameters as held for compute
    grad: int  # gradients during backward
    master: int  # fp32 master copy held by the optimizer (0 when the weights are already what it updates)
    state: int  # one optimizer state element (AdamW's m or v)
    residual: int  # the residual stream (hidden states between layers)
    compute: int  # matmul inputs and outputs (the autocast dtype)
    autocast_copies: bool  # fp32 weights cast to 16 bits for each matmul
    step_grad: int  # gradients as the optimizer step consumes them (mixed: upcast to fp32)
    #: a stack's changes (``engine.training.policy``); the defaults are every regime's own
    frozen: int = HALF  # QLoRA's frozen parameters that are not quantized (embeddings, norms, output layer)
    linear_out: int = 0  # a frozen linear's output (0: the compute dtype; 4-bit layers can cast back to fp32)
    adapter_copies: bool = False  # autocast's 16-bit copies of the fp32 LoRA adapters, saved for backward
    gathered: int = 0  # ZeRO-3 / FSDP's gathered units and their unsharded gradients (0: as the weights are stored)

    @property
    def out(self) -> int:
        """Bytes per element of a frozen linear's output."""
        return self.linear_out or self.compute


def dtype_plan(p: Precision) -> DtypePlan:
    """The :class:`DtypePlan` of a regime (module docstring gives the sources)."""
    if p is Precision.FP32:
        return DtypePlan(FP32, FP32, 0, FP32, FP32, FP32, False, FP32)
    if p is Precision.BF16:
        return DtypePlan(HALF, HALF, 0, HALF, HALF, HALF, False, HALF)
    if p in (Precision.BF16_MIXED, Precision.FP16_MIXED):
        return DtypePlan(HALF, HALF, FP32, FP32, HALF, HALF, False, FP32)
    return DtypePlan(FP32, FP32, 0, FP32, FP32, HALF, True, FP32)  # amp-bf16 / amp-fp16


#: LoRA adapters: fp32 weights, gradients and states, no master copy.
ADAPTER_PLAN = DtypePlan(FP32, FP32, 0, FP32, HALF, HALF, False, FP32)
