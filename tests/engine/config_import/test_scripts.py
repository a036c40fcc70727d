"""A training script's own arguments (issue 27): no tool's format, read as the script that takes them reads them.

The real files (tests/fixtures/training_configs/firefly, open-instruct; SOURCES.md) are checked field by field
against the setup their scripts build (engine/config_import/scripts.py cites each script's code); the method keys
of scripts VRAM Lab does not know are read when they decide the method, and refused naming them when they do not.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from engine.catalog import get_model
from engine.config_import import AlignmentMethod, ConfigRefusedError, Format, ImportedConfig, import_configs

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "training_configs"
FIREFLY = FIXTURES / "firefly" / "train_args"
OPEN_INSTRUCT = FIXTURES / "open-instruct"


def _import(path: Path, model: str | None = None) -> ImportedConfig:
    return import_configs([path], model=get_model(model) if model else None, default_model=get_model("llama-2-7b"))


def _setup(r: ImportedConfig) -> dict[str, Any]:
    s = r.setup.model_dump(mode="json")
    flat = {k: v for k, v in s.items() if k not in ("lora", "quant", "parallel")}
    return flat | {f"lora.{k}": v for k, v in s["lora"].items()} | {f"quant.{k}": v for k, v in s["quant"].items()}


def _check(r: ImportedConfig, expected: dict[str, Any]) -> None:
    got = _setup(r)
    assert {k: got[k] for k in expected} == expected


# -- Firefly (github.com/yangjianxin1/Firefly train.py, component/argument.py @ e22b406e) ---------------------------

def test_firefly_qlora_without_train_mode_is_its_default_qlora() -> None:
    """The file has ``lora_rank`` but no ``train_mode``: CustomizedArguments.train_mode defaults to "qlora", and
    ``load_model`` loads NF4 with double quantization, the base in fp16 (``fp16: true``), LoRA on every linear layer
    but lm_head. Read as TRL it was a full fine-tune; refused last (``lora_rank`` left the method open)."""
    r = _import(FIREFLY / "sft" / "qlora" / "llama2-7b-sft-qlora.json")
    assert r.report.format is Format.SCRIPT_ARGS
    assert r.model.id == "llama-2-7b"  # NousResearch/Llama-2-7b-chat-hf
    _check(r, {"method": "qlora", "lora.rank": 64, "lora.alpha": 16.0, "lora.dropout": 0.05,
               "lora.targets": "all-linear", "quant.quant_type": "nf4", "quant.double_quant": True, "seq_len": 1024,
               "batch": 1, "grad_accum": 16, "optimizer": "paged-adamw", "checkpointing": "full",
               "precision": "fp16-mixed", "gpus": 1, "sharding": "none"})
    assert r.report.assumed["method"] == "qlora"  # the script's default, not the file's
    note = str(r.report.assumed["format"])
    assert note.startswith("not a tool's format: the arguments of Firefly train.py")
    assert "train_mode = qlora → method" in note
    assert "lora_rank → lora.rank" in note
    assert r.report.read["lora_rank"] == 64
    assert r.alignment is None


def test_firefly_lora_reads_train_mode() -> None:
    r = _import(FIREFLY / "sft" / "lora" / "qwen1.5-7b-sft-lora.json")
    assert r.model.id == "qwen1.5-7b"
    _check(r, {"method": "lora", "lora.rank": 64, "lora.targets": "all-linear", "precision": "fp16-mixed"})
    assert r.report.read["train_mode"] == "lora"
    assert "method" not in r.report.assumed


def test_firefly_dpo_is_named_by_task_type() -> None:
    r = _import(FIREFLY / "dpo" / "lora" / "qwen1.5-7b-dpo-lora.json")
    assert r.alignment is AlignmentMethod.DPO
    assert r.report.read["task_type"] == "dpo"
    _check(r, {"method": "lora", "seq_len": 1024})  # max_seq_length bounds prompt and answer together


def test_firefly_full_follows_its_deepspeed_file() -> None:
    """``deepspeed: ./train_args/ds_z3_config.json`` (ZeRO-3, both offloads); fp16 weights under DeepSpeed's fp16:
    fp32 master weights (fp16-mixed). The model (bigscience/bloom-1b1) is given explicitly."""
    r = _import(FIREFLY / "sft" / "full" / "bloom-1b1-sft-full.json", model="llama-2-7b")
    assert len(r.report.files) == 2
    _check(r, {"method": "full", "precision": "fp16-mixed", "sharding": "zero3", "offload_optimizer": True,
               "offload_params": True, "optimizer": "adamw", "seq_len": 1024, "checkpointing": "full"})


def test_firefly_needs_one_of_fp16_and_bf16(imported) -> None:
    data = json.loads((FIREFLY / "sft" / "lora" / "qwen1.5-7b-sft-lora.json").read_text())
    data["fp16"] = False
    with pytest.raises(ConfigRefusedError, match="exactly one of fp16 and bf16"):
        imported({"a.json": json.dumps(data)})
    data["bf16"] = True
    assert imported({"a.json": json.dumps(data)}).setup.precision.value == "bf16"


def test_a_firefly_train_mode_it_does_not_take_is_refused(imported) -> None:
    data = json.loads((FIREFLY / "sft" / "lora" / "qwen1.5-7b-sft-lora.json").read_text()) | {"train_mode": "dora"}
    with pytest.raises(ConfigRefusedError, match=r"^a.json: train_mode: train_mode: dora is not a method"):
        imported({"a.json": json.dumps(data)})


# -- open-instruct (github.com/allenai/open-instruct open_instruct/finetune.py @ e6c3044a) -------------------------

def test_open_instruct_qlora() -> None:
    """use_qlora + use_lora: NF4 with double quantization, the base loaded in bf16, LoRA 64 / 16 / 0.1 on the seven
    projections, bitsandbytes' paged AdamW (32-bit)."""
    r = _import(OPEN_INSTRUCT / "sft" / "tulu2_7b_qlora.yaml")
    assert r.report.format is Format.SCRIPT_ARGS
    _check(r, {"method": "qlora", "lora.rank": 64, "lora.alpha": 16.0, "lora.dropout": 0.1,
               "lora.targets": "all-linear", "quant.quant_type": "nf4", "quant.double_quant": True,
               "optimizer": "paged-adamw", "checkpointing": "full", "seq_len": 4096, "batch": 1, "grad_accum": 16,
               "precision": "bf16"})
    assert (r.report.read["use_lora"], r.report.read["use_qlora"]) == (True, True)
    assert r.report.assumed["optimizer"] == "paged-adamw"


