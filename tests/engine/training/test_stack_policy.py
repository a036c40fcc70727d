"""The hf-trainer stack's dtype policy (engine.training.policy): QLoRA through PEFT's prepare_model_for_kbit_training
and autocast's copies of PEFT's fp32 adapters, each rule against hand-derived bytes for Llama-2-7B (h = 4,096,
f = 11,008, V = 32,000, 32 heads, 32 layers), r16 on all linears; the whole steps against transformers' real
Trainer traced with fake tensors (calibration/stacks/NOTES.md section 1, bundled in engine/catalog/stack_traces.json
and checked by tests/engine/training/test_optimizer_impl.py)."""

from __future__ import annotations

import pytest

from engine.catalog import get_gpu, get_model
from engine.specs import Checkpointing, Method, Precision, Sharding, Stack, TrainingSetup
from engine.training.activations import activation_coeffs
from engine.training.context import model_states
from engine.training.estimate import estimate
from engine.training.plan import resolve, weights_per_gpu

M = get_model("llama-2-7b")
H, F, V = 4_096, 11_008, 32_000
#: r16 adapters of one layer: q, k, v, o 16 x (4,096 + 4,096); gate, up, down 16 x (4,096 + 11,008)
ADAPTERS_PER_LAYER = 4 * 16 * (H + H) + 3 * 16 * (H + F)


def _qlora(stack: Stack = Stack.HF_TRAINER, **changes: object) -> TrainingSetup:
    return TrainingSetup(method=Method.QLORA, precision=Precision.BF16, seq_len=2048, stack=stack).with_(**changes)


def test_peft_casts_the_unquantized_parameters_to_fp32() -> None:
    """Rule 1: the embedding, the output layer and the 65 norms in fp32 (traced: 1,049,641,472 bytes, 512 of
    them the rotary buffers); torchtune keeps them in bf16."""
    fp32 = 4 * (2 * V * H + 65 * H)
    assert weights_per_gpu(M, _qlora())["frozen"] == fp32 == 1_049_640_960
    assert weights_per_gpu(M, _qlora(Stack.TORCHTUNE))["frozen"] == fp32 // 2


def test_the_residual_stream_is_fp32_so_a_checkpoint_keeps_fp32_inputs() -> None:
    """Rule 2 and 6: a checkpointed layer keeps its fp32 input (4h a token); torchtune's is bf16."""
    assert activation_coeffs(M, _qlora()).per_layer[0].checkpoint == 4 * H
    assert activation_coeffs(M, _qlora(Stack.TORCHTUNE)).per_layer[0].checkpoint == 2 * H


def test_a_layer_without_checkpointing_saves_fp32_mlp_tensors() -> None:
    """Rules 2-3 per token: gate and up outputs after the LoRA add and the SiLU output in fp32 (12f); down's
    LoRA-A input in bf16 (2f); the two fp32 norm inputs (8h); six bf16 LoRA-A inputs (12h); q, k, v and the
    attention output in bf16 for SDPA (8h) and its fp32 log-sum-exp (4 x 32); seven LoRA-A outputs (7 x 2r). The
    trace's two fp32 rsqrt (8 bytes) are not counted."""
    saved = activation_coeffs(M, _qlora()).per_layer[0].saved
    assert saved == 12 * F + 2 * F + 8 * H + 12 * H + 8 * H + 4 * 32 + 7 * 2 * 16 == 269_152


def test_the_fp32_output_layer_has_a_saved_16_bit_copy() -> None:
    """Rule 5: autocast's bf16 copy of the fp32 head, saved by its matmul (262,144,000 bytes traced)."""
    assert activation_coeffs(M, _qlora()).head_copies == 2 * V * H == 262_144_000
    assert activation_coeffs(M, _qlora(Stack.TORCHTUNE)).head_copies == 0
    lora = TrainingSetup(method=Method.LORA, precision=Precision.BF16)
    assert activation_coeffs(M, lora).head_copies == 0  # a bf16 head needs no copy


def test_autocast_caches_a_16_bit_copy_of_every_fp32_adapter() -> None:
    """Rule 8: 2 bytes per adapter parameter, for plain LoRA as for QLoRA (the Trainer's traces: 80 MB of
    ``_to_copy [16, 4096] bf16`` and its kin); torchtune's adapters are bf16 and run without autocast."""
    for s in (_qlora(), TrainingSetup(method=Method.LORA, precision=Precision.BF16)):
        assert activation_coeffs(M, s).per_layer[0].weight_copies == 2 * ADAPTERS_PER_LAYER == 2_498_560
    assert activation_coeffs(M, _qlora(Stack.TORCHTUNE)).per_layer[0].weight_copies == 0


