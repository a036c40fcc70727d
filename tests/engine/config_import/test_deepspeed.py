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


# -- train_batch_size = micro-batch x accumulation x data-parallel GPUs (deepspeed/runtime/config.py) -------------

def test_train_batch_size_gives_the_accumulation(imported):
    """``_set_batch_related_parameters``: with the micro-batch set and the accumulation left out, DeepSpeed takes
    ``train_batch_size // micro // world_size``."""
    r = _ds(imported, train_batch_size=64, train_micro_batch_size_per_gpu=4, gradient_accumulation_steps="auto")
    assert (r.setup.batch, r.setup.grad_accum, r.setup.gpus) == (4, 16, 1)
    assert r.report.assumed["grad_accum"] == 16  # on one GPU, itself assumed
    assert r.report.read["train_batch_size"] == 64
    r = imported({"ds.json": json.dumps({"train_batch_size": 64, "train_micro_batch_size_per_gpu": 4})},
                 explicit={"gpus": 4})
    assert (r.setup.grad_accum, r.setup.gpus) == (4, 4)
    assert "grad_accum" not in r.report.assumed


def test_train_batch_size_with_a_trainer_file_gives_the_gpus(imported):
    """With the micro-batch and accumulation from the trainer (``auto`` in the DeepSpeed file), a stated
    ``train_batch_size`` fixes the data-parallel GPUs: 64 = 2 x 4 x 8."""
    lf = ("model_name_or_path: meta-llama/Llama-2-7b-hf\nstage: sft\ndo_train: true\nfinetuning_type: full\n"
          "per_device_train_batch_size: 2\ngradient_accumulation_steps: 4\ndeepspeed: ds.json\n")
    ds = json.dumps({"train_batch_size": 64, "train_micro_batch_size_per_gpu": "auto",
                     "gradient_accumulation_steps": "auto", "zero_optimization": {"stage": 2}})
    r = imported({"a.yaml": lf, "ds.json": ds}, given=["a.yaml"])
    assert (r.setup.batch, r.setup.grad_accum, r.setup.gpus) == (2, 4, 8)
    assert "gpus" not in r.report.assumed


def test_a_train_batch_size_that_cannot_hold_is_ignored_with_why(imported):
    r = _ds(imported, train_batch_size=60, train_micro_batch_size_per_gpu=4, gradient_accumulation_steps=8)
    assert (r.setup.batch, r.setup.grad_accum) == (4, 8)
    why = str(next(i.why for i in r.report.ignored if i.key == "train_batch_size"))
    assert "micro-batch x accumulation" in why
    assert "train_batch_size" not in r.report.read
    r = _ds(imported, train_batch_size=64, zero_optimization={"stage": 2})  # micro-batch open: it fixes nothing
    assert any(i.key == "train_batch_size" for i in r.report.ignored)
