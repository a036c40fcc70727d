"""Real example configs of the six tools (tests/fixtures/training_configs/SOURCES.md), each checked field by field
against the setup its authors meant: read from the file itself, with the tool's documented defaults where the
file is silent (the mapping tables of engine.config_import cite them)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from engine.catalog import get_model
from engine.config_import import AlignmentMethod, Format, ImportedConfig, import_configs
from tests.engine.config_import.fixtures import import_alone

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "training_configs"
DEFAULT = get_model("llama-2-7b")


def _import(*names: str) -> ImportedConfig:
    return import_configs([FIXTURES / n for n in names], default_model=DEFAULT)


def _setup(r: ImportedConfig) -> dict[str, Any]:
    s = r.setup.model_dump(mode="json")
    flat = {k: v for k, v in s.items() if k not in ("lora", "quant", "parallel")}
    flat |= {f"lora.{k}": v for k, v in s["lora"].items()} | {f"quant.{k}": v for k, v in s["quant"].items()}
    return flat


def _check(r: ImportedConfig, expected: dict[str, Any]) -> None:
    got = _setup(r)
    assert {k: got[k] for k in expected} == expected


def test_axolotl_qlora_1b() -> None:
    """adapter: qlora + load_in_4bit; seven projections named; bf16: auto (bf16 assumed); Axolotl's NF4 with
    double quantization (loaders/model.py)."""
    r = _import("axolotl/qlora-1b.yml")
    assert r.report.format is Format.AXOLOTL
    assert r.model.id == "llama-3.2-1b"  # NousResearch/Llama-3.2-1B, a mirror of meta-llama/Llama-3.2-1B
    _check(r, {"method": "qlora", "lora.rank": 32, "lora.alpha": 16.0, "lora.dropout": 0.05,
               "lora.targets": "all-linear", "seq_len": 2048, "batch": 2, "grad_accum": 4,
               "optimizer": "adamw-8bit", "checkpointing": "full", "attention": "flash", "precision": "bf16",
               "quant.quant_type": "nf4", "quant.double_quant": True, "gpus": 1, "sharding": "none"})
    assert r.report.assumed["model"] == "llama-3.2-1b"
    assert r.report.assumed["precision"] == "bf16"
    assert r.report.read["optimizer"] == "adamw_bnb_8bit"
    assert r.alignment is None


def test_axolotl_full_fine_tuning_with_the_older_flash_attention_flag() -> None:
    r = _import("axolotl/fft-8b.yaml")
    assert r.model.id == "llama-3-8b"
    _check(r, {"method": "full", "seq_len": 8192, "batch": 1, "grad_accum": 8, "optimizer": "paged-adamw-8bit",
               "checkpointing": "full", "attention": "flash", "precision": "bf16", "sharding": "none"})
    assert r.report.read["flash_attention"] is True
    assert "model" not in r.report.assumed  # meta-llama/Meta-Llama-3-8B is the catalog's own repository


def test_axolotl_lora_follows_the_deepspeed_file_it_names() -> None:
    """deepspeed: deepspeed_configs/zero3.json sits beside it; ZeRO-3 with bf16 keeps fp32 master weights; four Ray
    workers are four GPUs."""
    r = _import("axolotl/lora-1b-ray.yml")
    assert [Path(f).name for f in r.report.files] == ["lora-1b-ray.yml", "zero3.json"]
    _check(r, {"method": "lora", "lora.rank": 16, "lora.alpha": 32.0, "lora.dropout": 0.05,
               "lora.targets": "all-linear", "seq_len": 2048, "batch": 2, "grad_accum": 2,
               "optimizer": "adamw-8bit", "sharding": "zero3", "gpus": 4, "precision": "bf16-mixed",
               "offload_optimizer": False, "offload_params": False})
    assert r.report.read["zero3.json:zero_optimization.stage"] == 3
    assert r.report.read["ray_num_workers"] == 4


def test_axolotl_dpo_names_the_alignment_method() -> None:
    r = _import("axolotl/dpo.yaml")
    assert r.model.id == "qwen2.5-0.5b"
    assert r.alignment is AlignmentMethod.DPO
    _check(r, {"method": "full", "seq_len": 2048, "batch": 2, "grad_accum": 4, "optimizer": "adamw-8bit",
               "attention": "flash", "checkpointing": "full"})


def test_llama_factory_lora_sft_with_its_defaults() -> None:
    """LLaMA-Factory: lora_alpha defaults to 2 x rank, dropout 0, gradient checkpointing on unless disabled."""
    r = _import("llama-factory/examples/train_lora/llama3_lora_sft.yaml")
    assert r.report.format is Format.LLAMA_FACTORY
    assert r.model.id == "llama-3-8b"  # Meta-Llama-3-8B-Instruct: Llama 3 8B's architecture
    _check(r, {"method": "lora", "lora.rank": 8, "lora.alpha": 16.0, "lora.dropout": 0.0,
               "lora.targets": "all-linear", "seq_len": 2048, "batch": 1, "grad_accum": 8, "precision": "bf16",
               "checkpointing": "full", "optimizer": "adamw", "attention": "sdpa"})
    assert r.report.assumed["checkpointing"] == "full"
    assert r.report.assumed["lora.alpha"] == 16.0


def test_llama_factory_full_sft_follows_the_deepspeed_path_from_the_repository_root() -> None:
    r = _import("llama-factory/examples/train_full/llama3_full_sft.yaml")
    assert [Path(f).name for f in r.report.files] == ["llama3_full_sft.yaml", "ds_z3_config.json"]
    _check(r, {"method": "full", "precision": "bf16-mixed", "sharding": "zero3", "batch": 1, "grad_accum": 2,
               "seq_len": 2048, "checkpointing": "full"})


def test_llama_factory_dpo() -> None:
    r = _import("llama-factory/examples/train_lora/llama3_lora_dpo.yaml")
    assert r.alignment is AlignmentMethod.DPO
    _check(r, {"method": "lora", "lora.rank": 8, "grad_accum": 8, "seq_len": 2048})


def test_llama_factory_on_the_fly_4bit_is_qlora() -> None:
    r = _import("llama-factory/examples/train_qlora/llama3_lora_sft_otfq.yaml")
    _check(r, {"method": "qlora", "lora.rank": 8, "quant.quant_type": "nf4", "quant.double_quant": True,
               "precision": "bf16"})
    assert r.report.assumed["lora.rank"] == 8  # this version of the file leaves lora_rank at its default


def test_torchtune_qlora_single_device() -> None:
    r = _import("torchtune/8B_qlora_single_device.yaml")
    assert r.report.format is Format.TORCHTUNE
    assert r.model.id == "llama-3.1-8b"  # torchtune.models.llama3_1.qlora_llama3_1_8b
    _check(r, {"method": "qlora", "lora.rank": 8, "lora.alpha": 16.0, "lora.dropout": 0.0,
               "lora.targets": "all-linear", "batch": 2, "grad_accum": 16, "precision": "bf16",
               "optimizer": "adamw", "checkpointing": "full", "gpus": 1, "loss": "chunked-output", "loss_chunks": 8,
               "activation_offload": False})
    assert r.report.assumed["seq_len"] == 4096  # tokenizer.max_seq_len: null, so the sequence is left open
    assert r.report.assumed["loss_chunks"] == 8  # CEWithChunkedOutputLoss's num_output_chunks default


def test_torchtune_full_distributed_reads_its_launch_comment() -> None:
    """# tune run --nproc_per_node 4 full_finetune_distributed: FSDP2 over 4 GPUs, resharding after forward."""
    r = _import("torchtune/8B_full.yaml")
    _check(r, {"method": "full", "precision": "bf16", "batch": 2, "grad_accum": 1, "checkpointing": "full",
               "gpus": 4, "sharding": "zero3", "loss": "standard"})
    assert r.report.assumed["gpus"] == 4


