"""Axolotl's mapping table, row by row (engine/config_import/axolotl.py cites Axolotl 0.18.0 for each default)."""

from __future__ import annotations

import pytest

from engine.config_import import AlignmentMethod
from engine.config_import.report import ConfigRefusedError

BASE = "base_model: meta-llama/Llama-2-7b-hf\n"


def test_defaults_where_the_file_is_silent(imported):
    r = imported({"a.yml": BASE + "adapter: lora\n"})
    s = r.setup
    assert (s.seq_len, s.batch, s.grad_accum) == (512, 1, 1)  # sequence_len 512, micro_batch_size 1
    assert s.checkpointing.value == "none"
    assert s.optimizer.value == "adamw"  # adamw_torch_fused
    assert s.attention.value == "sdpa"
    assert (s.lora.rank, s.lora.alpha, s.lora.dropout) == (8, 8.0, 0.0)  # PEFT's r and alpha, Axolotl's dropout
    assert s.precision.value == "bf16"  # bf16: auto on a bf16 GPU
    assert {"seq_len", "batch", "grad_accum", "precision", "lora.rank"} <= r.report.assumed.keys()


@pytest.mark.parametrize(("text", "method"), [
    ("adapter: qlora\nload_in_4bit: true\n", "qlora"),
    ("adapter: lora\n", "lora"),
    ("", "full"),
])
def test_method(imported, text: str, method: str):
    assert imported({"a.yml": BASE + text}).setup.method.value == method


@pytest.mark.parametrize(("text", "expected"), [
    ("adapter: lora\nload_in_8bit: true\n", {"method": "lora-8bit"}),
    ("adapter: lora\npeft_use_dora: true\n", {"method": "lora", "dora": True}),
    ("adapter: lora\nlora_modules_to_save: [embed_tokens, lm_head]\n", {"modules_to_save": ("embed_tokens",
                                                                                            "lm_head")}),
    ("optimizer: adamw_torch_4bit\n", {"optimizer": "adamw-4bit"}),
])
def test_issue_27s_options(imported, text: str, expected: dict[str, object]):
    s = imported({"a.yml": BASE + text}).setup
    got = {k: getattr(s, k) for k in expected}
    assert {k: tuple(m.value for m in v) if isinstance(v, tuple) else getattr(v, "value", v)
            for k, v in got.items()} == expected


def test_four_bits_without_qlora_stay_lora_and_say_so(imported):
    r = imported({"a.yml": BASE + "adapter: lora\nload_in_4bit: true\n"})
    assert r.setup.method.value == "lora"
    assert "adapter: qlora" in str(next(i.why for i in r.report.ignored if i.key == "load_in_4bit"))


@pytest.mark.parametrize(("text", "says"), [
    ("load_in_8bit: true\n", "load_in_8bit: a base loaded in 8 bits is costed with LoRA on it"),
    ("adapter: lora\ngptq: true\n", "gptq: a GPTQ-quantized base"),
    ("adapter: llama-adapter\n", "adapter: the llama-adapter adapter"),
    ("adapter: qlora\nload_in_4bit: true\npeft_use_dora: true\n", "peft_use_dora: DoRA is costed on LoRA over"),
    ("fp16: true\n", "fp16: full fine-tuning of fp16 weights"),
])
def test_refusals_name_the_key(imported, text: str, says: str):
    with pytest.raises(ConfigRefusedError, match=f"^a.yml: {says}"):
        imported({"a.yml": BASE + text})


@pytest.mark.parametrize(("text", "precision"), [
    ("bf16: true\n", "bf16"),
    ("bf16: false\n", "fp32"),
    ("bfloat16: true\n", "bf16"),
    ("adapter: lora\nfp16: true\n", "fp16-mixed"),
    ("bf16: true\ndeepspeed: deepspeed_configs/zero2.json\n", "bf16-mixed"),
])
def test_precision(imported, text: str, precision: str):
    assert imported({"a.yml": BASE + text}).setup.precision.value == precision


def test_lora_targets(imported):
    both = imported({"a.yml": BASE + "adapter: lora\nlora_target_linear: true\nlora_target_modules: [lm_head]\n"})
    assert both.setup.lora.targets.value == "all-linear"
    assert "lm_head is not costed" in str(next(i.why for i in both.report.ignored if i.key == "lora_target_modules"))
    qv = imported({"b.yml": BASE + "adapter: lora\nlora_target_modules:\n  - q_proj\n  - v_proj\n"})
    assert qv.setup.lora.targets.value == "qv"
    assert qv.report.read["lora_target_modules"] == ["q_proj", "v_proj"]


