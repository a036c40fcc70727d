"""The roadmap to fitting, and the longest sequence / largest batch that fit."""

import itertools

import pytest

from engine.catalog import get_gpu, get_model
from engine.specs import (
    Checkpointing,
    DatasetStorage,
    HostSetup,
    Loss,
    Method,
    ModelLoading,
    ParallelSpec,
    Precision,
    Sharding,
    TrainingSetup,
)
from engine.training import estimate
from engine.training.advisor import (
    Rung,
    chunked_recompute,
    logits_over_weights,
    max_batch,
    max_seq_len,
    min_gpus,
    roadmap,
)
from engine.training.host import host_of

M = get_model("llama-2-7b")
RTX4090 = get_gpu("rtx-4090")
H200 = get_gpu("h200")


def test_no_steps_when_it_already_fits():
    assert roadmap(M, TrainingSetup(method=Method.QLORA, seq_len=512), H200) == []


def test_steps_are_cumulative_and_end_fitting():
    steps = roadmap(M, TrainingSetup(precision=Precision.FP32), RTX4090)
    keys = [s.key for s in steps]
    assert keys[0] == "bf16"
    assert "checkpointing" in keys
    assert steps[-1].fits
    assert not any(s.fits for s in steps[:-1])
    for before, after in itertools.pairwise(steps):  # each step keeps the previous changes
        assert after.setup.precision == Precision.BF16
        assert after.estimate.device_bytes <= before.estimate.device_bytes * 1.0001


def test_seventy_b_needs_qlora_on_one_a100():
    steps = roadmap(get_model("llama-3.1-70b"), TrainingSetup(), get_gpu("a100-80gb"))
    assert steps[-1].key == "qlora"
    assert steps[-1].fits


def test_max_seq_len_is_the_boundary():
    s = TrainingSetup(method=Method.QLORA)
    n = max_seq_len(M, s, RTX4090)
    assert n is not None
    assert estimate(M, s.with_(seq_len=n), RTX4090).fits
    assert not estimate(M, s.with_(seq_len=n + 1), RTX4090).fits


def test_max_batch_and_min_gpus():
    s = TrainingSetup(method=Method.LORA, seq_len=1024)
    b = max_batch(M, s, H200)
    assert b is not None
    assert estimate(M, s.with_(batch=b), H200).fits
    assert not estimate(M, s.with_(batch=b + 1), H200).fits
    assert min_gpus(M, TrainingSetup(), RTX4090) is None  # plain data parallelism never shrinks a GPU's share
    z3 = TrainingSetup(sharding=Sharding.ZERO3, checkpointing=Checkpointing.FULL)
    n = min_gpus(M, z3, RTX4090)
    assert n is not None
    assert estimate(M, z3.with_(gpus=n), RTX4090).fits
    assert not estimate(M, z3.with_(gpus=n - 1), RTX4090).fits


LLAMA31 = get_model("llama-3.1-8b")


def test_long_context_rungs_follow_the_logits_then_the_activations():
    """Llama 3.1 8B, LoRA: at 32,768 tokens on an L40S the logits stay the biggest term after checkpointing, so
    the roadmap goes on with TRL's chunked loss, which takes all of them off the top (no vocabulary-sized tensor
    is whole) and fits: the fused linear cross-entropy is not needed; at 131,072 tokens on an H100 the
    activations are then the biggest and activation offload follows."""
    steps = roadmap(LLAMA31, TrainingSetup(method=Method.LORA, seq_len=32_768), get_gpu("l40s"))
    assert [s.key for s in steps] == ["checkpointing", "chunked-loss"]
    assert steps[-1].fits
    assert steps[-1].setup.loss is Loss.CHUNKED
    assert steps[-1].setup.loss_chunks is None  # TRL's own 256-token chunks
    # its price: the output layer's forward again, V h / (3 params) = 128,256 x 4,096 / (3 x 8,030,261,248)
    assert chunked_recompute(LLAMA31) == pytest.approx(128_256 * 4_096 / (3 * 8_030_261_248))
    assert round(chunked_recompute(LLAMA31), 2) == 0.02
    longer = roadmap(LLAMA31, TrainingSetup(method=Method.LORA, seq_len=131_072), get_gpu("h100-80gb"))
    assert [s.key for s in longer] == ["checkpointing", "chunked-loss", "activation-offload"]
    assert longer[-1].setup.activation_offload
    assert longer[-1].fits
    # what each rung costs is worded by the GUI, one text per ``Rung`` (tests/gui/widgets/test_roadmap_view.py)


def test_a_setup_already_on_a_chunked_loss_keeps_it():
    """TRL's chunked loss in 4 chunks is kept as it is; torchtune's chunked-output is not a rung, but a setup on
    it moves to TRL's chunks where the logits still lead."""
    s = TrainingSetup(method=Method.LORA, seq_len=32_768, checkpointing=Checkpointing.FULL)
    own = roadmap(LLAMA31, s.with_(loss=Loss.CHUNKED, loss_chunks=4), get_gpu("l40s"))
    assert "chunked-loss" not in [st.key for st in own]
    output = roadmap(LLAMA31, s.with_(loss=Loss.CHUNKED_OUTPUT), get_gpu("l40s"))
    assert output[0].key == "chunked-loss"
    assert (output[0].setup.loss, output[0].setup.loss_chunks) == (Loss.CHUNKED, None)


def test_no_long_context_rung_where_logits_do_not_lead():
    keys = [s.key for s in roadmap(M, TrainingSetup(precision=Precision.FP32), RTX4090)]
    assert not {"chunked-loss", "fused-linear-ce", "activation-offload"} & set(keys)


