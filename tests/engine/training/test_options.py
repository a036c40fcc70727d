"""Issue 27's training methods, by hand: what each stores, saves and makes (the traced rows are
tests/engine/test_accuracy.py's, from calibration/options.py)."""

from __future__ import annotations

import pytest

from engine.catalog import get_gpu, get_model
from engine.specs import Checkpointing, Method, Precision, Sharding, TrainingSetup
from engine.training import estimate
from engine.training.activations import activation_coeffs
from engine.training.context import stage_context
from engine.training.plan import resolve, weights_per_gpu
from engine.training.refusals import OptionError

LLAMA_1B = get_model("llama-3.2-1b")
BF16 = {"precision": Precision.BF16}


def test_an_8bit_base_stores_int8_weights_and_a_scale_per_row() -> None:
    """Llama 3.2 1B: 16 layers of q, o (2048 x 2048), k, v (512 x 2048), gate, up, down (8192 x 2048 / 2048 x 8192)
    in int8, one fp32 absmax per output row (SCB); the tied table and the norms in 16 bits; fp32 adapters."""
    parts = weights_per_gpu(LLAMA_1B, TrainingSetup(method=Method.LORA_8BIT, **BF16))
    per_layer = 2 * 2048 * 2048 + 2 * 512 * 2048 + 3 * 8192 * 2048
    assert parts["quantized_8bit"] == 16 * per_layer == 973_078_528
    assert parts["quant_constants"] == 4 * 16 * (2048 + 512 + 512 + 2048 + 3 * 8192 - 8192 + 2048)
    assert parts["frozen"] == 2 * (128_256 * 2048 + 16 * 2 * 2048 + 2048)
    assert parts["quantized_4bit"] == 0


def test_an_8bit_base_keeps_each_input_not_a_cast_copy() -> None:
    """Under bf16 autocast PEFT's LoRA casts each adapted linear's input (a 16-bit copy saved per linear: six of
    the hidden width and down's 8,192); bitsandbytes' MatMul8bitLt keeps the input itself, once per input
    (q/k/v's, gate/up's and down's; o_proj's is SDPA's output), and PEFT's 8-bit wrapper casts nothing: 16,384
    bytes a token less per layer, and the bottom layer's q/k/v input (no gradient asked) 4,096 less again."""
    lora = activation_coeffs(LLAMA_1B, TrainingSetup(method=Method.LORA, **BF16))
    int8 = activation_coeffs(LLAMA_1B, TrainingSetup(method=Method.LORA_8BIT, **BF16))
    saved = sum(n * lc.saved for n, lc in lora.segments) - sum(n * lc.saved for n, lc in int8.segments)
    assert saved == 16 * 16_384 + 4_096
    assert [n for n, _ in int8.segments] == [1, 15]


def test_checkpointing_does_not_free_what_an_8bit_base_keeps() -> None:
    """bitsandbytes keeps the inputs on ``ctx.tensors``, outside save_for_backward: a checkpointed layer keeps its
    input (4,096 bytes a token) and its 8-bit linears' (4,096 + 4,096 + 4,096 + 16,384)."""
    ac = activation_coeffs(LLAMA_1B, TrainingSetup(method=Method.LORA_8BIT, checkpointing=Checkpointing.FULL, **BF16))
    assert {lc.checkpoint for _, lc in ac.segments} == {4_096 + 28_672}


def test_an_8bit_base_dequantizes_its_largest_linear_in_backward() -> None:
    ac = activation_coeffs(LLAMA_1B, TrainingSetup(method=Method.LORA_8BIT, **BF16))
    assert {lc.dequantized for _, lc in ac.segments} == {2 * 8192 * 2048}


def test_an_8bit_base_is_refused_where_it_is_not_costed() -> None:
    with pytest.raises(ValueError, match="ZeRO-3"):
        TrainingSetup(method=Method.LORA_8BIT, gpus=2, sharding=Sharding.ZERO3)
    with pytest.raises(OptionError, match="experts or MLA"):
        resolve(get_model("qwen3-30b-a3b"), TrainingSetup(method=Method.LORA_8BIT))
    with pytest.raises(ValueError, match="8-bit base"):
        estimate(LLAMA_1B, TrainingSetup(method=Method.LORA_8BIT, gpus=2, parallel={"tp": 2}), get_gpu("h200"))


