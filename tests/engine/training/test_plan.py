"""The training plan (``engine.training.plan``): one model and setup resolved once, data parallelism as a
one-stage layout, the whole model's host states beside each GPU's share."""

from __future__ import annotations

import sys
from collections.abc import Iterator

import pytest

from engine.catalog import get_gpu, get_model
from engine.specs import Method, ParallelSpec, Precision, Sharding, TrainingSetup
from engine.training import estimate, precision
from engine.training.context import model_states
from engine.training.plan import clear_cache, resolve
from engine.training.timeline import timeline

GPU = get_gpu("h100-80gb")


@pytest.fixture
def derivations(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[Precision]]:
    """Every call of ``dtype_plan`` from any engine module, after the plans are forgotten."""
    calls: list[Precision] = []
    original = precision.dtype_plan

    def counted(p: Precision) -> precision.DtypePlan:
        calls.append(p)
        return original(p)

    for module in list(sys.modules.values()):
        if module.__name__.startswith("engine") and getattr(module, "dtype_plan", None) is original:
            monkeypatch.setattr(module, "dtype_plan", counted)
    clear_cache()
    yield calls
    clear_cache()


@pytest.mark.parametrize(("model", "setup"), [
    ("llama-2-7b", TrainingSetup()),
    ("llama-2-70b", TrainingSetup(gpus=16, parallel=ParallelSpec(tp=8, pp=2, micro_batches=8))),
    ("qwen3-30b-a3b", TrainingSetup(method=Method.LORA, gpus=8, sharding=Sharding.ZERO3)),
])
def test_one_estimate_derives_the_dtypes_once(derivations: list[Precision], model: str,
                                              setup: TrainingSetup) -> None:
    e = estimate(get_model(model), setup, GPU)
    assert len(derivations) == 1
    assert e.peak_allocated_bytes > 0
    estimate(get_model(model), setup.with_(seq_len=2048), GPU)  # the plan does not depend on the length
    timeline(get_model(model), setup, GPU)
    assert len(derivations) == 1


def test_data_parallelism_is_a_one_stage_layout() -> None:
    m = get_model("llama-3.1-8b")
    plan = resolve(m, TrainingSetup(gpus=8, sharding=Sharding.ZERO2))
    lay = plan.layout
    assert not plan.layout_active
    assert (lay.dp, lay.tp, lay.pp, lay.cp, lay.ep, lay.zero_group, lay.stages) == (8, 1, 1, 1, 1, 8,
                                                                                   ((0, 31),))


def test_the_host_holds_the_whole_model_and_each_gpu_offloads_its_partition() -> None:
    """ZeRO-3 with both offloads over 8 GPUs of Llama 2 7B in bf16-mixed: the host takes the 2-byte weights, the
    12 bytes of master copy and AdamW states and the 4-byte fp32 gradients of every parameter (ZeRO-Offload,
    Ren et al. 2021, s4); each GPU's process offloads an eighth."""
    m = get_model("llama-2-7b")
    s = TrainingSetup(gpus=8, sharding=Sharding.ZERO3, offload_optimizer=True, offload_params=True)
    p = resolve(m, s).counts.total
    assert resolve(m, s).host_total == (2 + 12 + 4) * p
    st = model_states(m, s)
    assert (st.weights, st.optimizer_states) == (0, 0)
    assert st.host == -(-2 * p // 8) + -(-12 * p // 8) + -(-4 * p // 8)