def test_each_rule_names_its_source_in_the_terms() -> None:
    e = estimate(M, _qlora(checkpointing=Checkpointing.FULL), get_gpu("h200"))
    sources = {str(t.name): t.source for t in e.terms}
    assert "peft/utils/other.py prepare_model_for_kbit_training@0.21.2" in sources["weights"]
    assert "bitsandbytes/nn/modules.py Linear4bit.forward@0.50.2" in sources["activations"]
    # torchtune's QLoRA runs none of PEFT's rules: its own source, the adapters in the model's dtype
    assert resolve(M, _qlora(Stack.TORCHTUNE)).policy.sources == (
        "torchtune 0.6.1 recipes/lora_finetune_single_device.py (adapters in the model's dtype)",)


def test_full_fine_tuning_is_the_regimes_own() -> None:
    s = TrainingSetup(method=Method.FULL, precision=Precision.BF16)
    plan = resolve(M, s)
    assert plan.policy.sources == ()
    assert plan.dtypes.residual == 2
    assert not plan.dtypes.adapter_copies


P = 6_738_415_616  # Llama-2-7B


def _fsdp(version: int | None, **changes: object) -> TrainingSetup:
    return TrainingSetup(method=Method.FULL, precision=Precision.BF16, gpus=8, sharding=Sharding.ZERO3,
                         seq_len=2048, fsdp_version=version).with_(**changes)


def test_accelerates_fsdp_upcasts_the_trainable_parameters_to_fp32() -> None:
    """accelerate's FSDP under mixed precision (read: NOTES section 3): fp32 shards of the parameters and of
    AdamW's states, 16 bytes per parameter over N GPUs instead of pure bf16's 8; DeepSpeed's ZeRO-3 (no
    fsdp_version) keeps what the regime says."""
    for version in (1, 2):
        st = model_states(M, _fsdp(version))
        assert (st.weights, st.optimizer_states) == (4 * P // 8, 8 * P // 8)
        assert st.weights + st.gradients + st.optimizer_states == 16 * P // 8
    zero = model_states(M, _fsdp(None))
    assert zero.weights + zero.gradients + zero.optimizer_states == 8 * P // 8


def test_fsdp_gathers_16_bit_units_and_makes_no_autocast_copies() -> None:
    """FSDP's MixedPrecision gathers each unit in bf16: the weights term is the fp32 shard alone at every moment
    (an amp-bf16 model under autocast would add a bf16 copy of every layer), the gathered units are bf16."""
    e = estimate(M, _fsdp(1), get_gpu("h200"))
    assert {p.terms["weights"] for p in e.phases} == {4 * P // 8}
    amp = estimate(M, _fsdp(1, precision=Precision.AMP_BF16), get_gpu("h200"))
    assert amp.peak_allocated_bytes == e.peak_allocated_bytes  # the loaded dtype does not matter


def test_quantization_constants_and_fsdp2s_4bit_weights_stay_whole() -> None:
    """bitsandbytes' QuantState is no parameter: no ZeRO-3 / FSDP shards it; FSDP2 leaves the uint8 Params4bit
    out of sharding (accelerate fsdp_utils.py ignored_params); FSDP1 shards them (as DeepSpeed does)."""
    qlora = {"method": Method.QLORA}
    one, two = weights_per_gpu(M, _fsdp(1, **qlora)), weights_per_gpu(M, _fsdp(2, **qlora))
    whole = weights_per_gpu(M, _fsdp(1, **qlora, gpus=1, sharding=Sharding.NONE, fsdp_version=None))
    assert one["quant_constants"] == two["quant_constants"] == whole["quant_constants"]
    assert two["quantized_4bit"] == whole["quantized_4bit"] == 8 * one["quantized_4bit"]


def test_fsdp_version_needs_a_sharded_setup_and_joins_the_json_when_set() -> None:
    with pytest.raises(ValueError, match="fsdp_version 2 runs sharding zero2 or zero3 through FSDP"):
        TrainingSetup(fsdp_version=2)
    assert "fsdp_version" not in TrainingSetup().as_json()
    assert _fsdp(2).as_json()["fsdp_version"] == 2
