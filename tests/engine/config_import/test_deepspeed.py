"""DeepSpeed's JSON (engine/config_import/deepspeed.py cites DeepSpeed's config reference)."""

from __future__ import annotations

import json

import pytest

from engine.config_import.report import ConfigRefusedError


def _ds(imported, **sections):
    return imported({"ds.json": json.dumps(sections)})


@pytest.mark.parametrize(("stage", "sharding"), [(0, "none"), (1, "zero1"), (2, "zero2"), (3, "zero3")])
def test_stages(imported, stage: int, sharding: str):
    assert _ds(imported, zero_optimization={"stage": stage}).setup.sharding.value == sharding


def test_offload_devices(imported):
    zero = {"stage": 3, "offload_optimizer": {"device": "nvme"}, "offload_param": {"device": "cpu"}}
    s = _ds(imported, zero_optimization=zero).setup
    assert (s.offload_optimizer, s.offload_params) == (True, True)
    none = {"stage": 2, "offload_optimizer": {"device": "none"}}
    assert _ds(imported, zero_optimization=none).setup.offload_optimizer is False
    assert _ds(imported, zero_optimization={"stage": 2, "cpu_offload": True}).setup.offload_optimizer is True


@pytest.mark.parametrize(("sections", "precision", "assumed"), [
    ({"bf16": {"enabled": True}}, "bf16-mixed", False),
    ({"bfloat16": {"enabled": True}}, "bf16-mixed", False),
    ({"fp16": {"enabled": True}}, "fp16-mixed", False),
    ({"bf16": {"enabled": False}, "fp16": {"enabled": False}}, "fp32", True),
    ({"bf16": {"enabled": "auto"}, "fp16": {"enabled": False}}, "bf16-mixed", True),  # the trainer's: open
])
def test_sixteen_bit_modes(imported, sections: dict[str, object], precision: str, assumed: bool):
    r = _ds(imported, zero_optimization={"stage": 2}, **sections)
    assert r.setup.precision.value == precision
    assert ("precision" in r.report.assumed) is assumed


def test_numbers_and_auto(imported):
    r = _ds(imported, train_micro_batch_size_per_gpu=4, gradient_accumulation_steps=2, train_batch_size=64)
    assert (r.setup.batch, r.setup.grad_accum, r.setup.gpus) == (4, 2, 8)  # 64 = 4 x 2 x 8
    auto = _ds(imported, train_micro_batch_size_per_gpu="auto", gradient_accumulation_steps="auto")
    assert {"batch", "grad_accum"} <= auto.report.assumed.keys()
    assert auto.report.assumed["sharding"] == "none"  # no zero_optimization: DeepSpeed's stage 0


@pytest.mark.parametrize(("sections", "says"), [
    ({"zero_optimization": {"stage": 1}, "optimizer": {"type": "OneBitLamb"}},
     "optimizer.type: OneBitLamb is not an optimizer"),
    ({"zero_optimization": {"stage": 4}}, "zero_optimization.stage: 4 is not a ZeRO stage"),
    ({"train_micro_batch_size_per_gpu": 0}, "train_micro_batch_size_per_gpu: 0 is not a whole number"),
])
def test_refusals(imported, sections: dict[str, object], says: str):
    with pytest.raises(ConfigRefusedError, match=f"^ds.json: {says}"):
        _ds(imported, **sections)


def test_activation_checkpointing_section_is_explained(imported):
    r = _ds(imported, zero_optimization={"stage": 3}, activation_checkpointing={"partition_activations": True})
    assert "Megatron" in str(next(i.why for i in r.report.ignored if i.key == "activation_checkpointing"))


def test_autotp_is_tensor_parallelism(imported):
    r = _ds(imported, zero_optimization={"stage": 2}, tensor_parallel={"autotp_size": 2})
    assert (r.setup.parallel.tp, r.setup.gpus, r.setup.sharding.value) == (2, 2, "zero2")
