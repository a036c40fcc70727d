"""LLaMA-Factory's mapping table (engine/config_import/llama_factory.py cites LLaMA-Factory 0.9.6.dev0)."""

from __future__ import annotations

import pytest

from engine.config_import import AlignmentMethod
from engine.config_import.report import ConfigRefusedError

BASE = "model_name_or_path: meta-llama/Llama-2-7b-hf\nstage: sft\ndo_train: true\n"


def test_defaults(imported):
    r = imported({"a.yaml": BASE})
    s = r.setup
    assert s.method.value == "lora"  # finetuning_type defaults to lora
    assert (s.lora.rank, s.lora.alpha, s.lora.dropout, s.lora.targets.value) == (8, 16.0, 0.0, "all-linear")
    assert s.checkpointing.value == "full"  # on unless disable_gradient_checkpointing
    assert (s.seq_len, s.batch, s.grad_accum) == (2048, 8, 1)  # cutoff_len 2048; transformers' batch 8
    assert s.precision.value == "bf16"  # the model loads in bf16; no autocast asked for
    assert {"method", "checkpointing", "seq_len", "batch", "lora.alpha"} <= r.report.assumed.keys()


def test_alpha_defaults_to_twice_the_rank(imported):
    assert imported({"a.yaml": BASE + "lora_rank: 32\n"}).setup.lora.alpha == 64.0


@pytest.mark.parametrize(("text", "precision"), [
    ("finetuning_type: full\nbf16: true\n", "amp-bf16"),  # trainable parameters upcast to fp32
    ("finetuning_type: full\nbf16: true\npure_bf16: true\n", "bf16"),
    ("finetuning_type: full\nfp16: true\n", "amp-fp16"),
    ("finetuning_type: lora\nfp16: true\n", "fp16-mixed"),
    ("finetuning_type: full\nbf16: true\ndeepspeed: examples/deepspeed/ds_z3_config.json\n", "bf16-mixed"),
])
def test_precision(imported, text: str, precision: str):
    assert imported({"a.yaml": BASE + text}).setup.precision.value == precision


def test_checkpointing_can_be_disabled(imported):
    r = imported({"a.yaml": BASE + "disable_gradient_checkpointing: true\n"})
    assert r.setup.checkpointing.value == "none"
    assert r.report.read["disable_gradient_checkpointing"] is True


@pytest.mark.parametrize(("text", "says"), [
    ("finetuning_type: freeze\nfreeze_trainable_modules: mlp\n", "freeze_trainable_modules: freeze fine-tuning"),
    ("finetuning_type: oft\noft_rank: 8\n", "oft_rank: oft fine-tuning"),
    ("quantization_bit: 2\n", "quantization_bit: a base quantized to 2 bits"),
    ("quantization_bit: 4\nquantization_method: hqq\n", "quantization_method: hqq quantization"),
    ("use_galore: true\n", "use_galore: use_galore is costed on full fine-tuning only"),
    ("finetuning_type: full\nuse_galore: true\ngalore_layerwise: true\n", "use_galore: use_galore in its layer"),
    ("optim: lomo\n", "optim: lomo is not an optimizer"),
])
def test_refusals(imported, text: str, says: str):
    with pytest.raises(ConfigRefusedError, match=f"^a.yaml: {says}"):
        imported({"a.yaml": BASE + text})


@pytest.mark.parametrize(("text", "expected"), [
    ("finetuning_type: freeze\n", {"method": "freeze", "freeze_layers": 2}),
    ("finetuning_type: freeze\nfreeze_trainable_layers: -4\n", {"method": "freeze", "freeze_layers": -4}),
    ("finetuning_type: oft\noft_block_size: 64\n", {"method": "oft", "oft_block_size": 64}),
    ("quantization_bit: 8\n", {"method": "lora-8bit"}),
    ("use_dora: true\n", {"method": "lora", "dora": True}),
    ("finetuning_type: full\nuse_galore: true\n", {"optimizer": "galore-adamw", "optimizer_rank": 16}),
    ("finetuning_type: full\nuse_apollo: true\napollo_rank: 64\n", {"optimizer": "apollo-adamw",
                                                                      "optimizer_rank": 64}),
    ("finetuning_type: full\nuse_adam_mini: true\n", {"optimizer": "adam-mini"}),
    ("use_muon: true\n", {"optimizer": "muon"}),
    ("finetuning_type: full\nuse_badam: true\n", {"method": "badam", "optimizer": "adamw"}),
    ("optim: adamw_torch_4bit\n", {"optimizer": "adamw-4bit"}),
])
def test_issue_27s_options(imported, text: str, expected: dict[str, object]):
    s = imported({"a.yaml": BASE + text}).setup
    got = {k: getattr(s, k) for k in expected}
    assert {k: getattr(v, "value", v) for k, v in got.items()} == expected


