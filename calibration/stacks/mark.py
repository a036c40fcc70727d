"""Tell a StackBytes counter what each storage is: parameters by sub-kind, gradients, optimizer states.

Parameters: bitsandbytes' packed 4-bit weights ("weights_4bit"), each `QuantState`'s tensors (absmax, nested absmax,
code maps, offset: "quant_constants"), the other frozen parameters and buffers ("frozen") and the trainable ones.
Gradients are marked as they are accumulated (a post-accumulate-grad hook), optimizer states after each step (a
step hook over `optimizer.state`, which also reaches accelerate's wrapped optimizer's inner one).
"""

from __future__ import annotations

from typing import Any

import torch


def _quant_state_tensors(state: Any) -> list[torch.Tensor]:
    out = [t for t in (state.absmax, state.code, state.offset) if isinstance(t, torch.Tensor)]
    if getattr(state, "state2", None) is not None:
        out += _quant_state_tensors(state.state2)
    return out


def _fake_twin(p: torch.Tensor) -> torch.Tensor:
    """The fake tensor that FakeTensorMode makes of a real one: what every op on it sees.

    The converter's memo holds it weakly (a WeakValueDictionary): the parameter keeps it alive, so that every op
    sees the same one and the counter counts its storage once, for as long as the parameter lives.
    """
    mode = torch._guards.detect_fake_mode()
    if mode is None or torch._subclasses.fake_tensor.is_fake(p):
        return p
    twin = mode.fake_tensor_converter.from_real_tensor(mode, p)
    p._calibration_fake_twin = twin  # type: ignore[attr-defined]
    return twin


def mark_params(model: torch.nn.Module, counter: Any) -> None:
    """Mark every parameter and buffer, and the 4-bit layers' quantization constants."""
    for p in model.parameters():
        if type(p).__name__ == "Params4bit":
            counter.mark(_fake_twin(p), "weights_4bit")
            if p.quant_state is not None:
                for t in _quant_state_tensors(p.quant_state):  # the code maps are real tensors (bnb_cuda.py)
                    counter.mark(_fake_twin(t), "quant_constants")
        else:
            counter.mark(p, "trainable" if p.requires_grad else "frozen")
    for b in model.buffers():
        counter.mark(b, "frozen")


def mark_kinds(model: torch.nn.Module, counter: Any) -> list[torch.optim.Optimizer]:
    """Mark parameters now and gradients as they come; return a list that `mark_optimizer` fills."""
    mark_params(model, counter)
    for p in model.parameters():
        if p.requires_grad:
            p.register_post_accumulate_grad_hook(lambda q: counter.mark(q.grad, "gradients"))
    return []


def mark_optimizer(opt: torch.optim.Optimizer, counter: Any) -> None:
    """Mark the optimizer's states after every step (those paged outside the allocator stay outside)."""

    def mark_states(optimizer: torch.optim.Optimizer, *_: Any) -> None:
        for state in optimizer.state.values():
            for value in state.values():
                if isinstance(value, torch.Tensor) and value.untyped_storage()._cdata not in counter.outside_live:
                    counter.mark(value, "optimizer_states")

    opt.register_step_post_hook(mark_states)
