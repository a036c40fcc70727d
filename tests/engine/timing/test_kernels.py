"""The stack options that pick the fused-attention kernel and checkpointing's CPU cost (engine.timing.step):
``te_attention`` (Transformer Engine's ``DotProductAttention``, cuDNN's fused attention, in a stack that otherwise
runs SDPA: NeMo AutoModel's own models) and ``reentrant_checkpointing`` (``use_reentrant=True``: no saved-tensor
hooks, as Qwen (1)'s remote code runs it on torch 2.0)."""

from __future__ import annotations

from dataclasses import replace

import pytest

from engine.catalog import get_gpu, get_model
from engine.specs import TrainingSetup
from engine.timing import TimingOptions, step_time
from engine.timing.fitted import Fitted, fitted
from engine.timing.hardware import gpu_perf
from engine.timing.kernels import attention_seconds

SETUP = TrainingSetup(method="lora", batch=2, seq_len=4096, checkpointing="full", attention="flash")


def _step(constants: Fitted | None = None, **options: object) -> tuple[float, float, float]:
    """(CPU seconds per micro-batch, attention seconds per micro-batch, step seconds) of a Llama 3 8B LoRA step
    on an H100 under torchtitan's rules."""
    t = step_time(get_model("llama-3-8b"), SETUP, get_gpu("h100-80gb"),
                  TimingOptions.of(SETUP, stack="torchtitan", **options), constants)
    return t.details["cpu_seconds_per_micro_batch"], t.breakdown["compute"], t.step_seconds


def test_te_attention_runs_the_fused_kernels_rate_on_hopper() -> None:
    f = fitted()
    perf = gpu_perf(get_gpu("h100-80gb"))
    fa2 = attention_seconds(1e12, 4096, perf, f, fused3=False, backward=False) - f.kernel_floor_s
    cudnn = attention_seconds(1e12, 4096, perf, f, fused3=True, backward=False) - f.kernel_floor_s
    assert fa2 / cudnn == pytest.approx(f.flash3_fwd / f.flash2_hopper_fwd, rel=1e-12)
    assert _step(te_attention=True)[2] < _step()[2]


def test_te_attention_leaves_an_ampere_step_alone() -> None:
    def seconds(**options: object) -> float:
        return step_time(get_model("llama-3-8b"), SETUP, get_gpu("a100-80gb"),
                         TimingOptions.of(SETUP, stack="torchtitan", **options)).step_seconds
    assert seconds(te_attention=True) == seconds()


def test_reentrant_checkpointing_has_no_saved_tensor_hooks() -> None:
    hooked = _step()[0]
    reentrant = _step(reentrant_checkpointing=True)[0]
    without_hooks = _step(replace(fitted(), cpu_checkpoint_hook_s=0.0))[0]
    assert reentrant < hooked
    assert reentrant == pytest.approx(without_hooks, rel=1e-12)