def test_open_instruct_lora_keeps_its_checkpointing_default_off() -> None:
    """FlatArguments.gradient_checkpointing defaults to false (TRL's configs default to true)."""
    r = _import(OPEN_INSTRUCT / "sft" / "tulu2_7b_lora.yaml")
    _check(r, {"method": "lora", "checkpointing": "none", "optimizer": "adamw", "precision": "bf16"})
    assert r.report.assumed["checkpointing"] == "none"


def test_open_instruct_without_method_keys_is_its_full_fine_tune() -> None:
    r = _import(OPEN_INSTRUCT / "sft" / "tulu2_7b.yaml")
    assert r.report.format is Format.SCRIPT_ARGS  # told by with_tracking and max_seq_length
    _check(r, {"method": "full", "precision": "bf16", "checkpointing": "none", "seq_len": 4096})
    assert "use_lora = false, use_qlora = false → method" in str(r.report.assumed["format"])


def test_open_instruct_dpo_with_lora_off() -> None:
    r = _import(OPEN_INSTRUCT / "dpo" / "final_best_8b_dpo_config.yaml", model="llama-3.1-8b")
    assert r.alignment is AlignmentMethod.DPO
    _check(r, {"method": "full", "precision": "bf16", "checkpointing": "full", "seq_len": 2048, "grad_accum": 16})
    assert r.report.read["use_lora"] is False


def test_open_instruct_simpo_loss_is_simpo(imported) -> None:
    """open_instruct/dpo_utils.py DPOLossType: simpo needs no reference model (needs_reference_model), unlike
    dpo / dpo_norm / wpo."""
    text = (OPEN_INSTRUCT / "dpo" / "final_best_8b_dpo_config.yaml").read_text()
    r = imported({"a.yaml": text.replace("loss_type: dpo_norm", "loss_type: simpo")}, model=get_model("llama-3.1-8b"))
    assert r.alignment is AlignmentMethod.SIMPO
    assert r.report.read["loss_type"] == "simpo"


