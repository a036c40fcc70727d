"""The roadmap to fitting, and the longest sequence / largest batch that fit."""

import itertools

import pytest

from engine.catalog import get_gpu, get_model
from engine.specs import Checkpointing, Loss, Method, Precision, Sharding, TrainingSetup
from engine.training import estimate
from engine.training.advisor import chunked_recompute, max_batch, max_seq_len, min_gpus, roadmap

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
