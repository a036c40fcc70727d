"""The composed estimate against real GPU measurements and hand-derived activation counts."""

import json
from pathlib import Path

import pytest

from engine.catalog import get_gpu, get_model
from engine.specs import Attention, Method, Precision, Sharding, TrainingSetup
from engine.training import accuracy, estimate
from engine.training.activations import activation_coeffs

H200 = get_gpu("h200")


@pytest.mark.parametrize("run", accuracy.gpu_runs(), ids=lambda r: r.id)
def test_allocated_peak_matches_real_h200_runs(run):
    """shared/reference/gpu_llama.jsonl, bundled as engine/catalog/gpu_runs.json: within 2% each."""
    assert abs(run.error) < 0.02, f"{run.described}: {run.error:+.2%}"


def test_bundled_runs_are_the_reference_file():
    raw = json.loads(Path(accuracy.__file__).parent.parent.joinpath("catalog", "gpu_runs.json").read_text())
    assert {r["id"] for r in raw["runs"]} == {f"m0{i}" for i in range(1, 9)}
    for r in raw["runs"]:
        e = estimate(get_model(r["model"]), TrainingSetup.model_validate(r["setup"]), H200)
        assert (e.total_params, e.trainable_params) == (r["total_params"], r["trainable_params"])


def test_terms_sum_to_the_peak():
    e = estimate(get_model("llama-2-7b"), TrainingSetup(), H200)
    assert sum(t.bytes for t in e.terms) == e.peak_allocated_bytes
    assert e.reserved_bytes > e.peak_allocated_bytes
    assert e.device_bytes == e.reserved_bytes + H200.context_bytes


def test_sdpa_layer_saves_hand_counted_bytes():
    """Llama 2 7B, pure bf16, full FT, SDPA, per token and layer (h=4096, I=11008, 32 heads):
    2 RMSNorms x (4h fp32 input + 2h normalised) + q/k/v input 2h + q,k,v,out 4 x 2h + lse 4 x 32
    + MLP input 2h + gate, silu, up, product 4 x 2I. o_proj's input is attention's output itself: SDPA writes
    it in (b, s, heads, d) order, so the transpose before o_proj copies nothing."""
    ac = activation_coeffs(get_model("llama-2-7b"), TrainingSetup(precision=Precision.BF16))
    (n, layer), = ac.segments
    h, i = 4096, 11008
    assert n == 32
    assert layer.saved == 2 * 6 * h + 2 * h + 8 * h + 4 * 32 + 2 * h + 8 * i
    assert layer.saved_bs2 == 0


def test_eager_keeps_six_bytes_per_score():
    ac = activation_coeffs(get_model("llama-2-7b"), TrainingSetup(precision=Precision.BF16,
                                                                   attention=Attention.EAGER))
    assert ac.segments[0][1].saved_bs2 == 32 * (4 + 2)  # fp32 softmax output + its bf16 cast, per head


def test_checkpointing_keeps_only_layer_inputs():
    ac = activation_coeffs(get_model("llama-2-7b"), TrainingSetup(precision=Precision.BF16))
    assert ac.segments[0][1].checkpoint == 2 * 4096


def test_full_finetune_pure_bf16_peak_is_states_plus_the_last_gradient():
    """m01's shape: 8 bytes/param and the backward's tail; the peak is in backward of a later step."""
    e = estimate(get_model("llama-2-7b"), TrainingSetup(precision=Precision.BF16, seq_len=2048), H200)
    assert e.peak_phase == "backward"
    assert e.peak_step == 2


def test_mixed_precision_phase_holds_16_bytes_per_param_and_upcasts_at_the_step():
    m = get_model("llama-2-7b")
    e = estimate(m, TrainingSetup(seq_len=128), H200)
    assert e.model_states_bytes_per_param == 16
    opt = next(p for p in e.phases if p.name == "optimizer_step" and p.step == 2)
    assert opt.terms["gradients"] == 4 * 6_738_415_616  # fp32 gradients for the master update


def test_zero3_on_n_gpus_holds_16_over_n_per_param():
    m = get_model("llama-2-70b")
    e = estimate(m, TrainingSetup(gpus=8, sharding=Sharding.ZERO3), H200)
    assert e.model_states_bytes_per_param == pytest.approx(16 / 8, rel=1e-6)


def test_lora_reports_trainable_share():
    e = estimate(get_model("llama-2-7b"), TrainingSetup(method=Method.LORA), H200)
    assert e.trainable_params == 39_976_960
    assert e.total_params == 6_738_415_616 + 39_976_960


def test_first_step_has_no_optimizer_states_before_its_step():
    e = estimate(get_model("llama-2-7b"), TrainingSetup(), H200)
    fwd1 = next(p for p in e.phases if p.name == "forward" and p.step == 1)
    assert fwd1.terms["optimizer_states"] == 0


def test_gradient_accumulation_holds_gradients_through_later_micro_batches():
    m = get_model("llama-2-7b")
    one = estimate(m, TrainingSetup(method=Method.LORA, seq_len=2048), H200)
    four = estimate(m, TrainingSetup(method=Method.LORA, seq_len=2048, grad_accum=4), H200)
    # LoRA peaks at the start of backward, where one micro-batch holds no gradient yet; with accumulation the
    # adapters' fp32 gradients from the earlier micro-batches are there too
    assert four.peak_allocated_bytes - one.peak_allocated_bytes == 4 * 39_976_960


def test_the_same_training_on_one_gpu() -> None:
    """What the whole model's states are counted on: one GPU of one node, no sharding, no layout."""
    s = TrainingSetup(gpus=16, sharding="zero3", offload_params=True, parallel={"tp": 2, "pp": 2},
                      host={"nodes": 2, "dataset_tokens": 5}, seq_len=2048)
    one = s.on_one_gpu()
    assert (one.gpus, one.sharding.value, one.offload_params, one.layout_active, one.host.nodes) == (
        1, "none", False, False, 1)
    assert (one.seq_len, one.host.dataset_tokens, one.method) == (2048, 5, s.method)