def test_open_instruct_4bit_base_without_adapters_is_refused(imported) -> None:
    text = (OPEN_INSTRUCT / "sft" / "tulu2_7b_qlora.yaml").read_text().replace("use_lora: true", "use_lora: false")
    with pytest.raises(ConfigRefusedError, match=r"use_lora: false, use_qlora: true ask for methods that exclude"):
        imported({"a.yaml": text})


def test_the_report_says_the_format_in_json() -> None:
    d = _import(OPEN_INSTRUCT / "sft" / "tulu2_7b_qlora.yaml").report.as_dict()
    assert d["format"] == "script-args"
    assert isinstance(d["assumed"]["format"], str)
    assert "open-instruct" in d["assumed"]["format"]


# -- LLaVA and Qwen (arguments usually given on a command line; the same names in a file) ---------------------------

LLAVA = {"model_name_or_path": "lmsys/vicuna-7b-v1.5", "version": "v1", "data_path": "x.json",
         "vision_tower": "openai/clip-vit-large-patch14-336", "mm_projector_type": "mlp2x_gelu", "bf16": True,
         "per_device_train_batch_size": 16, "gradient_accumulation_steps": 1, "model_max_length": 2048,
         "gradient_checkpointing": True, "lazy_preprocess": True, "output_dir": "o"}


def test_llava_lora_enable_with_4_bits_is_qlora(imported) -> None:
    """LLaVA's train.py: ``bits: 4`` loads NF4 with double quantization (its defaults), ``lora_enable`` adds LoRA
    on every linear layer of the language model; bf16 weights with ``bf16: true``."""
    r = imported({"a.json": json.dumps(LLAVA | {"lora_enable": True, "bits": 4, "lora_r": 128, "lora_alpha": 256})})
    assert r.report.format is Format.SCRIPT_ARGS
    assert "LLaVA llava/train/train.py" in str(r.report.assumed["format"])
    assert r.model.id == "llama-2-7b"  # Vicuna v1.5 7B: a Llama 2 7B fine-tune
    _check(r, {"method": "qlora", "lora.rank": 128, "lora.alpha": 256.0, "lora.targets": "all-linear",
               "quant.double_quant": True, "seq_len": 2048, "batch": 16, "precision": "bf16"})
    assert any(i.key == "vision_tower" and "vision tower" in str(i.why) for i in r.report.ignored)


@pytest.mark.parametrize(("extra", "says"), [
    ({"tune_mm_mlp_adapter": True}, "tune_mm_mlp_adapter: tune_mm_mlp_adapter: true trains only part"),
    ({"bits": 4}, "bits: bits: 4, lora_enable = false ask for methods that exclude each other"),
])
def test_llava_refusals(imported, extra: dict[str, Any], says: str) -> None:
    with pytest.raises(ConfigRefusedError, match=f"^a.json: {says}"):
        imported({"a.json": json.dumps(LLAVA | extra)})


def test_a_scripts_modules_to_save_beside_lora(imported) -> None:
    """PEFT's ``modules_to_save`` beside LoRA: the token table trained in full (a copy with its gradients and
    states)."""
    r = imported({"a.yaml": BASE + "use_lora: true\nmodules_to_save: [embed_tokens]\n"})
    assert r.setup.method.value == "lora"
    assert "modules_to_save" in r.report.read


def test_llava_lora_on_an_8_bit_base(imported) -> None:
    """LLaVA's ``bits: 8`` loads the base with bitsandbytes' LLM.int8 (``load_in_8bit``); with ``lora_enable`` it is
    LoRA on that base."""
    r = imported({"a.json": json.dumps(LLAVA | {"lora_enable": True, "bits": 8})})
    _check(r, {"method": "lora-8bit"})


def test_qwen_finetune_q_lora(imported) -> None:
    """Qwen2.5's examples/sft/finetune.py: ``q_lora`` with ``use_lora`` loads NF4 with double quantization; no dtype
    given to from_pretrained (fp32 weights, bf16 autocast); model_max_length the sequence."""
    data = {"model_name_or_path": "Qwen/Qwen1.5-7B-Chat", "data_path": "x.jsonl", "bf16": True, "output_dir": "o",
            "per_device_train_batch_size": 2, "model_max_length": 512, "use_lora": True, "q_lora": True,
            "gradient_checkpointing": True}
    r = imported({"a.json": json.dumps(data)})
    assert "Qwen finetune.py" in str(r.report.assumed["format"])
    _check(r, {"method": "qlora", "lora.rank": 64, "lora.alpha": 16.0, "lora.targets": "all-linear",
               "seq_len": 512, "precision": "amp-bf16"})
    with pytest.raises(ConfigRefusedError, match="use_lora: false, q_lora: true ask for methods that exclude"):
        imported({"a.json": json.dumps(data | {"use_lora": False})})  # q_lora quantizes only with use_lora


