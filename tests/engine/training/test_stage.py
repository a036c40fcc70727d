"""engine.training.stage: what one GPU of a pipeline stage holds, against hand-derived bytes, the layout rules'
properties, and Megatron-LM's theoretical-memory formula."""

from __future__ import annotations

import itertools

import pytest

from engine.catalog import get_gpu, get_model
from engine.specs import (
    Checkpointing,
    Method,
    MlpKind,
    ModelSpec,
    NormKind,
    ParallelSpec,
    PipelineSchedule,
    PositionKind,
    Precision,
    Sharding,
    TrainingSetup,
)
from engine.training import Estimate, estimate
from engine.training.context import stage_context
from engine.training.estimate import step_table, tokens_of
from engine.training.plan import resolve

GPU = get_gpu("h100-80gb")
#: vocab 1000, hidden 64, 4 layers, 4 heads of 16 (2 key/value heads), SwiGLU 128
TINY = ModelSpec(id="tiny", vocab_size=1000, hidden_size=64, num_layers=4, num_heads=4, num_kv_heads=2,
                 intermediate_size=128)


def _terms(e: Estimate, stage: int) -> dict[str, int]:
    """Each term of one stage at the stage's peak."""
    return {t.name: t.bytes for t in e.ranks[stage].terms}


def _largest(m: ModelSpec, s: TrainingSetup, term: str, stage: int = 0) -> float:
    """One term of one stage at its largest over the step (whether or not that moment is the peak)."""
    table = step_table(m, s, stage=stage if s.layout_active else None)
    return float(table.values(*tokens_of(s))[:, table.names.index(term)].max())


def test_tiny_model_at_tp2_pp2_by_hand() -> None:
    """Per GPU and layer at tp 2: q 64x64/2 = 2048, k and v 64x32/2 = 1024 each, o 2048, gate, up and down
    64x128/2 = 4096 each, two RMSNorm weights 64 each (replicated): 18,560. Stage 0: two layers + the embedding
    (1000 x 64 / 2 = 32,000) = 69,120; stage 1: two layers + the final norm (64) + the output layer (32,000) =
    69,184. Pure bf16 AdamW: 2 B weights, 2 B gradients, 2 x 2 B states per parameter."""
    s = TrainingSetup(precision=Precision.BF16, seq_len=16, gpus=4, parallel=ParallelSpec(tp=2, pp=2))
    for stage, params in ((0, 69_120), (1, 69_184)):
        st = stage_context(resolve(TINY, s), stage).st
        assert (st.counts.total, st.weights, st.gradients, st.optimizer_states) == (
            params, 2 * params, 2 * params, 4 * params)


def test_tiny_model_activations_by_hand() -> None:
    """Per token and layer on one tp rank (2 heads, 1 key/value head, MLP width 64), pure bf16, SDPA:
    two RMSNorms x (fp32 input 4h + normalised 2h) = 768, q/k/v input 2h = 128, q, k, v, out 2 x (32 + 16 + 16
    + 32) = 192, log-sum-exp 4 x 2 heads = 8, MLP input 2h = 128, gate, SiLU, up, product 4 x 2 x 64 = 512:
    1,736 bytes. The last stage also keeps the final norm's input and output and the output layer's input
    (4h + 2h + 2h = 512 per token) and, at the start of backward, 12 bytes per token and vocabulary entry of its
    V / t = 500 (vocab-parallel cross-entropy)."""
    s = TrainingSetup(precision=Precision.BF16, seq_len=16, gpus=4, parallel=ParallelSpec(tp=2, pp=2))
    first, last = stage_context(resolve(TINY, s), 0), stage_context(resolve(TINY, s), 1)
    assert [lc.saved for lc in first.layers] == [1736, 1736]
    assert (first.ac.head_saved, first.ac.loss.backward) == (0, 0)
    assert (last.ac.head_saved, last.ac.loss.backward) == (512, 12 * 500)
    assert _largest(TINY, s, "activations", 0) == 2 * 1736 * 16
    assert _largest(TINY, s, "logits", 1) == 12 * 500 * 16


def test_sequence_parallelism_divides_the_whole_layer() -> None:
    """TP + SP: everything / t (Korthikanti et al. 2022, Table 2): the one-GPU layer's bytes / 2."""
    one = TrainingSetup(precision=Precision.BF16, seq_len=16)
    sp = one.with_(gpus=2, parallel=ParallelSpec(tp=2, sequence_parallel=True))
    whole = stage_context(resolve(TINY, one.with_(parallel=ParallelSpec(schedule=PipelineSchedule.GPIPE))), 0)
    split = stage_context(resolve(TINY, sp), 0)
    assert [lc.saved for lc in split.layers] == [lc.saved / 2 for lc in whole.layers]


