"""Issue 27's options meeting issue 27's layer kinds: what is costed on a hybrid model (tensor by tensor where an
optimizer needs it) and what is refused by name (the options not traced on a token mixer, the step time of a
mixer layer, vLLM's start-up)."""

from __future__ import annotations

import pytest

from engine.catalog import get_gpu, get_model, model_ids
from engine.commands.time_report import time_json
from engine.layers import runs
from engine.params import count_params, lora_params
from engine.serving.vllm import vllm_startup
from engine.serving.vllm_setup import VllmSetup
from engine.specs import LoraTargets, Method, Optimizer, Precision, TrainingSetup
from engine.training import estimate
from engine.training.plan import resolve
from engine.training.precision import dtype_plan
from engine.training.refusals import OptionError
from engine.training.states import per_tensor_bytes
from engine.training.tensors import full_tensors, lora_tensors

HYBRIDS = [i for i in model_ids() if any(r.mixer is not None or r.parallel for r in runs(get_model(i)))]
BF16 = {"precision": Precision.BF16}


def test_the_catalog_has_the_hybrid_families() -> None:
    assert {"qwen3.5-35b-a3b", "lfm2-1.2b", "jamba-v0.1", "kimi-linear-48b-a3b", "nemotron-3-nano-30b-a3b",
            "pythia-1b", "gpt-j-6b"} <= set(HYBRIDS)


@pytest.mark.parametrize("name", HYBRIDS)
def test_tensors_add_up_to_the_counts(name: str) -> None:
    """The per-tensor list (Muon's, torchao's, RMSprop's) holds every mixer parameter: the linears and the
    convolution, decay, skip and norm tensors beside them."""
    m = get_model(name)
    assert sum(t.total for t in full_tensors(m)) == count_params(m).total
    for targets in LoraTargets:
        assert sum(t.total for t in lora_tensors(m, 8, targets)) == lora_params(m, 8, targets)


def test_rmsprop_on_lfm2_keeps_one_state_a_value_and_a_step_a_tensor() -> None:
    """LFM2 1.2B (transformers 5.24 Lfm2ForCausalLM, layers 2, 5, 8, 10, 12, 14 attention): 10 convolution layers of
    in_proj, out_proj, conv.weight (no bias), w1, w2, w3 and 2 norms (8 tensors); 6 attention layers of q, k, v,
    out_proj, q/k layernorms, w1, w2, w3 and 2 norms (11); the tied table and the final norm: 148 tensors."""
    m = get_model("lfm2-1.2b")
    s = TrainingSetup(optimizer=Optimizer.RMSPROP, **BF16)
    got = per_tensor_bytes(m, s, dtype_plan(s.precision))
    assert len([t for t in full_tensors(m) for _ in range(t.count)]) == 148
    assert got.states == 2 * count_params(m).total + 4 * 148


@pytest.mark.parametrize("name", ["qwen3.5-35b-a3b", "lfm2-1.2b", "jamba-v0.1", "nemotron-3-nano-30b-a3b"])
@pytest.mark.parametrize("setup", [
    {"method": Method.LORA_8BIT}, {"method": Method.LORA, "dora": True}, {"method": Method.OFT},
    {"optimizer": Optimizer.MUON}, {"optimizer": Optimizer.GALORE_ADAMW}, {"optimizer": Optimizer.APOLLO_ADAMW},
    {"optimizer": Optimizer.ADAM_MINI},
])
def test_options_not_traced_on_a_mixer_are_refused_by_name(name: str, setup: dict[str, object]) -> None:
    m = get_model(name)
    kinds = sorted({r.mixer.kind for r in runs(m) if r.mixer is not None})
    with pytest.raises(OptionError, match=f"not costed on its {', '.join(kinds)} layers"):
        resolve(m, TrainingSetup(**setup, **BF16))


@pytest.mark.parametrize("setup", [
    {"method": Method.FREEZE}, {"method": Method.BADAM}, {"method": Method.LORA, "trainable_tokens": 16},
    {"method": Method.LORA, "modules_to_save": ("embed_tokens",)}, {"optimizer": Optimizer.ADAMW_4BIT},
    {"optimizer": Optimizer.RMSPROP}, {"method": Method.LORA, "optimizer": Optimizer.MUON},
])
def test_options_costed_on_a_mixer_give_an_estimate(setup: dict[str, object]) -> None:
    """LoRA's factors are matrices (Muon takes them); the others read the parameters, not the mixer's kernel."""
    e = estimate(get_model("qwen3.5-35b-a3b"), TrainingSetup(**setup, seq_len=1024, **BF16),
                 get_gpu("h200"))
    assert e.peak_allocated_bytes > count_params(get_model("qwen3.5-35b-a3b")).total


def test_the_step_time_of_a_mixer_layer_is_refused_by_name() -> None:
    got = time_json(get_model("lfm2-1.2b"), TrainingSetup(**BF16), get_gpu("h200"))
    assert got == {"error": "cannot time short-conv layers: the step-time model has attention and MLP layers only"}


def test_vllm_start_up_of_a_mixer_model_is_refused_by_name() -> None:
    with pytest.raises(ValueError, match="short-conv layers is not modelled"):
        vllm_startup(get_model("lfm2-1.2b"), get_gpu("h100-80gb"), VllmSetup())
