"""Combining files, the precision rules, explicit settings over files, refusals that an explicit setting lifts."""

from __future__ import annotations

import pytest

from engine.config_import.report import ConfigRefusedError
from engine.config_import.resolve import precision_of
from engine.specs import LoraTargets, Method, Optimizer, Precision

AXOLOTL = "base_model: meta-llama/Llama-2-7b-hf\nsequence_len: 1024\nmicro_batch_size: 2\nbf16: true\n"


@pytest.mark.parametrize(("half", "weights", "backend", "method", "expected"), [
    ("bf16", "bf16", "deepspeed", Method.FULL, Precision.BF16_MIXED),  # ZeRO keeps fp32 master weights
    ("fp16", "fp16", "deepspeed", Method.LORA, Precision.FP16_MIXED),
    ("none", "fp32", "deepspeed", Method.FULL, Precision.FP32),
    ("bf16", "bf16", "fsdp", Method.FULL, Precision.AMP_BF16),  # accelerate upcasts trainable params to fp32
    ("bf16", "bf16", "fsdp", Method.LORA, Precision.BF16),  # only the adapters are trainable
    ("bf16", "fp32", "none", Method.FULL, Precision.AMP_BF16),
    ("fp16", "fp32", "none", Method.FULL, Precision.AMP_FP16),
    ("none", "fp32", "none", Method.FULL, Precision.FP32),
    ("bf16", "bf16", "none", Method.FULL, Precision.BF16),  # the Trainer on a bf16 model: 8 bytes per parameter
    ("none", "bf16", "none", Method.FULL, Precision.BF16),  # pure bf16 (torchtune, pure_bf16)
    ("fp16", "fp16", "none", Method.QLORA, Precision.FP16_MIXED),
    ("fp16", "fp16", "none", Method.FULL, None),  # the Trainer cannot unscale fp16 gradients
])
def test_precision_rules(half: str, weights: str, backend: str, method: Method, expected: Precision | None) -> None:
    assert precision_of(half, weights, backend, method) is expected


def test_explicit_settings_override_the_file(imported):
    r = imported({"a.yaml": AXOLOTL}, explicit={"seq_len": 4096, "lora.rank": 4, "method": Method.LORA})
    assert r.setup.seq_len == 4096
    assert r.setup.method is Method.LORA
    assert r.setup.lora.rank == 4
    assert "sequence_len" not in r.report.read
    assert [i.key for i in r.report.ignored if "set explicitly" in str(i.why)] == ["sequence_len"]
    assert r.setup.batch == 2  # not overridden


def test_explicit_precision_overrides_the_inputs_of_precision(imported):
    r = imported({"a.yaml": AXOLOTL}, explicit={"precision": Precision.FP32})
    assert r.setup.precision is Precision.FP32
    assert "bf16" not in r.report.read
    assert "precision" not in r.report.assumed


def test_a_paged_32bit_adamw_is_costed_as_paged_adamw(imported):
    """Axolotl's QLoRA examples train with ``optimizer: paged_adamw_32bit`` (bitsandbytes PagedAdamW32bit)."""
    r = imported({"a.yaml": AXOLOTL + "optimizer: paged_adamw_32bit\n"})
    assert r.setup.optimizer is Optimizer.PAGED_ADAMW
    assert r.report.read["optimizer"] == "paged_adamw_32bit"


def test_a_refusal_is_lifted_by_an_explicit_setting(imported):
    text = AXOLOTL + "optimizer: lomo\n"
    with pytest.raises(ConfigRefusedError) as info:
        imported({"a.yaml": text})
    assert str(info.value) == ("a.yaml: optimizer: lomo is not an optimizer VRAM Lab can cost; choose the "
                               "optimizer explicitly (--optimizer) to estimate it anyway")
    r = imported({"a.yaml": text}, explicit={"optimizer": "adamw"})
    assert r.setup.optimizer.value == "adamw"
    assert [i.key for i in r.report.ignored if "set explicitly" in str(i.why)] == ["optimizer"]


def test_the_first_file_wins_a_conflict_and_the_other_key_is_reported(imported):
    train = "model_name_or_path: gpt2\nper_device_train_batch_size: 4\ngradient_accumulation_steps: 2\nbf16: true\n"
    ds = '{"zero_optimization": {"stage": 2}, "gradient_accumulation_steps": 8}'
    r = imported({"train.yaml": train, "ds.json": ds})
    assert r.setup.grad_accum == 2
    assert r.setup.sharding.value == "zero2"
    why = {i.key: str(i.why) for i in r.report.ignored}
    assert why["ds.json:gradient_accumulation_steps"] == \
        "train.yaml already sets grad_accum (2), and the first file wins"


def test_a_stated_value_beats_another_files_default(imported):
    """The TRL file's default gradient checkpointing (on) gives way to accelerate's stated one (off)."""
    r = imported({"t.yaml": "model_name_or_path: gpt2\nper_device_train_batch_size: 1\n",
                  "a.yaml": "distributed_type: FSDP\nnum_processes: 2\nfsdp_config:\n"
                            "  fsdp_activation_checkpointing: false\n"})
    assert r.setup.checkpointing.value == "none"
    assert r.report.read["a.yaml:fsdp_config.fsdp_activation_checkpointing"] is False


def test_assumed_lists_open_fields_only_where_they_matter(imported):
    full = imported({"a.yaml": AXOLOTL})
    assert not any(k.startswith(("lora.", "quant.")) for k in full.report.assumed)
    assert full.report.assumed["optimizer"] == "adamw"  # Axolotl's default, adamw_torch_fused
    lora = imported({"a.yaml": AXOLOTL + "adapter: lora\nlora_r: 8\nlora_target_linear: true\n"})
    assert lora.setup.lora.targets is LoraTargets.ALL_LINEAR
    assert "lora.targets" not in lora.report.assumed
    assert lora.report.assumed["lora.dropout"] == 0.0
    assert not any(k.startswith("quant.") for k in lora.report.assumed)


def test_an_invalid_combination_is_one_line(imported):
    text = "distributed_type: FSDP\nnum_processes: 2\nfsdp_config:\n  fsdp_sharding_strategy: SHARD_GRAD_OP\n" \
           "  fsdp_offload_params: true\n"
    with pytest.raises(ConfigRefusedError, match=r"^a\.yaml: the imported setup is not valid: .*zero3"):
        imported({"a.yaml": text})


def test_torchao_low_bit_adamw_under_deepspeed_zero_is_refused(imported):
    """costed under ZeRO-3 as FSDP2 runs it; DeepSpeed hands the optimizer flat partitions instead."""
    ds = '{"zero_optimization": {"stage": 3}}'
    text = "model_name_or_path: gpt2\noptim: adamw_torch_4bit\nbf16: true\n"
    with pytest.raises(ConfigRefusedError, match=r"^train\.yaml: optim: adamw_torch_4bit under DeepSpeed ZeRO"):
        imported({"train.yaml": text, "ds.json": ds})
    fsdp = imported({"train.yaml": text + "fsdp: full_shard\n"})
    assert (fsdp.setup.optimizer.value, fsdp.setup.sharding.value) == ("adamw-4bit", "zero3")