# -- host RAM (issue 20) --------------------------------------------------------------------------------------
LLAMA2_70B, H100 = get_model("llama-2-70b"), get_gpu("h100-80gb")
#: 70B QLoRA on one node of 8 H100s (the GPUs fit), a billion tokens as Python lists read by 4 workers per process
NODE_OF_8 = TrainingSetup(method=Method.QLORA, gpus=8, checkpointing=Checkpointing.FULL,
                          host=HostSetup(dataset_tokens=10**9, dataset_storage=DatasetStorage.PYTHON_LISTS,
                                         num_workers=4))


def _ram(s: TrainingSetup, gb: int) -> TrainingSetup:
    return s.with_(host={**s.host.model_dump(), "ram_bytes": gb * 10**9})


def test_no_host_rung_without_the_nodes_ram():
    """The GPU fits and no RAM is given: nothing to fit, whatever the host holds."""
    assert estimate(LLAMA2_70B, NODE_OF_8, H100).fits
    assert roadmap(LLAMA2_70B, NODE_OF_8, H100) == []


def test_host_rungs_follow_the_guide_until_the_node_fits():
    """512 GB: the lists (90 B a token in each of 8 processes, and copied by their workers) are the problem; one
    memory-mapped Arrow file, shared by the node, is enough. 256 GB: the 8 checkpoint copies must go too."""
    steps = roadmap(LLAMA2_70B, _ram(NODE_OF_8, 512), H100)
    assert [s.key for s in steps] == [Rung.ARROW]
    assert steps[-1].setup.host.dataset_storage is DatasetStorage.ARROW_MMAP
    assert steps[-1].fits
    assert steps[-1].estimate.host_bytes <= 512 * 10**9
    tighter = roadmap(LLAMA2_70B, _ram(NODE_OF_8, 256), H100)
    assert [s.key for s in tighter] == [Rung.ARROW, Rung.RANK0_LOADING]
    assert [s.fits for s in tighter] == [False, True]
    assert tighter[-1].setup.host.model_loading is ModelLoading.RANK0_BROADCAST
    for before, after in itertools.pairwise([estimate(LLAMA2_70B, NODE_OF_8, H100), *(s.estimate for s in tighter)]):
        assert after.host_bytes < before.host_bytes
    for step in tighter:
        assert step.estimate.host_bytes == host_of(step.estimate).per_node_bytes


def test_more_nodes_when_offloaded_states_fill_the_node():
    """ZeRO-3 with the optimizer offloaded keeps a whole fp32 copy and Adam's states of 70B on the host, 12 bytes
    a parameter, spread over the node's processes: checkpoint and data levers do nothing, more nodes do."""
    s = TrainingSetup(gpus=8, sharding=Sharding.ZERO3, checkpointing=Checkpointing.FULL, offload_optimizer=True,
                      host=HostSetup(model_loading=ModelLoading.META_SHARDED, ram_bytes=512 * 10**9))
    steps = roadmap(LLAMA2_70B, s, H100)
    assert [st.key for st in steps] == [Rung.NODES]
    nodes = steps[-1].setup.host.nodes
    assert steps[-1].fits
    assert 8 % nodes == 0
    fewer = s.with_(host={**s.host.model_dump(), "nodes": [n for n in (2, 4, 8) if n < nodes][-1]})
    assert estimate(LLAMA2_70B, fewer, H100).host_bytes > 512 * 10**9  # the fewest nodes that fit


def test_a_layout_skips_the_rungs_it_cannot_take():
    """Llama 3.1 70B on two A100s with tensor parallelism: QLoRA cannot be split by TP (engine.training.layout),
    so its rung is skipped, and more GPUs are counted in multiples of tp."""
    s = TrainingSetup(gpus=2, parallel=ParallelSpec(tp=2))
    steps = roadmap(get_model("llama-3.1-70b"), s, get_gpu("a100-80gb"))
    assert Rung.QLORA not in [st.key for st in steps]
    assert all(st.setup.gpus % 2 == 0 for st in steps)
    n = min_gpus(M, TrainingSetup(sharding=Sharding.ZERO3, gpus=2, parallel=ParallelSpec(tp=2)), RTX4090)
    assert n is not None
    assert n % 2 == 0


def test_context_parallel_lengths_are_multiples_of_two_cp():
    s = TrainingSetup(method=Method.LORA, checkpointing=Checkpointing.FULL, gpus=4, parallel=ParallelSpec(cp=4))
    n = max_seq_len(M, s, RTX4090)
    assert n is not None
    assert n % 8 == 0
    assert estimate(M, s.with_(seq_len=n), RTX4090).fits
    assert not estimate(M, s.with_(seq_len=n + 8), RTX4090).fits


def test_logits_over_weights_is_issue_19s_example():
    """Llama 3.1 8B, LoRA, 32,768 tokens, checkpointing: logits 50.4 GB beside 16.2 GB of weights (issue 19)."""
    e = estimate(LLAMA31, TrainingSetup(method=Method.LORA, seq_len=32_768, checkpointing=Checkpointing.FULL),
                 get_gpu("h100-80gb"))
    over = logits_over_weights(e)
    assert over is not None
    by_name = {t.name: t.bytes for t in e.terms}
    assert over == (by_name["logits"], by_name["weights"])
    assert (round(over[0] / 1e9, 1), round(over[1] / 1e9, 1)) == (50.4, 16.2)
    assert logits_over_weights(estimate(M, TrainingSetup(), RTX4090)) is None
