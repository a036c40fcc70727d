"""Vectorised sweeps equal point-by-point estimates."""

import pytest

from engine.catalog import get_gpu, get_model
from engine.specs import Attention, Checkpointing, Method, ParallelSpec, PipelineSchedule, Sharding, TrainingSetup
from engine.training import estimate
from engine.training.sweep import sweep_gpus, sweep_seq_len

GPU = get_gpu("a100-80gb")
LENGTHS = [1, 128, 1000, 4096, 32_768, 131_072]


@pytest.mark.parametrize(
    "setup",
    [TrainingSetup(), TrainingSetup(method=Method.LORA, attention=Attention.EAGER),
     TrainingSetup(method=Method.QLORA, checkpointing=Checkpointing.FULL, gpus=4, sharding=Sharding.ZERO3),
     # a pipeline: the most loaded stage at each length (the first stage short, the last one, logits, long)
     TrainingSetup(gpus=8, parallel=ParallelSpec(tp=2, pp=4, micro_batches=8, sequence_parallel=True)),
     TrainingSetup(method=Method.LORA, gpus=4, parallel=ParallelSpec(pp=4, micro_batches=4,
                                                                      schedule=PipelineSchedule.GPIPE))],
)
@pytest.mark.parametrize("model", ["llama-2-7b", "mixtral-8x7b", "gpt2", "deepseek-v2-lite"])
def test_seq_len_sweep_equals_estimates(model, setup):
    m = get_model(model)
    sw = sweep_seq_len(m, setup, GPU, LENGTHS)
    for n, alloc, dev in zip(LENGTHS, sw.allocated, sw.device, strict=True):
        e = estimate(m, setup.with_(seq_len=n), GPU)
        assert alloc == pytest.approx(e.peak_allocated_bytes, abs=8)
        assert dev == pytest.approx(e.device_bytes, abs=16)


def test_gpu_sweep_never_grows_under_zero3():
    sw = sweep_gpus(get_model("llama-2-70b"), TrainingSetup(sharding=Sharding.ZERO3), GPU, [1, 2, 4, 8, 16, 64])
    assert all(a >= b for a, b in zip(sw.allocated, sw.allocated[1:], strict=False))


def test_out_of_range_lengths_are_refused():
    with pytest.raises(ValueError, match="seq_len"):
        sweep_seq_len(get_model("gpt2"), TrainingSetup(), GPU, [0, 10])


def test_gpu_sweep_leaves_out_the_counts_the_layout_cannot_take():
    """tp x pp = 4: only multiples of 4 GPUs; each kept count is its own estimate."""
    m, s = get_model("llama-2-7b"), TrainingSetup(gpus=4, sharding=Sharding.ZERO1,
                                                  parallel=ParallelSpec(tp=2, pp=2, micro_batches=4))
    sw = sweep_gpus(m, s, GPU, [1, 2, 3, 4, 6, 8, 12, 16])
    assert list(sw.x) == [4, 8, 12, 16]
    assert list(sw.device) == [estimate(m, s.with_(gpus=n), GPU).device_bytes for n in (4, 8, 12, 16)]