def test_fastchat_and_alpaca_arguments_are_not_named_qwen(imported) -> None:
    """FastChat's train_lora.py (always LoRA; q_lora: 4 bits) and stanford_alpaca's train.py (full) share
    model_max_length and data_path with Qwen's finetune.py, which grew from them, but not use_lora."""
    base = {"model_name_or_path": "meta-llama/Llama-2-7b-hf", "data_path": "x.json", "model_max_length": 2048,
            "per_device_train_batch_size": 4, "bf16": True, "output_dir": "o", "learning_rate": 2e-5}
    r = imported({"a.json": json.dumps(base | {"lora_r": 8, "q_lora": True})})
    assert r.setup.method.value == "qlora"
    assert "Qwen" not in str(r.report.assumed["format"])
    assert r.setup.seq_len == 2048
    alpaca = imported({"a.json": json.dumps(base)}).report
    assert alpaca.format is Format.TRL  # no key asks for a method: a TrainingArguments file
    assert "format" not in alpaca.assumed


# -- scripts VRAM Lab does not know ----------------------------------------------------------------------------

BASE = ("model_name_or_path: meta-llama/Llama-2-7b-hf\nper_device_train_batch_size: 2\nmax_seq_length: 2048\n"
        "output_dir: o\nlearning_rate: 1.0e-4\nlogging_steps: 10\n")


@pytest.mark.parametrize(("text", "method"), [
    ("use_lora: true\nlora_r: 8\n", "lora"),
    ("use_lora: true\nuse_qlora: true\n", "qlora"),
    ("train_mode: qlora\n", "qlora"),
    ("lora_enable: true\n", "lora"),
    ("finetuning_type: lora\nquantization_bit: 4\n", "qlora"),
    ("finetuning_type: full\n", "full"),
    ("use_lora: false\nlora_rank: 64\n", "full"),
])
def test_another_scripts_method_keys_are_read_when_they_decide(imported, text: str, method: str) -> None:
    r = imported({"a.yaml": BASE + text})
    assert r.report.format is Format.SCRIPT_ARGS
    assert r.setup.method.value == method
    assert "method" not in r.report.assumed
    assert str(r.report.assumed["format"]).startswith("not a tool's format: a training script's own arguments")


def test_another_scripts_lora_settings_and_defaults(imported) -> None:
    r = imported({"a.yaml": BASE + "use_lora: true\nlora_rank: 32\nlora_target_modules: [q_proj, k_proj, v_proj, "
                                   "o_proj]\n"})
    _check(r, {"lora.rank": 32, "lora.alpha": 8.0, "lora.dropout": 0.0, "lora.targets": "attention",
               "seq_len": 2048, "checkpointing": "none", "precision": "fp32"})
    assert r.report.assumed["lora.alpha"] == 8.0  # PEFT LoraConfig's default


@pytest.mark.parametrize(("text", "says"), [
    ("lora_rank: 64\n", "lora_rank: lora_rank: 64 leave the method to the script's own default"),
    ("train_mode: full\nuse_lora: true\n", "train_mode: train_mode: full, use_lora: true ask for methods that "
                                           "exclude"),
    ("finetuning_type: freeze\n", "finetuning_type: freeze fine-tuning in this form is not costed"),
])
def test_another_scripts_refusals_name_their_keys(imported, text: str, says: str) -> None:
    with pytest.raises(ConfigRefusedError, match=f"^a.yaml: {says}.*--method"):
        imported({"a.yaml": BASE + text})


def test_a_method_given_explicitly_reads_the_lora_numbers_of_an_open_method(imported) -> None:
    r = imported({"a.yaml": BASE + "lora_rank: 64\nlora_alpha: 16\n"}, explicit={"method": "qlora"})
    assert (r.setup.method.value, r.setup.lora.rank, r.setup.lora.alpha) == ("qlora", 64, 16.0)


def test_trl_use_peft_stays_trl(imported) -> None:
    r = imported({"a.yaml": BASE + "use_peft: true\nlora_r: 8\n"})
    assert r.report.format is Format.TRL