SETUPS = [
    TrainingSetup(),
    TrainingSetup(method=Method.LORA, checkpointing=Checkpointing.FULL, gpus=4, sharding=Sharding.ZERO3),
    TrainingSetup(method=Method.QLORA, grad_accum=2),
    TrainingSetup(precision=Precision.AMP_BF16, gpus=2, sharding=Sharding.ZERO2, offload_optimizer=True),
]


@pytest.mark.parametrize(("model", "s"), list(itertools.product(["llama-2-7b", "gpt2", "mixtral-8x7b",
                                                                  "deepseek-v2-lite"], SETUPS)))
def test_a_trivial_layout_is_the_data_parallel_estimate(model: str, s: TrainingSetup) -> None:
    """tp = pp = cp = ep = 1 through the layout's path gives the plain estimate, term by term."""
    m = get_model(model)
    plain = estimate(m, s, GPU)
    laid = estimate(m, s.with_(parallel=ParallelSpec(schedule=PipelineSchedule.GPIPE)), GPU)
    assert [t.bytes for t in laid.terms if t.name != "parallel_buffers"] == [t.bytes for t in plain.terms]
    assert (laid.device_bytes, laid.peak_phase, laid.peak_step) == (plain.device_bytes, plain.peak_phase,
                                                                   plain.peak_step)


def test_tensor_parallelism_divides_the_weights() -> None:
    m = get_model("llama-2-70b")
    s = TrainingSetup(gpus=8)
    one = estimate(m, s.with_(parallel=ParallelSpec(schedule=PipelineSchedule.GPIPE)), GPU)
    eight = estimate(m, s.with_(parallel=ParallelSpec(tp=8)), GPU)
    w1, w8 = (next(t.bytes for t in e.terms if t.name == "weights") for e in (one, eight))
    assert w8 == pytest.approx(w1 / 8, rel=0.002)  # norms are replicated: a little over 1/8


def test_activations_shrink_by_t_with_sequence_parallelism_and_less_without() -> None:
    m = get_model("llama-2-70b")
    s = TrainingSetup(gpus=8, checkpointing=Checkpointing.NONE, seq_len=2048)

    def act(**p: object) -> float:
        return _largest(m, s.with_(parallel=ParallelSpec.model_validate(p)), "activations")

    whole, tp, tp_sp = act(schedule="gpipe"), act(tp=8), act(tp=8, sequence_parallel=True)
    assert tp_sp == pytest.approx(whole / 8, rel=1e-6)
    assert whole / 8 < tp < whole / 2  # the norms' and linears' inputs stay whole without SP


def test_context_parallelism_splits_the_sequence() -> None:
    m = get_model("llama-2-7b")
    s = TrainingSetup(gpus=4, seq_len=8192)
    whole = _largest(m, s.with_(parallel=ParallelSpec(schedule=PipelineSchedule.GPIPE)), "activations")
    cp = _largest(m, s.with_(parallel=ParallelSpec(cp=4)), "activations")
    assert cp == pytest.approx(whole / 4, rel=1e-6)


def test_the_first_1f1b_stage_holds_p_micro_batches_of_its_layers() -> None:
    m = get_model("llama-2-70b")
    s = TrainingSetup(gpus=4, seq_len=1024, parallel=ParallelSpec(pp=4, micro_batches=8))
    e = estimate(m, s, GPU)
    for stage, in_flight in enumerate((4, 3, 2, 1)):
        c = stage_context(resolve(m, s), stage)
        per_micro_batch = c.kept_through(len(c.layers) - 1).at(1024, 1024**2)
        head = c.ac.head_saved * 1024  # the last stage's final norm and output layer inputs, once
        assert _largest(m, s, "activations", stage) == pytest.approx(in_flight * per_micro_batch + head, rel=1e-9)
    assert [r.stage for r in e.ranks] == [0, 1, 2, 3]
    most = max(e.ranks, key=lambda r: r.device_bytes)
    assert e.most_loaded_stage == most.stage
    assert (e.device_bytes, e.peak_allocated_bytes) == (most.device_bytes, most.peak_allocated_bytes)
    for r in e.ranks:  # each stage's bar: its allocated terms, the allocator's reserve and the CUDA context
        assert sum(t.bytes for t in r.device_terms) == r.device_bytes
        assert r.device_terms[: len(r.terms)] == tuple(
            type(t)(t.name, t.bytes, t.formula, t.source, t.detail, t.bytes / r.device_bytes) for t in r.terms)
    assert most.device_terms == e.device_terms


