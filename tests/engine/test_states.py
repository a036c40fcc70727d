"""Weights, gradients and optimizer states: the seed's byte counts, by hand."""

import pytest

from engine.catalog import get_model
from engine.specs import Method, Optimizer, Precision, Sharding, Stack, TrainingSetup
from engine.training.context import model_states
from engine.training.plan import resolve
from engine.training.states import quant_bits_per_param

M = get_model("llama-2-7b")
P = 6_738_415_616


def _per_param(s):
    st = model_states(M, s)
    return (st.weights + st.gradients + st.optimizer_states) / P


def test_mixed_precision_adamw_is_16_bytes_per_param():
    assert _per_param(TrainingSetup(precision=Precision.BF16_MIXED)) == 16


def test_pure_bf16_is_8_bytes_per_param():
    assert _per_param(TrainingSetup(precision=Precision.BF16)) == 8


def test_amp_holds_fp32_everything():
    assert _per_param(TrainingSetup(precision=Precision.AMP_BF16)) == 16
    assert _per_param(TrainingSetup(precision=Precision.FP32)) == 16


@pytest.mark.parametrize("n", [2, 4, 8, 64])
def test_zero3_divides_everything_by_n(n):
    s = TrainingSetup(gpus=n, sharding=Sharding.ZERO3)
    assert _per_param(s) == pytest.approx(16 / n, rel=1e-9)


def test_zero_stages_divide_progressively():
    n = 8
    z1 = model_states(M, TrainingSetup(gpus=n, sharding=Sharding.ZERO1))
    z2 = model_states(M, TrainingSetup(gpus=n, sharding=Sharding.ZERO2))
    assert z1.weights == z2.weights == 2 * P
    assert z1.gradients == 2 * P
    assert z2.gradients == 2 * P // n
    assert z1.optimizer_states == z2.optimizer_states == 12 * P // n


def test_optimizers():
    bf16 = {"precision": Precision.BF16}
    assert model_states(M, TrainingSetup(optimizer=Optimizer.SGD, **bf16)).optimizer_states == 0
    assert model_states(M, TrainingSetup(optimizer=Optimizer.LION, **bf16)).optimizer_states == 2 * P
    eight = model_states(M, TrainingSetup(optimizer=Optimizer.ADAMW_8BIT, **bf16)).optimizer_states
    # bitsandbytes 0.50.2 Optimizer2State.init_state: two uint8 states + one fp32 absmax per 256 elements each, for
    # every tensor (all of Llama-2-7B's hold at least 4,096 elements and a multiple of 256), two code maps once
    assert eight == 2 * P + 2 * 4 * P // 256 + 2 * 256 * 4
    ada = model_states(M, TrainingSetup(optimizer=Optimizer.ADAFACTOR, **bf16)).optimizer_states
    assert ada < 0.01 * P  # factored second moments: rows + columns only


def test_paged_optimizers_page_only_large_tensors():
    """bitsandbytes pages the state buffers of tensors of 1e5 elements or more (Optimizer8bit.get_state_buffer);
    r16 all-linear on Llama-2-7B: down_proj's A and gate/up's B (176,128 elements each) are paged, the other eleven
    adapters of a layer (65,536 each) are not, and every absmax stays on the device. The bytes are the Trainer's
    trace (calibration/stacks/NOTES.md section 1, rule 9: hf-llama-2-7b_qlora-r16-all_b1_s2048_gc-peft_*)."""
    st = model_states(M, TrainingSetup(optimizer=Optimizer.PAGED_ADAMW_8BIT, method=Method.LORA))
    paged_elements = 3 * 176_128 * 32
    assert st.paged_states == 2 * paged_elements == 33_816_576
    # on the device: 11 x 65,536 x 32 adapters' two uint8 states, every tensor's two absmax, the code maps
    assert st.optimizer_states == 2 * 11 * 65_536 * 32 + 8 * 39_976_960 // 256 + 2_048 == 47_388_672