def test_handbook_qlora_uses_trl_defaults() -> None:
    """use_peft + load_in_4bit; TRL's ModelConfig leaves double quantization off (use_bnb_nested_quant)."""
    r = _import("alignment-handbook/sft/config_qlora.yaml")
    assert r.report.format is Format.TRL
    assert r.model.id == "mistral-7b"
    _check(r, {"method": "qlora", "lora.rank": 16, "lora.alpha": 16.0, "lora.dropout": 0.05,
               "lora.targets": "all-linear", "precision": "bf16", "batch": 4, "grad_accum": 2, "seq_len": 2048,
               "checkpointing": "full", "attention": "flash", "quant.double_quant": False})


def test_handbook_full_sft_launched_with_its_deepspeed_accelerate_config() -> None:
    """The handbook's README: accelerate launch --config_file recipes/accelerate_configs/deepspeed_zero3.yaml
    scripts/run_sft.py recipes/zephyr-7b-beta/sft/config_full.yaml."""
    r = _import("alignment-handbook/sft/config_full.yaml", "alignment-handbook/accelerate_configs/deepspeed_zero3.yaml")
    assert r.report.format is Format.TRL  # the first file's
    _check(r, {"method": "full", "precision": "bf16-mixed", "sharding": "zero3", "offload_optimizer": True,
               "offload_params": True, "gpus": 1, "batch": 16, "grad_accum": 1, "seq_len": 2048,
               "checkpointing": "full", "attention": "flash"})
    assert r.report.read["deepspeed_zero3.yaml:deepspeed_config.zero_stage"] == 3


