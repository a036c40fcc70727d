"""The three levers: each moves its own terms, checked against hand-derived counts."""

import pytest

from engine.catalog import get_gpu, get_model
from engine.lever_facts import PAPER_FACTOR, communication, lora_share
from engine.levers import (
    DEFAULT_ZERO3_GPUS,
    POSITIONS,
    SEED_KINDS,
    LeverKind,
    activations_lever,
    advice,
    all_levers,
    biggest_term,
    largest_terms,
    levers,
    long_context_leads,
    long_context_lever,
    lora_lever,
    peak_terms,
    zero3_lever,
)
from engine.specs import (
    Attention,
    Checkpointing,
    HostSetup,
    Loss,
    Method,
    Optimizer,
    ParallelSpec,
    Sharding,
    Stack,
    TrainingSetup,
)
from engine.training import estimate
from engine.training.context import model_states

M = get_model("llama-2-7b")
A100 = get_gpu("a100-80gb")
S = TrainingSetup()
PSI = 6_738_415_616


def test_lora_count_and_both_shares():
    # per layer: q, k, v, o: 4 x 16 x (4096 + 4096); gate, up: 2 x 16 x (4096 + 11008); down: 16 x (11008 + 4096)
    per_layer = 4 * 16 * 8192 + 2 * 16 * 15104 + 16 * 15104
    share = lora_share(M, S)
    assert share.trainable == 32 * per_layer == 39_976_960
    assert share.total == PSI
    assert share.non_embedding == PSI - 2 * 32_000 * 4096
    assert f"{100 * share.of_total:.2f}" == "0.59"
    assert f"{100 * share.of_non_embedding:.2f}" == "0.62"  # the seed's figure


def test_lora_lever_moves_gradients_and_states_then_qlora_the_weights():
    lv = lora_lever(M, S, A100)
    assert [s.key for s in lv.steps] == ["full", "lora", "qlora"]
    assert lv.current == 0
    to_lora = {c.name: c for c in lv.changes(0, 1)}
    assert {n for n, c in to_lora.items() if c.touched} == {"gradients", "optimizer_states"}
    assert to_lora["optimizer_states"].after == 39_976_960 * 8  # fp32 m and v, no master copy for fp32 adapters
    assert to_lora["gradients"].largest_after == 39_976_960 * 4
    to_qlora = {c.name: c for c in lv.changes(1, 2)}
    assert {n for n, c in to_qlora.items() if c.touched} == {"weights"}
    # hf-trainer's QLoRA (engine.training.policy; the Trainer's trace, calibration/stacks/NOTES.md section 1): the
    # 4-bit base and its constants, PEFT's fp32 embeddings, norms and head, the fp32 adapters, and autocast's bf16
    # copies of the head and the adapters saved for backward
    assert to_qlora["weights"].after == (3_238_002_688 + 102_768_640 + 4 * (2 * 32_000 * 4_096 + 65 * 4_096)
                                         + 4 * 39_976_960 + 2 * 32_000 * 4_096 + 2 * 39_976_960)
    assert to_qlora["optimizer_states"].after == to_qlora["optimizer_states"].before


def test_activations_lever_leaves_model_states_alone():
    lv = activations_lever(M, S, A100)
    assert lv.steps[1].setup.attention is Attention.SDPA  # SDPA is already a flash kernel: kept
    assert lv.current == 1
    changes = {c.name: c for c in lv.changes()}
    assert {n for n, c in changes.items() if c.touched} == {"activations"}
    for name in ("weights", "optimizer_states"):
        assert changes[name].largest_before == changes[name].largest_after
    a = changes["activations"]
    assert a.largest_after < a.largest_before / 50
    assert lv.steps[-1].setup.checkpointing is Checkpointing.FULL


