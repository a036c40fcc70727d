"""engine.training.terms with activation offloading: what stays on the GPU, what moves to host RAM."""

from __future__ import annotations

import pytest

from engine.catalog import get_gpu, get_model
from engine.specs import Checkpointing, Method, Precision, Sharding, TrainingSetup
from engine.terms import TermName
from engine.training import Estimate, accuracy, estimate
from engine.training.activations import activation_coeffs
from engine.training.host import host_estimate
from engine.training.moments import MomentKind

LLAMA31 = get_model("llama-3.1-8b")
H200 = get_gpu("h200")
LONG = TrainingSetup(method=Method.LORA, seq_len=32_768, checkpointing=Checkpointing.FULL)


def _activations_at(s: TrainingSetup, kind: MomentKind, layer: int | None = None) -> float:
    e = estimate(LLAMA31, s, H200)
    i = next(i for i, mo in enumerate(e.moments) if mo.kind is kind and mo.layer == layer and mo.step == 2)
    names = [t.name for t in e.terms]
    return float(e.values[i][names.index(TermName.ACTIVATIONS)])


def _host_offload(e: Estimate) -> int:
    """What the node's host RAM holds for offload while training (engine/training/host.py), which host_bytes
    (the node's peak, perhaps while loading the checkpoint) includes."""
    h = host_estimate(e.model, e.setup, activations=e.offloaded_bytes)
    assert e.host_bytes == h.per_node_bytes
    training = next(p for p in h.phases if p.name == "training")
    return next(t.per_node for t in training.terms if t.name == "offloaded_states")


def test_checkpointed_inputs_move_to_host_by_hand() -> None:
    """Checkpointed Llama 3.1 8B: each of 32 layers saves its bf16 input (2 x 4,096 B a token) plus RoPE's cos and
    sin (2 x 2 x 128 B); the final norm its fp32 input (4 x 4,096 B). 9.0 GiB at 32,768 tokens, as traced
    (lc-llama-3.1-8b_..._offload: 9.00 GiB)."""
    e = estimate(LLAMA31, LONG.with_(activation_offload=True), H200)
    per_token = 32 * (2 * 4_096 + 2 * 2 * 128) + 4 * 4_096
    assert e.offloaded_bytes == 32_768 * per_token
    assert _host_offload(e) == e.offloaded_bytes


def test_offloaded_activations_leave_one_layer_in_flight() -> None:
    """At a layer's backward only that layer's input (brought back) and its recomputed activations are on the
    GPU; without offload every layer below keeps its input too."""
    off = LONG.with_(activation_offload=True)
    (n, lc), = activation_coeffs(LLAMA31, LONG).segments
    tokens = 32_768
    assert _activations_at(off, MomentKind.BACKWARD_LAYER, 31) == tokens * (lc.checkpoint + lc.saved)
    assert _activations_at(LONG, MomentKind.BACKWARD_LAYER, 31) == tokens * (n * lc.checkpoint + lc.saved)
    assert _activations_at(off, MomentKind.BACKWARD_START) == 0  # LoRA: the frozen output layer saves no input


def test_full_fine_tuning_keeps_the_output_layer_input_on_the_gpu() -> None:
    """torchtune and TRL wrap the output layer in a no-op: its saved input stays; the final norm's moves."""
    s = TrainingSetup(precision=Precision.BF16, seq_len=2_048, activation_offload=True)
    ac = activation_coeffs(LLAMA31, s)
    assert ac.head_input == 2 * 4_096
    e = estimate(LLAMA31, s, H200)
    i = next(i for i, mo in enumerate(e.moments) if mo.kind is MomentKind.BACKWARD_START and mo.step == 2)
    assert e.values[i][[t.name for t in e.terms].index(TermName.ACTIVATIONS)] == 2_048 * ac.head_input


def test_every_gpu_offloads_its_own() -> None:
    s = LONG.with_(activation_offload=True, gpus=4, sharding=Sharding.ZERO3, offload_params=True)
    e = estimate(LLAMA31, s, H200)
    no = estimate(LLAMA31, s.with_(activation_offload=False), H200)
    assert _host_offload(e) == _host_offload(no) + 4 * e.offloaded_bytes


def test_no_offload_no_host_activations() -> None:
    e = estimate(LLAMA31, LONG, H200)
    assert e.offloaded_bytes == 0
    assert _host_offload(e) == 0


@pytest.mark.parametrize("run", accuracy.offloaded_host(), ids=lambda r: r.id)
def test_offloaded_bytes_match_traced_host_bytes(run: accuracy.Comparison) -> None:
    """Each traced offload step (calibration/long_context.py) within 10% of what it moved to the host."""
    assert abs(run.error) <= 0.10, f"{run.described}: {run.error:+.2%}"


def test_offload_cases_are_traced() -> None:
    assert len(accuracy.offloaded_host()) >= 5
