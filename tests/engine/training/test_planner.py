"""engine.training.planner: every layout it proposes fits, is ordered, and is exactly what estimate says."""

from __future__ import annotations

import pytest

from engine.catalog import get_gpu, get_model
from engine.commands.plan import flags
from engine.specs import Method, OffloadDevice, Sharding, Stack, TrainingSetup
from engine.training import estimate
from engine.training.planner import Cost, PlanCancelledError, costs, note, plan, search_base

H100 = get_gpu("h100-80gb")


@pytest.fixture(scope="module")
def rows_70b() -> list:  # type: ignore[type-arg]
    return plan(get_model("llama-3.1-70b"), TrainingSetup(), H100, 64)


def test_rows_fit_fewest_gpus_first_then_the_lowest_device_total(rows_70b: list) -> None:  # type: ignore[type-arg]
    assert rows_70b
    keys = [(r.setup.gpus, r.estimate.device_bytes) for r in rows_70b]
    assert keys == sorted(keys)
    for r in rows_70b:
        assert r.estimate.fits
        assert r.setup.gpus <= 64
        assert r.setup.gpus in (1, 2, 4) or r.setup.gpus % 8 == 0
        p = r.setup.parallel
        assert p.tp <= 8
        assert p.sequence_parallel == (p.tp > 1)
        assert r.setup.sharding in ((Sharding.NONE, Sharding.ZERO1) if p.pp > 1 else tuple(Sharding))


def test_every_row_is_the_estimate_of_its_own_setup(rows_70b: list) -> None:  # type: ignore[type-arg]
    m = get_model("llama-3.1-70b")
    for r in rows_70b:
        e = estimate(m, r.setup, H100)
        assert (e.peak_allocated_bytes, e.device_bytes) == (r.estimate.peak_allocated_bytes, r.estimate.device_bytes)


def test_each_row_is_the_fewest_replicas_that_fit(rows_70b: list) -> None:  # type: ignore[type-arg]
    m = get_model("llama-3.1-70b")
    for r in rows_70b:
        s = r.setup
        if s.sharding is Sharding.NONE or s.dp == 1:
            continue
        fewer = s.dp - 1
        while fewer >= 1 and (fewer * s.parallel.model_parallel) % 8 and fewer * s.parallel.model_parallel > 8:
            fewer -= 1
        if fewer >= 1:
            assert not estimate(m, s.with_(gpus=fewer * s.parallel.model_parallel), H100).fits


def test_nothing_fits_on_too_few_gpus() -> None:
    assert plan(get_model("llama-3.1-405b"), TrainingSetup(), H100, 8) == []


def test_a_lora_run_fits_on_one_gpu() -> None:
    rows = plan(get_model("llama-3.1-8b"), TrainingSetup(method=Method.LORA), H100, 8)
    assert rows[0].setup.gpus == 1


@pytest.mark.parametrize("stack", [Stack.TORCHTITAN, Stack.MEGATRON])
def test_a_layout_the_stack_cannot_run_is_left_out_not_raised(stack: Stack) -> None:
    """torchtitan has no ZeRO-1 and Megatron-LM no ZeRO-2 / ZeRO-3 (engine.training.stacks.check): the planner
    leaves those layouts out, where it raised StackError."""
    rows = plan(get_model("llama-3.1-8b"), TrainingSetup(stack=stack), H100, 16)
    assert rows
    refused = {Stack.TORCHTITAN: {Sharding.ZERO1}, Stack.MEGATRON: {Sharding.ZERO2, Sharding.ZERO3}}[stack]
    assert not {r.setup.sharding for r in rows} & refused
    assert all(r.estimate == estimate(get_model("llama-3.1-8b"), r.setup, H100) for r in rows)


def test_moe_layouts_include_expert_parallelism() -> None:
    rows = plan(get_model("mixtral-8x7b"), TrainingSetup(), H100, 32)
    assert any(r.setup.parallel.ep > 1 for r in rows)


def test_flags_reproduce_the_row() -> None:
    rows = plan(get_model("llama-3.1-70b"), TrainingSetup(), H100, 32)
    pp = next(r for r in rows if r.setup.parallel.pp > 1)
    assert flags(pp.setup)[:2] == ["--gpus", str(pp.setup.gpus)]
    assert "--sequence-parallel" in flags(pp.setup)


def test_costs_are_the_notes_parts(rows_70b: list) -> None:  # type: ignore[type-arg]
    """The English note and the ids the GUI words say the same: one part per kind of communication."""
    for r in rows_70b:
        lay, parts = r.estimate.layout, dict(costs(r.estimate))
        assert note(r.estimate) == r.note
        assert (Cost.TP_NODE in parts) == (lay is not None and lay.tp > 1)
        assert (Cost.PP_BUBBLE in parts) == (lay is not None and lay.pp > 1)
        if Cost.PP_BUBBLE in parts:
            assert lay is not None
            assert parts[Cost.PP_BUBBLE] == pytest.approx((lay.pp - 1) / lay.micro_batches)
            assert f"PP bubble {parts[Cost.PP_BUBBLE]:.0%}" in r.note
        assert (Cost.ZERO3 in parts) == (r.setup.sharding is Sharding.ZERO3)
    assert costs(plan(get_model("llama-2-7b"), TrainingSetup(method=Method.QLORA), H100, 1)[0].estimate) == (
        (Cost.DP_ONLY, 0.0),)


def test_progress_counts_every_layout_shape_and_cancel_stops_the_search() -> None:
    m, s = get_model("llama-2-7b"), TrainingSetup()
    seen: list[tuple[int, int]] = []
    rows = plan(m, s, H100, 8, progress=lambda done, total: seen.append((done, total)))
    total = seen[-1][1]
    assert seen == [(i, total) for i in range(1, total + 1)]
    assert rows == plan(m, s, H100, 8)
    asked: list[int] = []

    def cancelled() -> bool:
        asked.append(1)
        return len(asked) > 2  # after two shapes

    with pytest.raises(PlanCancelledError):
        plan(m, s, H100, 8, cancelled=cancelled)
    assert len(asked) == 3


def test_a_search_from_an_optimizer_on_nvme_keeps_it_on_the_zero3_layouts() -> None:
    """Fuzz (a bug): the search's base (no layout, no ZeRO) refused ZeRO-Infinity's NVMe optimizer, which DeepSpeed
    swaps under ZeRO-3 only (runtime/zero/stage3.py), so the planner raised. The base is derived, not
    re-validated: only ZeRO-3 layouts take it, each with the states on NVMe; a parameter offload's NVMe device goes
    with the parameter offload, which the search does not keep."""
    s = TrainingSetup(gpus=8, sharding=Sharding.ZERO3, offload_optimizer=True,
                      offload_optimizer_device=OffloadDevice.NVME)
    base = search_base(s)
    assert (base.gpus, base.sharding, base.parallel.model_parallel) == (1, Sharding.NONE, 1)
    rows = plan(get_model("llama-2-70b"), base, get_gpu("a100-80gb"), 8)
    assert rows
    assert {(r.setup.sharding, r.setup.offload_optimizer_device) for r in rows} == {
        (Sharding.ZERO3, OffloadDevice.NVME)}
    params = search_base(s.with_(offload_params=True, offload_params_device=OffloadDevice.NVME))
    assert (params.offload_params, params.offload_params_device) == (False, OffloadDevice.CPU)
    assert params.with_(sharding=Sharding.ZERO3, gpus=8).offload_optimizer_device is OffloadDevice.NVME
