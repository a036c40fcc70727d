"""Config import sets the stack, torch AdamW's implementation and FSDP's version (issue 25): the tool the file
belongs to, the optimizer name's implementation, else the Trainer's default of the transformers version the file
states (training_args.py ``default_optim``, calibration/stacks/NOTES.md section 2), else today's (assumed)."""

from __future__ import annotations

import pytest

from engine.config_import.names import trainer_default_impl
from engine.specs import OptimizerImpl

TRL = "model_name_or_path: gpt2\nlearning_rate: 2.0e-5\n"
AXOLOTL = "base_model: meta-llama/Llama-2-7b-hf\nsequence_len: 2048\n"
TORCHTUNE = ("model:\n  _component_: torchtune.models.llama2.llama2_7b\n"
             "optimizer:\n  _component_: torch.optim.AdamW\n  lr: 2e-5\n")


@pytest.mark.parametrize(("optim", "impl"), [("adamw_torch", "foreach"), ("adamw_torch_fused", "fused"),
                                             ("adamw_hf", "forloop")])
def test_the_optimizer_name_states_the_implementation(imported, optim: str, impl: str) -> None:
    r = imported({"a.yaml": TRL + f"optim: {optim}\n"})
    assert (r.setup.stack.value, r.setup.optimizer_impl) == ("hf-trainer", OptimizerImpl(impl))
    assert "optimizer_impl" not in r.report.assumed
    assert r.report.read["optim"] == optim


def test_without_optim_todays_trainer_default_is_assumed(imported) -> None:
    r = imported({"a.yaml": TRL})
    assert r.setup.optimizer_impl is OptimizerImpl.FUSED
    assert r.report.assumed["optimizer_impl"] == "fused"


@pytest.mark.parametrize(("version", "impl"), [("4.30.2", "forloop"), ("4.34.0", "foreach"), ("4.46.3", "foreach"),
                                               ("4.53.0", "foreach"), ("4.54.0", "fused"), ("5.24.0", "fused")])
def test_a_stated_transformers_version_gives_its_default(imported, version: str, impl: str) -> None:
    assert trainer_default_impl(version) is OptimizerImpl(impl)
    text = f'{{"model_name_or_path": "gpt2", "learning_rate": 2e-5, "transformers_version": "{version}"}}'
    r = imported({"a.json": text})
    assert r.setup.optimizer_impl is OptimizerImpl(impl)
    assert "optimizer_impl" not in r.report.assumed


def test_an_optimizer_that_is_not_torchs_adamw_has_no_implementation(imported) -> None:
    r = imported({"a.yaml": TRL + "optim: paged_adamw_8bit\n"})
    assert r.setup.optimizer_impl is None
    assert "optimizer_impl" not in r.report.assumed


def test_axolotl_runs_the_trainer(imported) -> None:
    r = imported({"a.yml": AXOLOTL + "optimizer: adamw_torch\n"})
    assert (r.setup.stack.value, r.setup.optimizer_impl) == ("hf-trainer", OptimizerImpl.FOREACH)


def test_torchtune_is_its_own_stack_and_fused_is_read(imported) -> None:
    fused = imported({"a.yaml": TORCHTUNE + "  fused: True\n"})
    assert (fused.setup.stack.value, fused.setup.optimizer_impl) == ("torchtune", OptimizerImpl.FUSED)
    bare = imported({"a.yaml": TORCHTUNE})
    assert bare.setup.optimizer_impl is OptimizerImpl.FOREACH  # a bare torch.optim.AdamW: torch's choice on CUDA
    assert "optimizer_impl" not in bare.report.assumed


def test_accelerates_fsdp_version(imported) -> None:
    two = ("distributed_type: FSDP\nnum_processes: 8\nmixed_precision: bf16\n"
           "fsdp_config:\n  fsdp_version: 2\n  fsdp_reshard_after_forward: true\n")
    r = imported({"t.yaml": TRL, "acc.yaml": two})
    assert (r.setup.fsdp_version, r.setup.sharding.value) == (2, "zero3")
    one = imported({"t.yaml": TRL, "acc.yaml": "distributed_type: FSDP\nnum_processes: 8\nfsdp_config:\n"
                                               "  fsdp_sharding_strategy: FULL_SHARD\n"})
    assert one.setup.fsdp_version == 1
    assert one.report.assumed["fsdp_version"] == 1
    deepspeed = imported({"t.yaml": TRL, "acc.yaml": "distributed_type: DEEPSPEED\nnum_processes: 8\n"
                                                     "deepspeed_config:\n  zero_stage: 3\n"})
    assert deepspeed.setup.fsdp_version is None
    assert "fsdp_version" not in deepspeed.report.assumed