def test_trl_cli_example_is_all_defaults() -> None:
    """TRL 1.10: batch 8, bf16 autocast on a float32 model, gradient checkpointing on, 1,024 tokens."""
    r = _import("trl/example_config.yaml")
    assert r.model.id == "qwen2.5-0.5b"
    _check(r, {"method": "full", "batch": 8, "grad_accum": 1, "precision": "amp-bf16", "checkpointing": "full",
               "seq_len": 1024, "optimizer": "adamw"})
    assert {"batch", "precision", "checkpointing", "seq_len"} <= r.report.assumed.keys()


def test_accelerate_fsdp_template() -> None:
    r = _import("accelerate/fsdp.yaml")
    assert r.report.format is Format.ACCELERATE
    _check(r, {"sharding": "zero3", "gpus": 2, "offload_params": False, "checkpointing": "none",
               "precision": "amp-bf16"})
    assert r.report.assumed["model"] == "llama-2-7b"  # an accelerate file names no model


def test_deepspeed_template() -> None:
    r = _import("deepspeed/zero_stage2_config.json")
    assert r.report.format is Format.DEEPSPEED
    _check(r, {"sharding": "zero2", "precision": "fp16-mixed", "optimizer": "adamw", "grad_accum": 1,
               "offload_optimizer": False})


def test_training_arguments_json_dump() -> None:
    r = _import("transformers/training_args.json")
    assert r.report.format is Format.TRL
    _check(r, {"batch": 4, "grad_accum": 8, "checkpointing": "full", "optimizer": "adamw", "precision": "amp-bf16"})
    assert r.report.assumed["seq_len"] == 4096  # TrainingArguments has no sequence length


def test_axolotl_fsdp2_with_tensor_and_context_parallelism() -> None:
    """dp_shard_size 2 x context_parallel_size 2 x tensor_parallel_size 2: eight GPUs; the Cut Cross-Entropy plugin
    on its own turns it on (its cut_cross_entropy defaults to true); no gradient_checkpointing: none."""
    r = _import("axolotl/qwen3-8b-fsdp-tp-cp.yaml")
    assert r.model.id == "qwen3-8b"
    _check(r, {"method": "full", "seq_len": 8192, "batch": 1, "grad_accum": 1, "optimizer": "adamw",
               "attention": "flash", "checkpointing": "none", "precision": "amp-bf16", "gpus": 8,
               "sharding": "zero3", "offload_params": False, "offload_optimizer": False, "loss": "fused-linear-ce"})
    assert (r.setup.parallel.tp, r.setup.parallel.cp) == (2, 2)
    assert r.report.read["dp_shard_size"] == 2
    assert "gpus" not in r.report.assumed
    assert r.report.assumed["loss"] == "fused-linear-ce"  # Cut Cross-Entropy, costed as Liger's fused loss


