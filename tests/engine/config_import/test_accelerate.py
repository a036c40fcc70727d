"""accelerate's launch config (engine/config_import/accelerate.py cites accelerate 1.15.0.dev0)."""

from __future__ import annotations

import pytest

from engine.config_import.report import ConfigRefusedError


def test_deepspeed_section(imported):
    text = ("distributed_type: DEEPSPEED\nmixed_precision: bf16\nnum_processes: 8\ndeepspeed_config:\n  zero_stage: 2\n"
            "  offload_optimizer_device: cpu\n  offload_param_device: none\n  gradient_accumulation_steps: 4\n")
    s = imported({"a.yaml": text}).setup
    assert (s.sharding.value, s.offload_optimizer, s.offload_params, s.gpus, s.grad_accum, s.precision.value) == \
        ("zero2", True, False, 8, 4, "bf16-mixed")


def test_deepspeed_config_file_is_followed(imported):
    r = imported({"ds/zero3.json": '{"zero_optimization": {"stage": 3}}',
                  "a.yaml": "distributed_type: DEEPSPEED\ndeepspeed_config:\n  deepspeed_config_file: ds/zero3.json\n"
                            "num_processes: 2\n"}, given=["a.yaml"])
    assert r.setup.sharding.value == "zero3"


@pytest.mark.parametrize(("fsdp", "sharding", "offload"), [
    ("  fsdp_sharding_strategy: SHARD_GRAD_OP\n", "zero2", False),
    ("  fsdp_sharding_strategy: 1\n  fsdp_offload_params: true\n", "zero3", True),  # accelerate's older numbers
    ("  fsdp_reshard_after_forward: FULL_SHARD\n", "zero3", False),
    ("  fsdp_version: 2\n  fsdp_reshard_after_forward: false\n", "zero2", False),
    ("  fsdp_version: 2\n", "zero3", False),
    ("  fsdp_sharding_strategy: NO_SHARD\n", "none", False),
])
def test_fsdp_strategies(imported, fsdp: str, sharding: str, offload: bool):
    s = imported({"a.yaml": "distributed_type: FSDP\nnum_processes: 4\nfsdp_config:\n" + fsdp}).setup
    assert (s.sharding.value, s.offload_params, s.offload_optimizer) == (sharding, offload, offload)


def test_hybrid_sharding_is_reported(imported):
    r = imported({"a.yaml": "distributed_type: FSDP\nfsdp_config:\n  fsdp_sharding_strategy: HYBRID_SHARD\n"})
    assert r.setup.sharding.value == "zero3"
    assert "each machine" in str(next(i.why for i in r.report.ignored if "sharding_strategy" in i.key))


def test_single_process_and_default_mixed_precision(imported):
    r = imported({"a.yaml": "distributed_type: 'NO'\nnum_processes: 8\n"})
    assert r.setup.gpus == 1
    assert r.setup.precision.value == "fp32"  # mixed_precision defaults to no
    assert any(i.key == "num_processes" for i in r.report.ignored)


def test_ulysses_is_context_parallelism_with_the_all_to_all(imported):
    """``sp_size`` (DeepSpeed-Ulysses): cp over that many GPUs, exchanging q / k / v all-to-all."""
    s = imported({"a.yaml": "distributed_type: DEEPSPEED\nnum_processes: 4\nparallelism_config:\n"
                            "  parallelism_config_sp_size: 2\n"}).setup
    assert (s.parallel.cp, s.parallel.cp_comm_type.value) == (2, "a2a")


@pytest.mark.parametrize(("text", "says"), [
    ("distributed_type: XLA\n", "distributed_type: XLA is not a run"),
    ("distributed_type: MULTI_GPU\nmixed_precision: fp8\n", "mixed_precision: fp8 training"),
    ("distributed_type: DEEPSPEED\nparallelism_config:\n  parallelism_config_cp_size: 2\n"
     "  parallelism_config_sp_size: 2\n",
     r"parallelism_config.parallelism_config_sp_size: 2-way sequence \(Ulysses\) beside context parallelism"),
])
def test_refusals(imported, text: str, says: str):
    with pytest.raises(ConfigRefusedError, match=f"^a.yaml: {says}"):
        imported({"a.yaml": text})


def test_parallelism_config_sets_the_layout(imported):
    text = ("distributed_type: FSDP\nnum_processes: 8\nmixed_precision: bf16\nparallelism_config:\n"
            "  parallelism_config_tp_size: 2\n  parallelism_config_cp_size: 2\n")
    r = imported({"a.yaml": text})
    p = r.setup.parallel
    assert (p.tp, p.cp, r.setup.gpus, r.setup.dp) == (2, 2, 8, 2)
    assert r.report.read["parallelism_config.parallelism_config_tp_size"] == 2


def test_megatron_lm(imported):
    text = ("distributed_type: MEGATRON_LM\nnum_processes: 8\nmixed_precision: bf16\nmegatron_lm_config:\n"
            "  megatron_lm_tp_degree: 2\n  megatron_lm_pp_degree: 2\n  megatron_lm_num_micro_batches: 4\n"
            "  megatron_lm_sequence_parallelism: true\n  megatron_lm_use_distributed_optimizer: true\n")
    s = imported({"a.yaml": text}).setup
    assert (s.parallel.tp, s.parallel.pp, s.parallel.micro_batches, s.parallel.sequence_parallel) == (2, 2, 4, True)
    assert (s.sharding.value, s.precision.value, s.gpus) == ("zero1", "bf16-mixed", 8)