def test_a_stages_paged_optimizer_states_are_in_its_device_total() -> None:
    s = TrainingSetup(gpus=4, optimizer="paged-adamw-8bit", parallel=ParallelSpec(pp=4, micro_batches=8))
    e = estimate(get_model("llama-2-7b"), s, GPU)
    for r in e.ranks:
        assert r.paged_bytes > 0
        assert r.device_bytes == r.reserved_bytes + GPU.context_bytes + r.paged_bytes
        assert "paged optimizer states" in r.device_terms[-1].formula
    assert e.ranks[e.most_loaded_stage or 0].paged_bytes == e.paged_bytes


def test_expert_parallelism_divides_the_experts_weights() -> None:
    m = get_model("mixtral-8x7b")
    s = TrainingSetup(gpus=8)
    dense = estimate(m, s.with_(parallel=ParallelSpec(schedule="gpipe")), GPU)
    ep = estimate(m, s.with_(parallel=ParallelSpec(ep=8)), GPU)
    w = [next(t.bytes for t in e.terms if t.name == "weights") for e in (dense, ep)]
    experts = 32 * 8 * 3 * 4096 * 14336 * 2  # layers x experts x (gate, up, down) x h x I x 2 B
    assert w[0] - w[1] == pytest.approx(experts * 7 / 8, rel=1e-9)


def test_cross_check_with_megatron_theoretical_memory() -> None:
    """GPT-3 175B (h 12,288, 96 layers, 96 heads, MLP 49,152, vocabulary 51,200, 2,048 tokens) on 512 GPUs:
    tp 8, pp 8, dp 8, sequence parallelism, 64 micro-batches, 1F1B, the distributed optimizer (ZeRO-1).

    Megatron-LM ``megatron/training/theoretical_memory_usage.py`` under its own assumptions:
    * parameters of the most loaded shard ``(block / pp + embedding) / tp``, with no linear biases (the model is
      given none), no position table and the LayerNorms divided by t too (both corrected for below);
    * 6 + 12 / dp bytes per parameter (bf16 weights, fp32 gradients, fp32 master and Adam states sharded):
      we keep 16-bit gradients (bf16-mixed), 2 bytes less per parameter;
    * activations ``s b h (18 + 4 ffn / h) / t`` per layer and L layers' worth on the first stage (p
      micro-batches of L / p layers), for selective recomputation with sequence parallelism. We count the same
      tensors except: no dropout masks (-2h per token: fine-tuning runs without dropout), LayerNorm's fp32 mean
      and rstd (+16) and FlashAttention's fp32 log-sum-exp per head (+4 a), which the formula leaves out, and
      Hugging Face's unfused tanh GELU, which keeps four tensors of the MLP's width where Megatron's fused
      bias-GELU keeps its input (+6 ffn)."""
    h, layers, heads, ffn, vocab, seq = 12_288, 96, 96, 49_152, 51_200, 2_048
    t, p, dp = 8, 8, 8
    gpt3 = ModelSpec(id="gpt3-175b", vocab_size=vocab, hidden_size=h, num_layers=layers, num_heads=heads,
                     num_kv_heads=heads, intermediate_size=ffn, mlp=MlpKind.PLAIN, norm=NormKind.LAYERNORM,
                     positions=PositionKind.LEARNED, max_position=seq, tie_embeddings=True)
    s = TrainingSetup(seq_len=seq, gpus=t * p * dp, sharding=Sharding.ZERO1,
                      parallel=ParallelSpec(tp=t, pp=p, sequence_parallel=True, micro_batches=64))
    megatron_layer = 2 * h * (ffn + 2) + 4 * h * h
    megatron_shard = (megatron_layer * layers / p + h * vocab) / t  # its block's final norm: 2h / p / t, ignored
    # the formula also divides the LayerNorms by t, which tensor parallelism replicates; and it has no position
    # table, which the first stage holds whole
    ours_shard = megatron_shard + 4 * h * (layers / p) * (1 - 1 / t) + seq * h
    states = _terms(estimate(gpt3, s, GPU), 0)
    model_states = states["weights"] + states["gradients"] + states["optimizer_states"]
    assert model_states == pytest.approx(ours_shard * (6 + 12 / dp - 2), rel=1e-7)

    megatron_per_token = h * (18 + 4 * ffn / h)
    ours_per_token = megatron_per_token - 2 * h + 16 + 4 * heads + 6 * ffn
    layer = stage_context(resolve(gpt3, s), 0).layers[0]
    assert layer.saved * t == pytest.approx(ours_per_token, rel=1e-12)
