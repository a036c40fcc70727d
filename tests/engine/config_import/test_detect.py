"""Formats are told by their keys, whatever the file is called."""

from __future__ import annotations

import pytest

from engine.config_import.detect import detect
from engine.config_import.report import ConfigRefusedError, Format


@pytest.mark.parametrize(("data", "fmt"), [
    ({"base_model": "x", "sequence_len": 2048, "micro_batch_size": 1, "adapter": "lora"}, Format.AXOLOTL),
    ({"model_name_or_path": "x", "stage": "sft", "finetuning_type": "lora", "per_device_train_batch_size": 1,
      "bf16": True, "output_dir": "o", "learning_rate": 1e-4}, Format.LLAMA_FACTORY),
    ({"model": "Qwen/Qwen3-4B", "model_class": "llm", "peft_config": {"name": "lora"}, "micro_batch_size": 1,
      "cutoff_len": 2048}, Format.LLAMA_FACTORY),
    ({"model": {"_component_": "torchtune.models.llama3_1.lora_llama3_1_8b"}, "batch_size": 2}, Format.TORCHTUNE),
    ({"model_name_or_path": "x", "torch_dtype": "bfloat16", "per_device_train_batch_size": 4, "bf16": True},
     Format.TRL),
    ({"output_dir": "o", "per_device_train_batch_size": 8, "optim": "adamw_torch", "bf16": False,
      "gradient_checkpointing": False, "learning_rate": 5e-5}, Format.TRL),
    ({"zero_optimization": {"stage": 2}, "bf16": {"enabled": "auto"}}, Format.DEEPSPEED),
    ({"train_micro_batch_size_per_gpu": 4, "fp16": {"enabled": True}}, Format.DEEPSPEED),
    ({"compute_environment": "LOCAL_MACHINE", "distributed_type": "FSDP", "num_processes": 8}, Format.ACCELERATE),
    ({"distributed_type": "DEEPSPEED", "deepspeed_config": {"zero_stage": 3}}, Format.ACCELERATE),
])
def test_each_format_by_its_keys(data: dict[str, object], fmt: Format) -> None:
    assert detect(data, "any.txt") is fmt


def test_a_model_config_json_is_sent_to_config() -> None:
    with pytest.raises(ConfigRefusedError, match="--config"):
        detect({"architectures": ["LlamaForCausalLM"], "model_type": "llama", "hidden_size": 4096,
                "num_hidden_layers": 32, "vocab_size": 32000}, "config.json")


@pytest.mark.parametrize("data", [{}, {"name": "x", "items": [1, 2]}, {"optimizer": "adamw"}])
def test_unknown_files_are_refused(data: dict[str, object]) -> None:
    with pytest.raises(ConfigRefusedError, match="not a training config"):
        detect(data, "other.yaml")


def test_the_extension_does_not_decide(imported):
    r = imported({"run.txt": "distributed_type: MULTI_GPU\nnum_processes: 4\nmixed_precision: bf16\n"})
    assert r.report.format is Format.ACCELERATE
    assert r.setup.gpus == 4
    json_as_yaml = imported({"zero.yaml": '{"zero_optimization": {"stage": 1}}'})
    assert json_as_yaml.setup.sharding.value == "zero1"
