"""PYTORCH_CUDA_ALLOC_CONF read from training configs (engine/config_import/alloc_conf.py): as a key of an
environment section, or in a launch command in the file's comments; refused by name when PyTorch would refuse it."""

from __future__ import annotations

import pytest

from engine.config_import.report import ConfigRefusedError
from engine.specs import AllocConf

AXOLOTL = "base_model: meta-llama/Llama-2-7b-hf\nadapter: lora\n"
TORCHTUNE = """# To launch, run the following command:
#   PYTORCH_CUDA_ALLOC_CONF="expandable_segments:True,max_split_size_mb:512" tune run lora_finetune_single_device \\
#   --config llama2/7B_lora_single_device
model:
  _component_: torchtune.models.llama2.lora_llama2_7b
  lora_attn_modules: ['q_proj', 'v_proj']
  lora_rank: 8
  lora_alpha: 16
batch_size: 2
dtype: bf16
optimizer:
  _component_: torch.optim.AdamW
  lr: 3e-4
loss:
  _component_: torchtune.modules.loss.LinearCrossEntropyLoss
"""


def test_an_environment_section(imported):
    r = imported({"a.yml": AXOLOTL + "env:\n  PYTORCH_CUDA_ALLOC_CONF: expandable_segments:True\n  WANDB_MODE: off\n"})
    assert r.setup.alloc_conf == AllocConf(expandable_segments=True)
    assert r.report.read["env.PYTORCH_CUDA_ALLOC_CONF"] == "expandable_segments:True"
    assert [i.key for i in r.report.ignored if i.key.startswith("env.")] == ["env.WANDB_MODE"]


def test_a_launch_command_in_the_comments(imported):
    r = imported({"7B_lora.yaml": TORCHTUNE})
    assert r.setup.alloc_conf == AllocConf(expandable_segments=True, max_split_size_mb=512)
    assert r.report.read["PYTORCH_CUDA_ALLOC_CONF"] == "expandable_segments:True,max_split_size_mb:512"


def test_silent_files_leave_pytorchs_defaults_unlisted(imported):
    r = imported({"a.yml": AXOLOTL})
    assert r.setup.alloc_conf == AllocConf()
    assert "alloc_conf" not in r.report.assumed


def test_a_bad_value_is_refused_by_name_unless_given(imported):
    files = {"a.yml": AXOLOTL + "PYTORCH_CUDA_ALLOC_CONF: garbage_collection_threshold:2\n"}
    with pytest.raises(ConfigRefusedError) as err:
        imported(files)
    assert str(err.value) == ("a.yml: PYTORCH_CUDA_ALLOC_CONF: garbage_collection_threshold: 2 is outside (0.0, 1.0); "
                              "choose the alloc_conf explicitly (--alloc-conf) to estimate it anyway")
    r = imported(files, explicit={"alloc_conf": AllocConf(max_split_size_mb=128)})
    assert r.setup.alloc_conf.max_split_size_mb == 128
