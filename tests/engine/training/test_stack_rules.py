"""The stacks' own rules (issue 25, engine.training.stacks): each against a hand derivation from the stack's source
or its trace (calibration/stacks/NOTES.md; the traced rows themselves: test_optimizer_impl.py's per-row 2% check
over engine/catalog/stack_traces.json)."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.catalog import get_gpu, get_model, models
from engine.params import count_params, lora_params
from engine.specs import (
    Attention,
    Checkpointing,
    LoraSpec,
    LoraTargets,
    Loss,
    Method,
    ModelSpec,
    Optimizer,
    ParallelSpec,
    Precision,
    Sharding,
    Stack,
    TrainingSetup,
)
from engine.training.activations import activation_coeffs
from engine.training.context import model_states
from engine.training.estimate import estimate
from engine.training.moments import MomentKind
from engine.training.plan import resolve
from engine.training.stacks import StackError

L3 = get_model("llama-3.1-8b")
H, KV, F, A, D = 4096, 1024, 14336, 32, 128  # Llama 3 8B
GPU = get_gpu("h200")


def _titan(**changes: object) -> TrainingSetup:
    base = {"stack": Stack.TORCHTITAN, "gpus": 8, "sharding": Sharding.ZERO3, "precision": Precision.BF16_MIXED,
            "checkpointing": Checkpointing.OP_SELECTIVE, "loss": Loss.CHUNKED_BACKWARD, "seq_len": 8192}
    return TrainingSetup(**{**base, **changes})


def _term(e: object, name: str, kind: MomentKind, step: int = 2) -> float:
    values, moments = e.values, e.moments  # type: ignore[attr-defined]
    names = [t.name for t in e.terms]  # type: ignore[attr-defined]
    i = next(i for i, mo in enumerate(moments) if mo.kind is kind and mo.step == step)
    return float(values[i][names.index(name)])


def _buffers(e: object, kind: MomentKind, step: int = 2) -> float:
    return _term(e, "sharding_buffers", kind, step)


def test_torchtitan_op_selective_keeps_its_traced_bytes_per_block() -> None:
    # wqkv (kept), wo, w1 (kept), w3, w2 (kept): 2(h + 2 h_kv) + 2f + 2h, the attention output 2h and its fp32
    # LSE per head, the block input 2h: 65,664 bytes a token (traced to the byte: 537,919,488 at 8,192 tokens)
    lc = activation_coeffs(L3, _titan()).per_layer[0]
    assert lc.saved == 2 * (H + 2 * KV) + 2 * F + 2 * H + 2 * H + 4 * A + 2 * H == 65_664
    assert lc.saved * 8192 == 537_919_488


def test_op_selective_on_unfused_projections_keeps_q_v_gate_and_down() -> None:
    # transformers' q, k, v, o, gate, up, down: the 1st, 3rd, 5th and 7th matmuls kept (q, v, gate, down)
    s = TrainingSetup(checkpointing=Checkpointing.OP_SELECTIVE, precision=Precision.BF16)
    lc = activation_coeffs(L3, s).per_layer[0]
    assert lc.saved == 2 * H + 2 * KV + 2 * F + 2 * H + (2 * H + 4 * A) + 2 * H
    # in its backward the layer saves all it saves unchecked, and its input beside (HF's norm keeps an fp32 copy)
    full = activation_coeffs(L3, s.with_(checkpointing=Checkpointing.NONE)).per_layer[0]
    assert lc.saved + lc.recomputed == full.saved + 2 * H


def test_op_selective_counts_an_addmm_without_advancing_the_counter() -> None:
    # Qwen2's biased q, k, v are addmm: kept, not counted; o (1) kept, gate (2), up (3) kept, down (4)
    m = get_model("qwen2.5-7b")
    h, kv, f, a = m.hidden_size, m.num_kv_heads * m.head_size, m.intermediate_size, m.num_heads
    lc = activation_coeffs(m, TrainingSetup(checkpointing=Checkpointing.OP_SELECTIVE, precision=Precision.BF16)
                           ).per_layer[0]
    assert lc.saved == 2 * h + 2 * (h + 2 * kv) + 2 * h + 2 * f + (2 * m.num_heads * m.head_size + 4 * a)


@pytest.mark.parametrize("s", [
    TrainingSetup(method=Method.LORA, checkpointing=Checkpointing.OP_SELECTIVE),
    TrainingSetup(attention=Attention.EAGER, checkpointing=Checkpointing.OP_SELECTIVE),
    TrainingSetup(loss=Loss.CHUNKED_BACKWARD),
    TrainingSetup(stack=Stack.TORCHTITAN, method=Method.QLORA),
    TrainingSetup(stack=Stack.TORCHTITAN, checkpointing=Checkpointing.SELECTIVE),
    TrainingSetup(stack=Stack.TORCHTITAN, gpus=8, sharding=Sharding.ZERO1),
    TrainingSetup(stack=Stack.TORCHTITAN, loss=Loss.CHUNKED_BACKWARD),  # no FSDP2 on one GPU
    TrainingSetup(stack=Stack.TORCHTUNE, checkpointing=Checkpointing.SELECTIVE),
    TrainingSetup(stack=Stack.MEGATRON, gpus=8, sharding=Sharding.ZERO3),
    TrainingSetup(stack=Stack.LITGPT, method=Method.QLORA, precision=Precision.BF16_MIXED),
], ids=lambda s: f"{s.stack}-{s.method}-{s.checkpointing}-{s.loss}-{s.sharding}")
def test_what_a_stack_does_not_run_is_refused_by_name(s: TrainingSetup) -> None:
    with pytest.raises(StackError):
        estimate(L3, s, GPU)


def test_torchtitan_refuses_a_model_its_llama_is_not() -> None:
    with pytest.raises(StackError, match="biases"):
        estimate(get_model("qwen2.5-7b"), _titan(), GPU)


def test_checkpoint_every_needs_full_checkpointing() -> None:
    with pytest.raises(ValueError, match=r"checkpoint_every 2 .* needs checkpointing full"):
        TrainingSetup(checkpoint_every=2)


def test_every_second_layer_checkpointed_keeps_half_the_layers_whole() -> None:
    s = TrainingSetup(precision=Precision.BF16, checkpointing=Checkpointing.FULL, checkpoint_every=2)
    ac = activation_coeffs(L3, s)
    none = activation_coeffs(L3, s.with_(checkpointing=Checkpointing.NONE, checkpoint_every=1)).per_layer[0]
    layers = ac.per_layer
    assert len(layers) == L3.num_layers == 32
    # torchtune's counter: the 2nd, 4th, ... layer (indices 1, 3, ...) is checkpointed: it keeps its input
    assert [lc.saved for lc in layers[:4]] == [none.saved, 2 * H, none.saved, 2 * H]
    assert layers[1].recomputed == none.saved
    e = estimate(L3, s.with_(seq_len=2048), GPU)
    kept = (sum(lc.saved for lc in layers) + ac.head_saved) * 2048
    assert _term(e, "activations", MomentKind.FORWARD_END) == kept


def test_torchtitan_fsdp2_states_are_16_bytes_per_parameter_over_the_ranks() -> None:
    st = model_states(L3, _titan())
    p = count_params(L3).total
    rope = L3.num_layers * L3.max_position * D // 2 * 8  # one complex64 cache per block, replicated
    assert rope == 32 * 67_108_864
    assert st.weights == -(-4 * p // 8) + rope  # fp32 shards, no master copy
    assert st.gradients == -(-4 * p // 8)
    assert st.optimizer_states == -(-8 * p // 8)




def test_torchtitan_keeps_the_output_layer_gathered_to_its_backward() -> None:
    e = estimate(L3, _titan(), GPU)
    head = 2 * (L3.vocab_size * H + H)  # the [norm, lm_head] unit in bf16
    assert _buffers(e, MomentKind.FORWARD_END) == head


def test_torchtitan_with_pipelining_holds_its_stage_gathered_and_its_gradients_unsharded() -> None:
    # torch 2.13 pipelining/stage.py backward_maybe_with_nosync: no reshard, no gradient sync until the last
    # micro-batch: bf16 parameters (2) and fp32 accumulated gradients (4) of the whole stage, the embedding with it
    s = _titan(gpus=16, loss=Loss.STANDARD, parallel=ParallelSpec(pp=2, micro_batches=8))
    plan = resolve(L3, s)
    first = sum(h.weights for h in plan.held[:16]) + L3.vocab_size * H
    assert _stage_buffer(s, 0) == pytest.approx(6 * first)
    one = estimate(L3, s.with_(gpus=8, parallel=ParallelSpec()), GPU)
    assert estimate(L3, s, GPU).peak_allocated_bytes > one.peak_allocated_bytes / 2 + 6 * first


def _stage_buffer(s: TrainingSetup, stage: int) -> float:
    from engine.training.estimate import plan_table

    table = plan_table(resolve(L3, s), stage)
    i = next(i for i, mo in enumerate(table.moments) if mo.kind is MomentKind.FORWARD_END and mo.step == 2)
    return float(table.values(8192, 0)[i][list(table.names).index("sharding_buffers")])


def test_torchtitan_zero2_is_reshard_never() -> None:
    # fsdp_reshard_after_forward "never": every block and the embedding stay gathered from forward to backward
    s = _titan(sharding=Sharding.ZERO2)
    e = estimate(L3, s, GPU)
    blocks = count_params(L3).total - 2 * L3.vocab_size * H - H
    assert _buffers(e, MomentKind.FORWARD_END) == 2 * (blocks + L3.vocab_size * H + (L3.vocab_size * H + H))


def test_megatron_holds_fp32_gradient_buffers_from_the_first_forward() -> None:
    s = TrainingSetup(stack=Stack.MEGATRON, precision=Precision.BF16_MIXED)
    e = estimate(L3, s, GPU)
    p = count_params(L3).total
    names = [t.name for t in e.terms]
    first = next(i for i, mo in enumerate(e.moments) if mo.step == 1 and mo.kind is MomentKind.FORWARD_END)
    assert e.values[first][names.index("gradients")] == 4 * p  # main_grad, fp32, allocated with the model
    assert model_states(L3, s).optimizer_states == 12 * p  # fp32 main parameters + Adam states


def test_torchtune_adapts_q_v_o_and_the_mlp_not_k() -> None:
    r = 8
    per_layer = r * ((H + H) + (H + KV) + (H + H) + 2 * (H + F) + (F + H))  # q, v, o, gate, up, down
    assert lora_params(L3, r, LoraTargets.QVO_MLP) == L3.num_layers * per_layer


def test_torchtune_adapters_train_in_the_model_dtype() -> None:
    s = TrainingSetup(stack=Stack.TORCHTUNE, method=Method.QLORA, precision=Precision.BF16,
                      lora=LoraSpec(rank=8, alpha=16, targets=LoraTargets.QVO_MLP))
    st, n = model_states(L3, s), lora_params(L3, 8, LoraTargets.QVO_MLP)
    assert (st.gradients, st.optimizer_states) == (2 * n, 4 * n)  # bf16 gradients, bf16 AdamW states (fused)
    # torchao's NF4 dequantization: 14 bytes per element of the largest weight (two int64 code tensors of N K / 2,
    # two bf16 lookups, their two scaled halves and the stacked weight), not one bf16 copy
    assert activation_coeffs(L3, s).per_layer[0].dequantized == 14 * H * F


def test_bitsandbytes_32bit_states_are_fp32_for_bf16_adapters() -> None:
    s = TrainingSetup(stack=Stack.LITGPT, method=Method.QLORA, precision=Precision.BF16,
                      optimizer=Optimizer.PAGED_ADAMW)
    n = lora_params(L3, 16, LoraTargets.ALL_LINEAR)
    st = model_states(L3, s)
    # two fp32 states per bf16 adapter parameter, paged for the tensors of 1e5 elements or more (the MLP's r x
    # 14,336 factors; engine.training.states.bnb_state_bytes)
    assert st.paged_states + st.optimizer_states == 8 * n
    assert 0 < st.paged_states < 8 * n


dense = [m for m in models() if all(r.mlp is not None and r.attention is not None and r.mixer is None
                                    and not r.parallel and r.mlp.moe is None and r.attention.mla is None
                                    for r in m.layers or ())
         and m.moe is None and m.mla is None]


@settings(max_examples=60, deadline=None)
@given(st.sampled_from(dense), st.integers(1, 8), st.integers(16, 16_384), st.sampled_from([1, 2, 3, 4]))
def test_op_selective_and_every_kth_lie_between_none_and_full(m: ModelSpec, batch: int, seq: int, k: int) -> None:
    base = TrainingSetup(precision=Precision.BF16, batch=batch, seq_len=seq)
    peak = {c: estimate(m, base.with_(checkpointing=c), GPU).peak_allocated_bytes for c in Checkpointing}
    every = estimate(m, base.with_(checkpointing=Checkpointing.FULL, checkpoint_every=k), GPU).peak_allocated_bytes
    assert peak[Checkpointing.FULL] <= every <= peak[Checkpointing.NONE] or k == 1
    assert peak[Checkpointing.OP_SELECTIVE] <= peak[Checkpointing.NONE]


def test_optimizer_in_backward_holds_one_gradient_at_a_time() -> None:
    # torchtune's 8B_full_single_device.yaml: optimizer_in_bwd, bf16; each parameter's step in its gradient's hook
    s = TrainingSetup(stack=Stack.TORCHTUNE, precision=Precision.BF16, optimizer_in_backward=True, seq_len=2048,
                      checkpointing=Checkpointing.FULL)
    plain = estimate(L3, s.with_(optimizer_in_backward=False), GPU)
    e = estimate(L3, s, GPU)
    assert _term(e, "gradients", MomentKind.BACKWARD_LAYER) == 2 * L3.vocab_size * H  # the top layer: the head's
    assert _term(e, "gradients", MomentKind.OPTIMIZER_STEP) == 0  # nothing left for a step after backward
    p = count_params(L3).total
    # without it the end of backward holds the weights, every gradient and the states: 8 bytes a parameter
    assert plain.peak_allocated_bytes - e.peak_allocated_bytes > 2 * p * 3 // 4  # most of the 2 bytes a parameter
    # step 1's states appear as backward reaches each parameter: none before, all after
    assert _term(e, "optimizer_states", MomentKind.FORWARD_END, 1) == 0
    assert _term(e, "optimizer_states", MomentKind.BACKWARD_END, 1) == 4 * count_params(L3).total


def test_optimizer_in_backward_is_torchtunes_full_fine_tuning() -> None:
    with pytest.raises(StackError, match="optimizer_in_bwd"):
        estimate(L3, TrainingSetup(optimizer_in_backward=True), GPU)


def test_a_compiled_torchtitan_block_saves_what_inductors_partitioner_keeps() -> None:
    # traced (calibration/stacks NOTES section 7): 123,520 B/token besides the block's input without checkpointing,
    # 49,280 with torchtitan's SAC (its w2 output, which no backward reads, not kept)
    none = activation_coeffs(L3, _titan(checkpointing=Checkpointing.NONE, compile=True)).per_layer[0]
    sac = activation_coeffs(L3, _titan(compile=True)).per_layer[0]
    assert (none.saved - 2 * H, sac.saved - 2 * H) == (123_520, 49_280)
    assert sac.saved + sac.recomputed == none.saved


def test_a_compiled_cross_entropy_keeps_its_logits_and_two_floats_a_row() -> None:
    e = activation_coeffs(L3, _titan(loss=Loss.STANDARD, compile=True)).loss
    assert (e.forward, e.backward) == (2 * L3.vocab_size + 8, 4 * L3.vocab_size)


@pytest.mark.parametrize("s", [TrainingSetup(compile=True), _titan(float8=True),
                               _titan(loss=Loss.CHUNKED_OUTPUT)], ids=["compile-hf", "float8", "titan-torchtune-loss"])
def test_what_is_not_traced_is_refused(s: TrainingSetup) -> None:
    with pytest.raises(StackError):
        estimate(L3, s, GPU)