@pytest.mark.parametrize("value", ["offload", "unsloth", "offload_disk"])
def test_offloaded_checkpointing_is_checkpointing_with_its_inputs_offloaded(imported, value: str):
    """``gradient_checkpointing: offload`` (``unsloth`` before Axolotl 0.8, its deprecated name, 5e21b1a9) wraps each
    layer in Unsloth's offloaded checkpointer: the layer's input is the one tensor kept, moved to the CPU
    (``utils/gradient_checkpointing/offload_cpu.py``); ``offload_disk`` moves it to disk. The closest setup is full
    checkpointing with activation offloading, both reported as assumed."""
    r = imported({"a.yml": BASE + f"gradient_checkpointing: {value}\n"})
    assert (r.setup.checkpointing.value, r.setup.activation_offload) == ("full", True)
    assert {"checkpointing", "activation_offload"} <= r.report.assumed.keys()
    assert "host RAM" in str(next(i.why for i in r.report.ignored if i.key == "gradient_checkpointing"))


def test_offloaded_checkpointing_is_not_undone_by_activation_offloading_false(imported):
    r = imported({"a.yml": BASE + "gradient_checkpointing: unsloth\nactivation_offloading: false\n"})
    assert (r.setup.checkpointing.value, r.setup.activation_offload) == ("full", True)


@pytest.mark.parametrize(("text", "sharding", "offload"), [
    ("fsdp:\n  - full_shard\n  - auto_wrap\nfsdp_config:\n  fsdp_offload_params: true\n", "zero3", True),
    ("fsdp_version: 2\nfsdp_config:\n  offload_params: false\n  reshard_after_forward: false\n", "zero2", False),
    ("fsdp_config:\n  fsdp_version: 2\n  fsdp_reshard_after_forward: true\n", "zero3", False),
    ("fsdp_config:\n  sharding_strategy: SHARD_GRAD_OP\n", "zero2", False),
])
def test_fsdp(imported, text: str, sharding: str, offload: bool):
    s = imported({"a.yml": BASE + text}).setup
    assert (s.sharding.value, s.offload_params, s.offload_optimizer) == (sharding, offload, offload)


def test_an_inline_deepspeed_config(imported):
    text = BASE + "deepspeed:\n  zero_optimization:\n    stage: 3\n    offload_param:\n      device: cpu\n"
    r = imported({"a.yml": text})
    assert (r.setup.sharding.value, r.setup.offload_params) == ("zero3", True)
    assert r.report.read["deepspeed.zero_optimization.stage"] == 3


def test_rl_methods(imported):
    assert imported({"a.yml": BASE + "rl: kto\n"}).alignment is AlignmentMethod.KTO
    unknown = imported({"b.yml": BASE + "rl: ebft\n"})
    assert unknown.alignment is None
    assert "ebft is not an alignment method" in str(next(i.why for i in unknown.report.ignored if i.key == "rl"))


def test_memory_relevant_keys_are_reported_with_a_reason(imported):
    r = imported({"a.yml": BASE + "liger_rms_norm: true\nsample_packing: true\nnum_epochs: 3\n"})
    why = {i.key: str(i.why) for i in r.report.ignored}
    assert "upper bound" in why["liger_rms_norm"]
    assert "maximum length" in why["sample_packing"]
    assert why["num_epochs"] == "not a setting the memory estimate uses"


def test_pure_fp16_is_costed_as_pure_bf16_and_reported(imported):
    r = imported({"a.yml": BASE + "bf16: false\nfp16: false\nfloat16: true\n"})
    assert r.setup.precision.value == "bf16"
    assert r.report.assumed["precision"] == "bf16"
    assert "as pure bf16 does" in str(next(i.why for i in r.report.ignored if i.key == "float16"))


def test_parallel_sizes_set_the_layout_and_the_smallest_world(imported):
    r = imported({"a.yml": BASE + "tensor_parallel_size: 2\ncontext_parallel_size: 4\n"})
    assert (r.setup.parallel.tp, r.setup.parallel.cp, r.setup.gpus) == (2, 4, 8)
    assert r.report.assumed["gpus"] == 8  # no GPU count stated: tp x cp
    assert r.report.read["tensor_parallel_size"] == 2
    plain = imported({"b.yml": BASE})
    assert not any(k.startswith("parallel.") for k in plain.report.assumed)


@pytest.mark.parametrize(("text", "loss", "offload", "assumed"), [
    ("liger_fused_linear_cross_entropy: true\n", "fused-linear-ce", False, {"activation_offload"}),
    ("cut_cross_entropy: true\n", "fused-linear-ce", False, {"loss", "activation_offload"}),
    ("activation_offloading: true\n", "standard", True, {"loss"}),
    ("activation_offloading: disk\n", "standard", True, {"loss", "activation_offload"}),
])
def test_long_context_levers(imported, text: str, loss: str, offload: bool, assumed: set[str]):
    r = imported({"a.yml": BASE + text})
    assert (r.setup.loss.value, r.setup.activation_offload) == (loss, offload)
    long = {k for k in r.report.assumed if k in ("loss", "loss_chunks", "activation_offload")}
    assert long == assumed
    assert not any(k.startswith("loss") or k == "activation_offload"
                   for k in imported({"b.yml": BASE}).report.assumed)
