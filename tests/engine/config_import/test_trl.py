"""TRL / transformers training arguments (engine/config_import/trl.py cites TRL 1.10.0.dev0 and transformers v5)."""

from __future__ import annotations

import json

import pytest

from engine.config_import import AlignmentMethod
from engine.config_import.report import ConfigRefusedError

BASE = "model_name_or_path: gpt2\nlearning_rate: 2.0e-5\n"


def test_trl_defaults(imported):
    r = imported({"a.yaml": BASE})
    s = r.setup
    assert (s.method.value, s.batch, s.grad_accum, s.seq_len) == ("full", 8, 1, 1024)
    assert s.checkpointing.value == "full"  # TRL's configs turn it on
    assert s.precision.value == "amp-bf16"  # bf16 unless fp16, on a model loaded in float32
    assert {"batch", "seq_len", "checkpointing", "precision"} <= r.report.assumed.keys()


def test_peft_defaults_and_qlora(imported):
    s = imported({"a.yaml": BASE + "use_peft: true\nload_in_4bit: true\ntorch_dtype: bfloat16\n"}).setup
    assert (s.method.value, s.lora.rank, s.lora.alpha, s.lora.dropout) == ("qlora", 16, 32.0, 0.05)
    assert s.lora.targets.value == "qv"  # PEFT's default for Llama-family models
    assert (s.quant.quant_type.value, s.quant.double_quant) == ("nf4", False)
    assert s.precision.value == "bf16"


@pytest.mark.parametrize(("text", "precision"), [
    ("bf16: true\ntorch_dtype: bfloat16\n", "bf16"),
    ("bf16: true\ndtype: float32\n", "amp-bf16"),
    ("fp16: true\n", "amp-fp16"),
    ("bf16: false\nfp16: false\n", "fp32"),
    ("model_init_kwargs:\n  torch_dtype: bfloat16\n", "bf16"),
    ("torch_dtype: auto\n", "bf16"),
])
def test_precision(imported, text: str, precision: str):
    assert imported({"a.yaml": BASE + text}).setup.precision.value == precision


def test_auto_dtype_is_reported(imported):
    r = imported({"a.yaml": BASE + "torch_dtype: auto\n"})
    assert "checkpoint's dtype" in str(next(i.why for i in r.report.ignored if i.key == "torch_dtype"))


@pytest.mark.parametrize(("text", "seq"), [
    ("max_length: 4096\n", 4096),
    ("max_seq_length: 2048\n", 2048),
    ("num_generations: 8\nmax_prompt_length: 512\nmax_completion_length: 256\n", 768),
    ("num_generations: 8\nmax_prompt_length: 512\n", 1024),  # completion: 512 by default
])
def test_sequence_length(imported, text: str, seq: int):
    assert imported({"a.yaml": BASE + text}).setup.seq_len == seq


def test_grpo_without_a_prompt_bound_leaves_the_sequence_open(imported):
    r = imported({"a.yaml": BASE + "num_generations: 8\nmax_completion_length: 256\n"})
    assert r.alignment is AlignmentMethod.GRPO
    assert r.report.assumed["seq_len"] == 4096
    assert "prompt" in str(next(i.why for i in r.report.ignored if i.key == "max_completion_length"))


@pytest.mark.parametrize(("name", "text", "method"), [
    ("a.yaml", "beta: 0.1\nmax_prompt_length: 512\n", AlignmentMethod.DPO),
    ("recipes/x/orpo/config.yaml", "beta: 0.1\nmax_prompt_length: 512\n", AlignmentMethod.ORPO),
    ("recipes/x/sft/config.yaml", "max_length: 2048\n", None),
    ("a.yaml", "num_ppo_epochs: 4\n", AlignmentMethod.PPO),
    ("a.yaml", "desirable_weight: 1.0\n", AlignmentMethod.KTO),
    ("a.yaml", "use_vllm: true\n", AlignmentMethod.GRPO),
])
def test_alignment_from_keys_then_path(imported, name: str, text: str, method: AlignmentMethod | None):
    assert imported({name: BASE + text}).alignment is method


