"""One Hugging Face Trainer-like training step, cut into the phases the counter reports.

What the Trainer (through accelerate) does with `bf16=True`, fused AdamW and `max_grad_norm=1.0`:
forward under bf16 autocast, with the model's floating outputs (the logits) upcast to fp32 as accelerate's
`convert_outputs_to_fp32` does; the causal-LM loss (transformers upcasts the logits to fp32 again inside it);
`loss.backward()` outside autocast; `clip_grad_norm_(trainable, 1.0)`; `AdamW(fused=True).step()`;
`zero_grad(set_to_none=True)`.
"""

from __future__ import annotations

import contextlib
from typing import Any

import torch

from calibration.counter import LiveBytes


def make_optimizer(model: torch.nn.Module) -> torch.optim.Optimizer:
    """Fused AdamW over the trainable parameters (the Trainer's default optimizer)."""
    trainable = [p for p in model.parameters() if p.requires_grad]
    return torch.optim.AdamW(trainable, lr=1e-5, fused=True)


def _autocast(precision: str) -> Any:
    if precision in ("bf16", "amp-bf16"):
        return torch.autocast("cpu", dtype=torch.bfloat16)
    return contextlib.nullcontext()


def _fp32_outputs(out: Any) -> Any:
    """accelerate's convert_outputs_to_fp32: every fp16/bf16 tensor in the output becomes fp32."""
    for key, value in out.items():
        if isinstance(value, torch.Tensor) and value.dtype in (torch.float16, torch.bfloat16):
            out[key] = value.float()
    return out


def train_step(model: torch.nn.Module, opt: torch.optim.Optimizer, input_ids: torch.Tensor, *,
               precision: str, counter: LiveBytes, n: int) -> None:
    """Step number `n`: forward, backward, optimizer, each a counter phase."""
    counter.set_phase(f"fwd{n}")
    with _autocast(precision):
        out = model(input_ids=input_ids, labels=input_ids)
    out = _fp32_outputs(out)  # outside the autocast region, as accelerate wraps forward
    loss = out["loss"]
    del out  # compute_loss returns only the loss; the outputs die before backward
    counter.set_phase(f"bwd{n}")
    loss.backward()
    del loss
    counter.set_phase(f"opt{n}")
    trainable = [p for p in model.parameters() if p.requires_grad]
    torch.nn.utils.clip_grad_norm_(trainable, 1.0)
    opt.step()
    opt.zero_grad(set_to_none=True)


def mark_kinds(model: torch.nn.Module, opt: torch.optim.Optimizer, counter: LiveBytes) -> None:
    """Tell the counter which storages are parameters, gradients (as they appear) and optimizer states."""
    for t in list(model.parameters()) + list(model.buffers()):
        counter.mark(t, "parameters")
    for p in model.parameters():
        if p.requires_grad:
            p.register_post_accumulate_grad_hook(lambda q: counter.mark(q.grad, "gradients"))

    def mark_states(optimizer: torch.optim.Optimizer, *_: Any) -> None:
        for state in optimizer.state.values():
            for value in state.values():
                if isinstance(value, torch.Tensor):
                    counter.mark(value, "optimizer_states")

    opt.register_step_post_hook(mark_states)