def test_paged_32bit_adamw_pages_the_large_tensors_fp32_states():
    """PagedAdamW32bit: two fp32 states per trainable parameter (LoRA: 8 bytes x 39,976,960 adapters), those of
    the tensors of 1e5 elements or more paged (device total), the others in the allocator (traced: 184,549,376
    and 135,266,304 bytes); offloaded by ZeRO they leave the GPU as AdamW's do."""
    lora = {"method": Method.LORA}
    adamw = model_states(M, TrainingSetup(optimizer=Optimizer.ADAMW, **lora))
    paged = model_states(M, TrainingSetup(optimizer=Optimizer.PAGED_ADAMW, **lora))
    assert paged.optimizer_states + paged.paged_states == adamw.optimizer_states == 8 * 39_976_960
    assert (paged.optimizer_states, paged.paged_states) == (184_549_376, 8 * 3 * 176_128 * 32)
    offloaded = model_states(M, TrainingSetup(optimizer=Optimizer.PAGED_ADAMW, offload_optimizer=True, **lora))
    assert (offloaded.paged_states, offloaded.host) == (0, adamw.optimizer_states + 4 * 39_976_960)


def test_lora_trains_only_adapters_in_fp32():
    st = model_states(M, TrainingSetup(method=Method.LORA, precision=Precision.BF16))
    assert st.counts.trainable == 39_976_960
    assert st.gradients == 4 * 39_976_960
    assert st.optimizer_states == 8 * 39_976_960
    assert st.weights == 2 * P + 4 * 39_976_960


def test_qlora_bits_per_param_from_the_paper():
    # Dettmers et al. 2023, s3: 32/64 = 0.5 bits of constants, 8/64 + 32/(64*256) = 0.127 with DQ
    assert quant_bits_per_param(TrainingSetup()) == pytest.approx(4.127, abs=1e-3)
    no_dq = TrainingSetup().quant.model_copy(update={"double_quant": False})
    assert quant_bits_per_param(TrainingSetup(quant=no_dq)) == 4.5


def test_qlora_weights_by_hand():
    st = model_states(M, TrainingSetup(method=Method.QLORA))
    linear = 32 * (4 * 4096**2 + 3 * 4096 * 11008)
    rest = P - linear
    # hf-trainer: PEFT's preparation holds the rest (embeddings, norms, head) in fp32 (engine.training.policy)
    expected = linear * (4 + 8 / 64 + 32 / (64 * 256)) / 8 + 4 * rest + 4 * 39_976_960
    assert st.weights == pytest.approx(expected, abs=1)
    tune = model_states(M, TrainingSetup(method=Method.QLORA, stack=Stack.TORCHTUNE))
    # torchtune keeps them and its adapters in bf16, beside one RoPE cache of fp32 cos and sin (4,096 x 128 x 4 B;
    # engine.training.stacks.model_buffers)
    assert tune.weights == pytest.approx(expected - 2 * rest - 2 * 39_976_960 + 4096 * 128 * 4, abs=1)


def test_offload_moves_states_to_host():
    """ZeRO-Offload: the master copy and AdamW's states (12 bytes a parameter) and the fp32 gradients (4): the whole
    model's on the host, each GPU's partition from each process."""
    s = TrainingSetup(offload_optimizer=True, gpus=4, sharding=Sharding.ZERO2)
    st = model_states(M, s)
    assert st.optimizer_states == 0
    assert st.host == -(-12 * P // 4) + -(-4 * P // 4)
    assert resolve(M, s).host_total == 12 * P + 4 * P


def test_weight_parts_name_what_qlora_stores():
    from engine.training.policy import stack_policy
    from engine.training.states import counts, weight_parts

    s = TrainingSetup(method=Method.QLORA)
    parts = weight_parts(s, counts(M, s), stack_policy(s).dtypes)
    linear = 32 * (4 * 4096**2 + 3 * 4096 * 11008)
    assert parts["quantized_4bit"] == linear // 2  # 4 bits each
    assert parts["quant_constants"] == round(linear * (8 / 64 + 32 / (64 * 256)) / 8)  # 0.127 bit each
    assert parts["frozen"] == 4 * (P - linear)  # embeddings, output layer, norms: fp32 (PEFT's preparation)
    assert parts["trainable"] == 4 * 39_976_960
    assert sum(parts.values()) == model_states(M, s).weights


def test_qlora_modules_kept_unquantized_can_be_quantized_too():
    from engine.specs import QuantSpec

    base = model_states(M, TrainingSetup(method=Method.QLORA)).weights
    table = 32000 * 4096
    for field in ("keep_embeddings_16bit", "keep_lm_head_16bit"):
        s = TrainingSetup(method=Method.QLORA, quant=QuantSpec(**{field: False}))
        saved = base - model_states(M, s).weights
        assert saved == pytest.approx(table * (4 - 4.127 / 8), rel=1e-3)  # PEFT's fp32 -> 4.127 bits