def test_dora_trains_a_magnitude_per_output_row() -> None:
    """Llama 3.2 1B, all linear layers: per layer q, o, down (2,048 rows), k, v (512), gate, up (8,192)."""
    lora = TrainingSetup(method=Method.LORA, **BF16)
    dora = lora.with_(dora=True)
    extra = resolve(LLAMA_1B, dora).counts.trainable - resolve(LLAMA_1B, lora).counts.trainable
    assert extra == 16 * (3 * 2048 + 2 * 512 + 2 * 8192) == 16 * 23_552


def test_dora_saves_the_base_and_lora_outputs() -> None:
    """result_dora's two products save base_result and lora_result: 2 x 2 bytes of each adapted output width."""
    lora = activation_coeffs(LLAMA_1B, TrainingSetup(method=Method.LORA, **BF16))
    dora = activation_coeffs(LLAMA_1B, TrainingSetup(method=Method.LORA, dora=True, **BF16))
    assert dora.segments[0][1].saved - lora.segments[0][1].saved == 2 * 2 * 23_552


def test_dora_weight_norm_temporaries_by_hand() -> None:
    """Llama 3.1 8B's down_proj (14,336 -> 4,096) is the largest: eye(n) in fp32 and bf16 and lora_B's n x m output
    (6 n^2 + 2 n m), against the fp32 lora weight, the fp32 base copy and the weight norm's two sums (2 n^2 +
    16 n m); per token the input's fp32 copy and three fp32 products of the output width; backward 18 + 2 bytes of
    the widest output (gate / up, 14,336)."""
    m = get_model("llama-3.1-8b")
    lc = activation_coeffs(m, TrainingSetup(method=Method.LORA, dora=True, **BF16)).segments[0][1]
    n, out = 14_336, 4_096
    assert lc.forward_fixed == max(6 * n * n + 2 * n * out, 2 * n * n + 16 * n * out)
    assert lc.forward_transient == max(4 * n + 12 * out, 4 * 4096 + 12 * 14_336)
    lora = activation_coeffs(m, TrainingSetup(method=Method.LORA, **BF16)).segments[0][1]
    assert lc.transient == max(lora.transient, 2 * 2 * 4096 + 20 * 14_336)


def test_dora_with_dropout_keeps_a_16bit_copy_of_each_adapted_weight() -> None:
    """lora_dropout > 0: DoRA recomputes F.linear on the dropped input; autocast's bf16 cast of the weight stays
    saved: Llama 3.2 1B's 60.8M linear weights a layer x 2 bytes (traced: +1.81 GiB over 16 layers)."""
    dora = TrainingSetup(method=Method.LORA, dora=True, **BF16)
    plain = activation_coeffs(LLAMA_1B, dora).segments[0][1]
    dropped = activation_coeffs(LLAMA_1B, dora.with_(lora={**dora.lora.model_dump(), "dropout": 0.05}))
    weights = 2 * 2048 * 2048 + 2 * 2048 * 512 + 3 * 2048 * 8192
    assert dropped.segments[0][1].saved_fixed - plain.saved_fixed == 2 * weights


def test_dora_is_refused_where_it_is_not_costed() -> None:
    for bad in ({"method": Method.QLORA}, {"method": Method.FULL},
                {"method": Method.LORA, "gpus": 2, "parallel": {"tp": 2}}):
        with pytest.raises(ValueError, match="dora"):
            TrainingSetup(dora=True, **bad)
    with pytest.raises(OptionError, match="ParamWrapper"):
        resolve(get_model("qwen3-30b-a3b"), TrainingSetup(method=Method.LORA, dora=True))


STABLELM = get_model("stablelm-2-1.6b")  # untied: a 100,352 x 2,048 table and output layer


