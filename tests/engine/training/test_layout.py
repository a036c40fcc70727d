"""engine.training.layout: the rules a layout must follow, stage splits, micro-batches in flight, the bubble."""

from __future__ import annotations

import pytest

from engine.catalog import get_model
from engine.specs import Attention, Method, ParallelSpec, PipelineSchedule, TrainingSetup
from engine.training.layout import LayoutError, layout


def _setup(gpus: int, **parallel: object) -> TrainingSetup:
    return TrainingSetup(gpus=gpus, parallel=ParallelSpec.model_validate(parallel))


def test_data_parallel_size_is_what_is_left() -> None:
    lay = layout(get_model("llama-2-70b"), _setup(64, tp=8, pp=2))
    assert (lay.dp, lay.tp, lay.pp, lay.cp, lay.zero_group) == (4, 8, 2, 1, 4)


def test_gpus_must_be_a_whole_multiple_of_the_model_parallel_size() -> None:
    with pytest.raises(ValueError, match=r"gpus \(12\) must be a whole multiple of tp x pp x cp = 8 x 1 x 1 = 8"):
        _setup(12, tp=8)


@pytest.mark.parametrize(
    ("model", "gpus", "parallel", "message"),
    [
        ("llama-2-7b", 3, {"tp": 3}, r"tp \(3\) must divide the attention heads \(32\)"),
        ("llama-2-70b", 16, {"tp": 16}, r"tp \(16\) must divide the key/value heads \(8\)"),
        ("llama-2-7b", 64, {"pp": 64}, r"pp \(64\) cannot exceed the layers \(32\)"),
        ("llama-2-7b", 2, {"ep": 2}, r"ep \(2\) needs a mixture-of-experts model"),
        ("mixtral-8x7b", 3, {"ep": 3}, r"ep \(3\) must divide the experts \(8\)"),
        ("mixtral-8x7b", 4, {"tp": 4, "ep": 2, "etp": 4}, r"etp x ep \(4 x 2\) must divide tp x cp x dp \(4\)"),
        ("llama-2-7b", 4, {"pp": 4, "pp_layers": (8, 8, 8, 7)}, r"--pp-layers adds up to 31 layers; the model has 32"),
        ("llama-2-7b", 4, {"pp": 2, "schedule": PipelineSchedule.INTERLEAVED, "virtual_stages": 2,
                           "micro_batches": 3}, r"micro-batches \(3\) to be a multiple of pp \(2\)"),
    ],
)
def test_an_impossible_layout_names_its_rule(model: str, gpus: int, parallel: dict[str, object],
                                             message: str) -> None:
    with pytest.raises(LayoutError, match=message):
        layout(get_model(model), _setup(gpus, **parallel))


def test_context_parallelism_needs_flash_and_an_even_split() -> None:
    m = get_model("llama-2-7b")
    with pytest.raises(LayoutError, match="ring attention on a flash kernel"):
        layout(m, _setup(2, cp=2).with_(attention=Attention.EAGER))
    with pytest.raises(LayoutError, match=r"divisible by 2 x cp \(8\); it is 4,?100|4100"):
        layout(m, _setup(4, cp=4).with_(seq_len=4100))


def test_qlora_is_refused_with_model_parallelism() -> None:
    with pytest.raises(LayoutError, match="QLoRA"):
        layout(get_model("llama-2-7b"), _setup(2, tp=2).with_(method=Method.QLORA))


def test_parallel_spec_rules() -> None:
    with pytest.raises(ValueError, match=r"sequence parallelism .* needs tp > 1"):
        ParallelSpec(sequence_parallel=True)
    with pytest.raises(ValueError, match="virtual stages need the interleaved schedule"):
        ParallelSpec(pp=2, virtual_stages=2)
    with pytest.raises(ValueError, match=r"pp_layers lists 3 stages but pp is 2"):
        ParallelSpec(pp=2, pp_layers=(1, 2, 3))


def test_even_and_uneven_splits() -> None:
    m = get_model("llama-2-70b")  # 80 layers
    assert layout(m, _setup(4, pp=4)).stages == ((0, 19), (20, 39), (40, 59), (60, 79))
    assert layout(m, _setup(4, pp=4, pp_layers=(19, 20, 20, 21))).stages == ((0, 18), (19, 38), (39, 58), (59, 79))
    m7 = get_model("llama-2-7b")  # 32 layers over 5 stages: the middle stages take the extra layers
    assert [b - a + 1 for a, b in layout(m7, _setup(5, pp=5)).stages] == [6, 7, 7, 6, 6]


def test_micro_batches_in_flight_per_schedule() -> None:
    m = get_model("llama-2-70b")
    one_f_one_b = layout(m, _setup(4, pp=4, micro_batches=8))
    assert [one_f_one_b.in_flight(i) for i in range(4)] == [4, 3, 2, 1]
    assert layout(m, _setup(4, pp=4, micro_batches=2)).in_flight(0) == 2
    gpipe = layout(m, _setup(4, pp=4, micro_batches=8, schedule=PipelineSchedule.GPIPE))
    assert [gpipe.in_flight(i) for i in range(4)] == [8, 8, 8, 8]
    inter = layout(m, _setup(4, pp=4, micro_batches=8, schedule=PipelineSchedule.INTERLEAVED, virtual_stages=2))
    # the first stage: p (1 + (p - 1) / (p v)) = 4 x (1 + 3/8) = 5.5 micro-batches' worth (Narayanan et al. 2021)
    assert inter.in_flight(0) == pytest.approx(4 * (1 + 3 / 8))
    assert inter.in_flight(3) == pytest.approx((0 + 4 + 1) / 2)


def test_bubble() -> None:
    m = get_model("llama-2-70b")
    assert layout(m, _setup(4, pp=4, micro_batches=8)).bubble == pytest.approx(3 / 8)
    inter = layout(m, _setup(4, pp=4, micro_batches=8, schedule=PipelineSchedule.INTERLEAVED, virtual_stages=2))
    assert inter.bubble == pytest.approx(3 / 16)


def test_expert_data_parallel_size() -> None:
    lay = layout(get_model("mixtral-8x7b"), _setup(16, tp=2, ep=4))
    assert (lay.dp, lay.etp, lay.expert_dp) == (8, 2, 2)