@pytest.mark.parametrize("n", [2, 4, 8])
def test_zero3_divides_model_states_by_n_and_not_activations(n):
    lv = zero3_lever(M, S.with_(gpus=n), A100)
    off, on = lv.steps[0].setup, lv.steps[1].setup
    assert on.sharding is Sharding.ZERO3
    assert on.gpus == n
    assert lv.current == 0
    one, split = model_states(M, off), model_states(M, on)
    assert split.weights == -(-PSI * 2 // n)
    assert split.optimizer_states == -(-PSI * 12 // n)
    assert split.gradients == -(-PSI * 2 // n)
    assert one.weights == PSI * 2
    changes = {c.name: c for c in lv.changes()}
    assert changes["activations"].before == changes["activations"].after
    assert changes["activations"].largest_before == changes["activations"].largest_after
    assert not changes["activations"].touched
    assert changes["weights"].touched


def test_zero3_default_n_and_off_is_one_gpu_when_already_sharded():
    assert zero3_lever(M, S, A100).steps[1].setup.gpus == DEFAULT_ZERO3_GPUS
    lv = zero3_lever(M, S.with_(gpus=4, sharding=Sharding.ZERO3), A100)
    assert lv.steps[0].setup.gpus == 1
    assert lv.steps[0].setup.sharding is Sharding.NONE
    assert lv.current == 1


def test_communication_is_one_and_a_half_data_parallel_for_full_fine_tuning():
    c = communication(M, S)
    assert c.data_parallel == 2 * PSI * 2  # all-reduce of 16-bit gradients: 2 Psi
    assert c.zero3 == 3 * PSI * 2  # two all-gathers of 16-bit weights + one reduce-scatter
    assert c.factor == PAPER_FACTOR
    assert communication(M, S.with_(method=Method.LORA)).factor > 10  # frozen weights gathered, tiny gradients


def test_peak_terms_sum_and_largest_terms_bound_them():
    e = estimate(M, S, A100)
    assert sum(peak_terms(e).values()) == e.peak_allocated_bytes
    assert all(largest_terms(e)[n] >= b for n, b in peak_terms(e).items())


def test_biggest_term_first_then_the_lever_that_moves_it():
    assert biggest_term(estimate(M, S, A100)).name == "optimizer_states"
    tip = advice(M, S, A100)
    assert (tip.term.name, tip.lever, tip.step) == ("optimizer_states", LeverKind.LORA, "lora")
    tip = advice(M, S.with_(method=Method.LORA), A100)
    assert (tip.term.name, tip.lever) == ("activations", LeverKind.ACTIVATIONS)
    assert tip.after == peak_terms(estimate(M, S.with_(method=Method.LORA, checkpointing=Checkpointing.FULL),
                                           A100))["activations"]


def test_no_lever_moves_the_logits():
    qwen = get_model("qwen2.5-7b")
    # 8,192 tokens: the logits (12 x 8,192 x 152,064) outgrow hf-trainer QLoRA's fp32 embeddings and head
    s = S.with_(method=Method.QLORA, checkpointing=Checkpointing.FULL, seq_len=8_192)
    tip = advice(qwen, s, get_gpu("h200"))
    assert tip.term.name == "logits"
    assert tip.lever is None


def test_three_cards_in_the_seeds_order():
    assert [lv.kind for lv in levers(M, S, A100)] == [LeverKind.LORA, LeverKind.ACTIVATIONS, LeverKind.ZERO3]


LLAMA31 = get_model("llama-3.1-8b")
LONG = TrainingSetup(method=Method.LORA, seq_len=32_768, checkpointing=Checkpointing.FULL)


def test_long_context_lever_steps_and_the_terms_they_move():
    lv = long_context_lever(LLAMA31, LONG, get_gpu("h200"))
    assert lv.kind is LeverKind.LONG_CONTEXT
    assert [s.key for s in lv.steps] == ["standard", "chunked", "fused-linear-ce", "fused-linear-ce-offload"]
    assert [s.setup.loss for s in lv.steps] == [Loss.STANDARD, Loss.CHUNKED, Loss.FUSED_LINEAR_CE,
                                                 Loss.FUSED_LINEAR_CE]
    assert lv.steps[-1].setup.activation_offload
    assert lv.touches == ("activations", "logits")
    assert lv.current == 0
    logits = {c.name: c for c in lv.changes()}["logits"]
    assert logits.touched
    assert logits.after < logits.before / 4
    chunked = {c.name: c for c in lv.changes(0, 1)}["logits"]  # TRL's chunked loss alone, at its largest
    assert chunked.largest_after < chunked.largest_before / 4
    assert lv.steps[1].setup.loss_chunks is None  # TRL's 256-token chunks


def test_long_context_lever_keeps_a_chunked_setups_chunks_and_leaves_chunked_output_out():
    h200 = get_gpu("h200")
    own = long_context_lever(LLAMA31, LONG.with_(loss=Loss.CHUNKED, loss_chunks=4), h200)
    assert own.current == 1
    assert own.steps[1].setup.loss_chunks == 4
    output = long_context_lever(LLAMA31, LONG.with_(loss=Loss.CHUNKED_OUTPUT), h200)
    assert output.current is None  # torchtune's chunked-output is not one of the lever's steps
    assert Loss.CHUNKED_OUTPUT not in {s.setup.loss for s in output.steps}


def test_long_context_leads_where_logits_or_activations_are_biggest():
    assert long_context_leads(estimate(LLAMA31, LONG, get_gpu("h200")))  # 50 GB of logits
    assert not long_context_leads(estimate(M, S, A100))  # optimizer states


def test_the_rule_with_all_four_levers_moves_the_logits():
    qwen = get_model("qwen2.5-7b")
    s = S.with_(method=Method.QLORA, checkpointing=Checkpointing.FULL, seq_len=8_192)
    h200 = get_gpu("h200")
    tip = advice(qwen, s, h200, computed=all_levers(qwen, s, h200))
    assert (tip.term.name, tip.lever, tip.step) == ("logits", LeverKind.LONG_CONTEXT, "chunked")
    assert [lv.kind for lv in all_levers(M, S, A100)] == [*SEED_KINDS, LeverKind.LONG_CONTEXT]


def test_a_layout_leaves_out_the_steps_it_cannot_take() -> None:
    """Tensor parallelism cannot split QLoRA's 4-bit base: the LoRA card stops at LoRA; two nodes change nothing."""
    m, gpu = get_model("llama-2-7b"), get_gpu("a100-80gb")
    laid = lora_lever(m, TrainingSetup(gpus=2, parallel=ParallelSpec(tp=2)), gpu)
    assert [st.key for st in laid.steps] == ["full", "lora"]
    assert [st.key for st in lora_lever(m, TrainingSetup(gpus=2, host=HostSetup(nodes=2)), gpu).steps] == [
        "full", "lora", "qlora"]


def test_the_one_gpu_side_of_a_context_parallel_setup_is_not_refused():
    """With cp 2 each GPU holds 2^24 tokens, the most a request may ask for; the whole model on one GPU (the
    ZeRO-3 card's "off" side, the communication facts) is derived, not a request, so it is not refused."""
    long = S.with_(gpus=2, sharding=Sharding.ZERO3, batch=32, seq_len=1_048_576, parallel=ParallelSpec(cp=2))
    assert long.micro_batch_tokens == 2**24
    off = zero3_lever(M, long, A100).steps[0].setup
    assert (off.gpus, off.sharding, off.parallel.cp, off.seq_len) == (1, Sharding.NONE, 1, 1_048_576)
    assert communication(M, long).factor == PAPER_FACTOR


def test_full_fine_tuning_drops_what_only_trains_beside_lora() -> None:
    """Fuzz seed 17 (a bug): a LoRA setup with PEFT's trainable tokens raised on the LoRA card's "full" step (the
    option needs a LoRA method). Full fine-tuning trains the whole table anyway: the step drops the option."""
    s = S.with_(method=Method.LORA, trainable_tokens=16)
    card = lora_lever(M, s, A100)
    assert [st.key for st in card.steps] == ["full", "lora", "qlora"]
    full = card.steps[0].setup
    assert (full.method, full.trainable_tokens, full.modules_to_save) == (Method.FULL, 0, ())
    assert card.current == 1
    assert card.steps[1].setup == s


def test_a_step_the_setup_cannot_take_is_left_out_not_raised() -> None:
    """DoRA is costed on LoRA over a 16-bit base only: the card's full step drops it and QLoRA is left out; GaLore
    works on full weights only, so its LoRA card is the full step alone (the setup refuses the others)."""
    dora = lora_lever(M, S.with_(method=Method.LORA, dora=True), A100)
    assert [st.key for st in dora.steps] == ["full", "lora"]
    assert not dora.steps[0].setup.dora
    galore = S.with_(optimizer=Optimizer.GALORE_ADAMW)
    assert [st.key for st in lora_lever(M, galore, A100).steps] == ["full"]


def test_badam_cards_leave_out_zero3_and_activation_offload() -> None:
    """BAdam is costed on data parallelism without ZeRO and without activation offload: the ZeRO-3 card is its
    "off" side alone and the long-context card stops before offload, where before they raised."""
    badam = S.with_(method=Method.BADAM, freeze_layers=2, attention=Attention.FLASH)
    assert [st.key for st in zero3_lever(M, badam, A100).steps] == ["off"]
    assert [st.key for st in long_context_lever(M, badam, A100).steps] == ["standard", "chunked", "fused-linear-ce"]


def test_a_step_the_stack_cannot_run_is_left_out_not_raised() -> None:
    """torchtitan trains every parameter on SDPA / FlexAttention (engine.training.stacks.check): its LoRA card is
    the full step alone and its activations card has no eager step, where before they raised StackError."""
    titan = S.with_(stack=Stack.TORCHTITAN, gpus=8, sharding=Sharding.ZERO3, attention=Attention.SDPA)
    assert [st.key for st in lora_lever(M, titan, A100).steps] == ["full"]
    assert [st.key for st in activations_lever(M, titan, A100).steps] == ["flash", "flash-checkpointing"]
    assert all(lv.steps for lv in all_levers(M, titan, A100))


@pytest.mark.parametrize("setup", [S, S.with_(method=Method.LORA, dora=True), S.with_(optimizer=Optimizer.GALORE_ADAMW),
                                   S.with_(gpus=2, parallel=ParallelSpec(tp=2))], ids=["seed", "dora", "galore", "tp2"])
def test_each_cards_steps_are_its_positions_in_order(setup: TrainingSetup) -> None:
    """A step left out leaves the others in ``POSITIONS``' order; ``Lever.index`` finds each, None for the rest."""
    for lv in all_levers(M, setup, A100):
        keys = [st.key for st in lv.steps]
        assert keys == [k for k in POSITIONS[lv.kind] if k in keys]
        assert [lv.index(k) for k in POSITIONS[lv.kind]] == [keys.index(k) if k in keys else None
                                                              for k in POSITIONS[lv.kind]]