def test_modules_to_save_trains_a_copy_in_the_models_dtype() -> None:
    """PEFT deep-copies each module to save: bf16 here, with bf16 gradients and two bf16 AdamW states (no master
    copy in pure bf16), beside fp32 adapters; the output layer's copy gets its gradient first in backward."""
    table = 100_352 * 2048
    lora = TrainingSetup(method=Method.LORA, **BF16)
    both = lora.with_(modules_to_save=("embed_tokens", "lm_head"))
    p0, p1 = resolve(STABLELM, lora), resolve(STABLELM, both)
    assert p1.counts.trainable - p0.counts.trainable == 2 * table
    assert p1.weights_full - p0.weights_full == 2 * table * 2
    assert p1.optimizer_bytes - p0.optimizer_bytes == 2 * table * 2 * 2
    assert stage_context(p1, 0).grads.head == table * 2
    assert stage_context(p1, 0).st.gradients - stage_context(p0, 0).st.gradients == 2 * table * 2


def test_a_saved_output_layer_keeps_its_input() -> None:
    plain = activation_coeffs(STABLELM, TrainingSetup(method=Method.LORA, **BF16))
    head = activation_coeffs(STABLELM, TrainingSetup(method=Method.LORA, modules_to_save=("lm_head",), **BF16))
    assert head.head_input - plain.head_input == 2 * 2048  # the final norm's bf16 output


def test_trainable_tokens_keep_an_fp32_delta_and_on_a_tied_model_the_merged_table() -> None:
    """16 rows of 2,048: an fp32 delta (trained) and the original rows (bf16); Llama 3.2 1B ties its output layer
    to the table, and PEFT's tied TrainableTokensLayer saves the merged 128,256 x 2,048 table for its backward."""
    lora = TrainingSetup(method=Method.LORA, **BF16)
    tokens = lora.with_(trainable_tokens=16)
    assert resolve(LLAMA_1B, tokens).counts.trainable - resolve(LLAMA_1B, lora).counts.trainable == 16 * 2048
    assert activation_coeffs(LLAMA_1B, tokens).head_copies - activation_coeffs(LLAMA_1B, lora).head_copies == (
        128_256 * 2048 * 2)
    assert activation_coeffs(STABLELM, tokens).head_copies == activation_coeffs(STABLELM, lora).head_copies


def test_modules_to_save_refusals() -> None:
    with pytest.raises(ValueError, match="LoRA method"):
        TrainingSetup(modules_to_save=("lm_head",))
    with pytest.raises(ValueError, match="not costed"):
        TrainingSetup(method=Method.LORA, modules_to_save=("lm_head",), optimizer="adafactor")
    with pytest.raises(OptionError, match="tied"):
        resolve(LLAMA_1B, TrainingSetup(method=Method.LORA, modules_to_save=("lm_head",)))


def test_freeze_tuning_trains_the_last_layers_upcast_to_fp32() -> None:
    """LLaMA-Factory's default freeze_trainable_layers 2: layers 14 and 15 of 16, upcast to fp32 (4 bytes a weight,
    fp32 AdamW states: 8 more); the rest bf16; per layer 60,821,504 parameters."""
    s = TrainingSetup(method=Method.FREEZE, **BF16)
    plan = resolve(LLAMA_1B, s)
    layer = 60_821_504
    assert plan.counts.trainable == 2 * layer
    assert plan.weights_full == 2 * layer * 4 + (1_235_814_400 - 2 * layer) * 2
    assert plan.optimizer_bytes == 2 * layer * 8


def test_frozen_layers_below_the_trained_ones_keep_nothing() -> None:
    last = activation_coeffs(LLAMA_1B, TrainingSetup(method=Method.FREEZE, freeze_layers=2, **BF16))
    first = activation_coeffs(LLAMA_1B, TrainingSetup(method=Method.FREEZE, freeze_layers=-2, **BF16))
    assert [n for n, _ in last.segments] == [14, 2]
    assert last.segments[0][1].saved == 0.0
    assert [n for n, _ in first.segments] == [2, 14]
    assert first.segments[1][1].saved > 0  # frozen above a trained layer: a frozen base's saves