def test_axolotl_expert_parallel_lora_assumes_its_four_gpus() -> None:
    """expert_parallel_size 4 ("world size 4"), no GPU count: the smallest world expert parallelism fits in."""
    r = _import("axolotl/qwen3_30ba3b_ep_lora_4gpu.yaml")
    assert r.model.id == "qwen3-30b-a3b"
    _check(r, {"method": "lora", "lora.rank": 32, "lora.alpha": 16.0, "lora.dropout": 0.0,
               "lora.targets": "attention", "seq_len": 2048, "batch": 1, "grad_accum": 1,
               "optimizer": "adamw-8bit-torchao", "checkpointing": "full", "attention": "flash", "precision": "bf16",
               "gpus": 4, "sharding": "zero3"})
    assert r.setup.parallel.ep == 4
    assert r.report.assumed["gpus"] == 4


def test_llama_factory_megatron_moe() -> None:
    """pp 4 x ep 2 with the distributed optimizer; its comment says 8 GPUs, the smallest world the layout fits."""
    r = _import("llama-factory/examples/megatron/qwen3_moe_full.yaml")
    _check(r, {"method": "full", "seq_len": 4096, "batch": 1, "grad_accum": 8, "checkpointing": "full",
               "precision": "bf16-mixed", "sharding": "zero1", "gpus": 8})
    p = r.setup.parallel
    assert (p.tp, p.pp, p.ep, p.micro_batches, p.sequence_parallel) == (1, 4, 2, 8, False)


def test_llama_factory_v1_fsdp2() -> None:
    """v1's defaults: bf16 on, activation checkpointing on; its FSDP2 plugin keeps the bf16 weights it loads."""
    r = _import("llama-factory/examples/v1/train_full/train_full_fsdp2.yaml")
    assert r.report.format is Format.LLAMA_FACTORY
    assert r.model.id == "qwen3-0.6b"
    _check(r, {"method": "full", "seq_len": 2048, "batch": 1, "grad_accum": 1, "checkpointing": "full",
               "precision": "bf16", "sharding": "zero3", "optimizer": "adamw"})


def test_accelerate_tp_with_hybrid_sharding() -> None:
    """Eight processes: tp 2 x (2 replicas x 2 shards); the replicas are reported (costed as sharded over all)."""
    r = _import("accelerate/tp_hsdp.yaml")
    _check(r, {"gpus": 8, "sharding": "zero3", "precision": "amp-bf16", "checkpointing": "none",
               "offload_params": False})
    assert r.setup.parallel.tp == 2
    assert "parallelism_config.parallelism_config_dp_replicate_size" in [i.key for i in r.report.ignored]


@pytest.mark.parametrize("path", sorted(p for p in FIXTURES.rglob("*") if p.suffix in (".yml", ".yaml", ".json",
                                                                                        ".toml")))
def test_every_fixture_imports_and_reports_each_key_once(path: Path) -> None:
    r = import_alone(path)
    ignored = [i.key for i in r.report.ignored]
    assert not set(r.report.read) & set(ignored)
    assert len(ignored) == len(set(ignored))


def test_torchtitan_llama3_8b_toml() -> None:
    """torchtitan's Llama 3 8B preset (train_configs/llama3_8b.toml): its llama3 8B (Llama 3.1's), batch 1 x 8,192,
    per-operator selective checkpointing, FSDP2 over run_train.sh's 8 GPUs (data_parallel_shard_degree -1), bf16
    compute over fp32 parameters (mixed_precision_param's default), its stack."""
    r = _import("torchtitan/llama3_8b.toml")
    assert r.report.format is Format.TORCHTITAN
    assert r.model.id == "llama-3.1-8b"
    _check(r, {"method": "full", "precision": "bf16-mixed", "batch": 1, "seq_len": 8192, "gpus": 8,
               "sharding": "zero3", "checkpointing": "op-selective", "stack": "torchtitan", "loss": "standard",
               "compile": False})
    assert r.report.assumed["gpus"] == 8  # NGPU's default: the file leaves the world to the launch