def test_a_path_hint_is_assumed(imported):
    r = imported({"dpo/config_full.yaml": BASE + "learning_rate: 5.0e-7\n"})
    assert r.alignment is AlignmentMethod.DPO
    assert r.report.assumed["alignment"] == "dpo"


def test_training_arguments_json_dump_with_fsdp(imported):
    """transformers 5 writes fsdp=True and the strategy into fsdp_config (reshard_after_forward, cpu_offload)."""
    dump = {"output_dir": "out", "per_device_train_batch_size": 2, "gradient_accumulation_steps": 4,
            "bf16": False, "fp16": False, "optim": "adamw_torch", "gradient_checkpointing": False, "fsdp": True,
            "fsdp_config": {"reshard_after_forward": False, "cpu_offload": False, "min_num_params": 0},
            "deepspeed": None, "learning_rate": 5e-5}
    r = imported({"args.json": json.dumps(dump)})
    s = r.setup
    assert (s.batch, s.grad_accum, s.sharding.value, s.offload_params, s.checkpointing.value) == \
        (2, 4, "zero2", False, "none")
    assert r.report.assumed["seq_len"] == 4096  # plain TrainingArguments have no sequence length


def test_an_fsdp_config_alone_is_not_fsdp(imported):
    dump = {"output_dir": "out", "per_device_train_batch_size": 2, "fsdp": [], "fsdp_config": {"min_num_params": 0},
            "bf16": True, "learning_rate": 1e-5}
    assert imported({"args.json": json.dumps(dump)}).setup.sharding.value == "none"


@pytest.mark.parametrize(("text", "says"), [
    ("load_in_8bit: true\n", "load_in_8bit: a base loaded in 8 bits is costed with LoRA on it"),
    ("load_in_4bit: true\n", "load_in_4bit: a 4-bit base trains only through adapters"),
    ("load_in_4bit: true\nuse_peft: true\nuse_dora: true\n", "use_dora: DoRA is costed on LoRA over a 16-bit"),
    ("optim: lomo\n", "optim: lomo is not an optimizer"),
])
def test_refusals(imported, text: str, says: str):
    with pytest.raises(ConfigRefusedError, match=f"^a.yaml: {says}"):
        imported({"a.yaml": BASE + text})


@pytest.mark.parametrize(("text", "expected"), [
    ("load_in_8bit: true\nuse_peft: true\n", {"method": "lora-8bit"}),
    ("use_peft: true\nuse_dora: true\n", {"method": "lora", "dora": True}),  # lora_dropout 0.05
    ("optim: adamw_torch_4bit\n", {"optimizer": "adamw-4bit"}),
    ("optim: adamw_torch_8bit\n", {"optimizer": "adamw-8bit-torchao"}),
    ("optim: rmsprop\noptim_args: momentum=0.9\n", {"optimizer": "rmsprop-momentum"}),
    ("optim: galore_adamw\noptim_args: rank=64\noptim_target_modules: [attn, mlp]\n",
     {"optimizer": "galore-adamw", "optimizer_rank": 64}),
])
def test_issue_27s_options(imported, text: str, expected: dict[str, object]):
    s = imported({"a.yaml": BASE + text}).setup
    assert {k: getattr(getattr(s, k), "value", getattr(s, k)) for k in expected} == expected


@pytest.mark.parametrize(("text", "loss", "offload"), [
    ("use_liger_kernel: true\n", "fused-linear-ce", False),
    ("loss_type: chunked_nll\n", "chunked", False),  # TRL's own chunked loss
    ("activation_offloading: true\n", "standard", True),
    ("", "standard", False),  # the upper bound: the file does not say which TRL runs it
])
def test_loss_and_offload(imported, text: str, loss: str, offload: bool):
    s = imported({"a.yaml": BASE + text}).setup
    assert (s.loss.value, s.activation_offload) == (loss, offload)