def test_llama_factory_checkpoints_only_the_trained_layers() -> None:
    """A frozen layer above the trained ones runs unchecked: what it saves stays whole through the backward."""
    plain = activation_coeffs(LLAMA_1B, TrainingSetup(method=Method.FREEZE, freeze_layers=-2, **BF16))
    gc = activation_coeffs(LLAMA_1B, TrainingSetup(method=Method.FREEZE, freeze_layers=-2,
                                                   checkpointing=Checkpointing.FULL, **BF16))
    assert gc.segments[1][1].checkpoint == plain.segments[1][1].saved
    assert gc.segments[0][1].checkpoint == 2 * 2048  # a trained layer keeps its input


def test_badam_trains_one_layer_with_an_fp32_copy() -> None:
    """BAdam's block 0: bf16 weights and gradients, an fp32 copy (master) and two fp32 AdamW states; its step
    writes the copy back one tensor at a time (the largest, 8,192 x 2,048, in bf16)."""
    plan = resolve(LLAMA_1B, TrainingSetup(method=Method.BADAM, **BF16))
    layer = 60_821_504
    assert plan.counts.trainable == layer
    assert plan.optimizer_bytes == layer * (4 + 8)
    assert plan.step_temporaries == 8192 * 2048 * 2


def test_oft_trains_a_skew_symmetric_triangle_per_block() -> None:
    """PEFT OFT, block 32: n_in x 31 / 2 per adapted linear; Llama 3.2 1B all-linear: per layer q, k, v, o, gate,
    up read 2,048 and down 8,192."""
    s = TrainingSetup(method=Method.OFT, **BF16)
    assert resolve(LLAMA_1B, s).counts.trainable == 16 * (6 * 2048 + 8192) * 31 // 2 == 5_079_040


def test_oft_keeps_seven_rotation_blocks_and_one_input_copy_per_linear() -> None:
    """The Cayley-Neumann products and casts (seven n_in / 32 x 32 x 32 bf16 tensors, bytes whatever the length)
    and the einsum's bf16 copy of each input (LoRA's, without lora_A's output)."""
    ac = activation_coeffs(LLAMA_1B, TrainingSetup(method=Method.OFT, **BF16))
    lora = activation_coeffs(LLAMA_1B, TrainingSetup(method=Method.LORA, **BF16))
    lc = ac.segments[0][1]
    assert lc.saved_fixed == 7 * (6 * 2048 + 8192) * 32 * 2
    assert lora.segments[0][1].saved - lc.saved == 7 * 2 * 16  # seven adapted linears' r = 16 outputs
    with pytest.raises(ValueError, match="16-bit model"):
        TrainingSetup(method=Method.OFT, precision=Precision.AMP_BF16)


@pytest.mark.parametrize("setup", [
    {"optimizer": "adamw-4bit", "precision": "bf16"}, {"optimizer": "galore-adamw", "precision": "bf16"},
    {"method": "lora-8bit"}, {"method": "lora", "dora": True, "lora": {"dropout": 0.05}},
    {"method": "oft", "precision": "bf16"}, {"method": "badam", "precision": "bf16"},
])
def test_the_allocator_replay_follows_issue_27s_terms(setup: dict[str, object]) -> None:
    """engine.allocator.step cuts each term into its tensors: the bytes it asks for peak at the estimate's peak plus
    the cuBLAS workspaces, for the options' own terms too (optimizer step temporaries, an 8-bit base, DoRA's
    saved weight copies, OFT's rotations, BAdam's block)."""
    from engine.allocator.total import device_total

    e = estimate(LLAMA_1B, TrainingSetup.model_validate(setup), get_gpu("h200"))
    d = device_total(e)
    assert d is not None
    assert int(d.replay.requested.max()) == pytest.approx(e.peak_allocated_bytes + d.workspaces, rel=1e-3)