@pytest.mark.parametrize("text", [
    "model_name_or_path: meta-llama/Llama-2-7b-hf\ntemplate: llama2\ninfer_backend: huggingface\n",
    "model_name_or_path: meta-llama/Llama-2-7b-hf\nstage: sft\ndo_predict: true\nfinetuning_type: lora\n",
    "model_name_or_path: meta-llama/Llama-2-7b-hf\ntemplate: llama2\nexport_dir: out\nfinetuning_type: lora\n",
])
def test_inference_and_export_configs_are_not_training(imported, text: str):
    with pytest.raises(ConfigRefusedError, match="not a training run"):
        imported({"a.yaml": text})


@pytest.mark.parametrize(("text", "method"), [
    ("stage: dpo\npref_loss: sigmoid\n", AlignmentMethod.DPO),
    ("stage: dpo\npref_loss: orpo\n", AlignmentMethod.ORPO),
    ("stage: dpo\npref_loss: simpo\n", AlignmentMethod.SIMPO),
    ("stage: kto\n", AlignmentMethod.KTO),
    ("stage: ppo\n", AlignmentMethod.PPO),
    ("stage: rm\n", AlignmentMethod.REWARD),
    ("stage: pt\n", None),
])
def test_stage_names_the_alignment_method(imported, text: str, method: AlignmentMethod | None):
    body = BASE.replace("stage: sft\n", "") + text
    assert imported({"a.yaml": body}).alignment is method


def test_lora_target_lists(imported):
    r = imported({"a.yaml": BASE + "lora_target: q_proj,v_proj\n"})
    assert r.setup.lora.targets.value == "qv"
    assert r.report.read["lora_target"] == "q_proj,v_proj"


def test_v1_layout(imported):
    text = ("model: meta-llama/Llama-2-7b-hf\nmodel_class: llm\npeft_config:\n  name: lora\n  r: 16\n  lora_alpha: 32\n"
            "  lora_dropout: 0.05\n  target_modules: all\nquant_config:\n  name: bnb\n  quantization_bit: 4\n"
            "dist_config:\n  name: fsdp2\n  reshard_after_forward: false\nmicro_batch_size: 2\ncutoff_len: 1024\n")
    s = imported({"a.yaml": text}).setup
    assert (s.method.value, s.lora.rank, s.lora.alpha, s.lora.dropout) == ("qlora", 16, 32.0, 0.05)
    assert (s.batch, s.seq_len, s.sharding.value, s.checkpointing.value) == (2, 1024, "zero2", "full")
    assert s.precision.value == "bf16"  # v1's bf16 defaults to true; its FSDP2 keeps the loaded bf16 weights


def test_megatron_layout(imported):
    """LLaMA-Factory's examples/megatron/qwen3_moe_full.yaml, abridged: pipeline 4 x expert 2, Megatron's
    distributed optimizer and bf16 with fp32 main parameters."""
    text = (BASE.replace("meta-llama/Llama-2-7b-hf", "Qwen/Qwen3-30B-A3B")
            + "finetuning_type: full\nper_device_train_batch_size: 1\ngradient_accumulation_steps: 8\n"
            "bf16: true\ntensor_model_parallel_size: 1\nsequence_parallel: false\npipeline_model_parallel_size: 4\n"
            "use_distributed_optimizer: true\nexpert_model_parallel_size: 2\nrecompute_granularity: selective\n")
    r = imported({"a.yaml": text})
    p = r.setup.parallel
    assert (p.tp, p.pp, p.ep, p.micro_batches) == (1, 4, 2, 8)
    # 8 GPUs: 4 stages of 2 data-parallel ranks, which ep 2 is carved from (engine.training.layout)
    assert (r.setup.sharding.value, r.setup.precision.value, r.setup.gpus) == ("zero1", "bf16-mixed", 8)
    assert r.report.assumed["parallel.micro_batches"] == 8
    assert r.setup.checkpointing.value == "selective"


def test_liger_kernel_fuses_the_loss(imported):
    assert imported({"a.yaml": BASE + "enable_liger_kernel: true\n"}).setup.loss.value == "fused-linear-ce"
