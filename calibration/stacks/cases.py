"""The stack trace cases (torch-free): each a dict whose "stack" says which module traces it.

hf-trainer QLoRA: Llama-2-7B and Llama-3-8B-like (calibration/models.py `llama-2-7b`, `llama-3.1-8b`: Llama 3 8B's
shape, Llama 3.1's RoPE scaling, which changes no tensor), LoRA r16 / r64 on all linears or q,v, with PEFT's default
checkpointing ("peft": `prepare_model_for_kbit_training(use_gradient_checkpointing=True)`) or without ("none"),
512 to 4,096 tokens, batch 1 to 4, with the three optimizers QLoRA recipes name.
"""

from __future__ import annotations

from typing import Any

Case = dict[str, Any]


def qlora_case(model: str, *, rank: int = 16, targets: str = "all-linear", batch: int = 1, seq_len: int = 2048,
               checkpointing: str = "peft", optim: str = "paged_adamw_8bit", alpha: int | None = None) -> Case:
    """One QLoRA case. checkpointing: "peft" = prepare_model_for_kbit_training's default (on), "none" = off."""
    tag = f"{model}_qlora-r{rank}-{'qv' if targets == 'qv' else 'all'}_b{batch}_s{seq_len}_gc-{checkpointing}_{optim}"
    return {"id": f"hf-{tag}", "stack": "hf-trainer", "model": model, "method": "qlora", "lora_rank": rank,
            "lora_alpha": alpha or 2 * rank, "lora_dropout": 0.0, "lora_targets": targets, "batch": batch,
            "seq_len": seq_len, "checkpointing": checkpointing, "optim": optim, "precision": "bf16",
            "attention": "sdpa"}


def full_case(model: str, *, batch: int = 1, seq_len: int = 2048, optim: str = "adamw_torch",
              impl: str | None = None, checkpointing: str = "none") -> Case:
    """Full fine-tuning through the Trainer, model loaded in bf16 and bf16=True; optim "adamw_torch" is foreach (as
    on CUDA), "adamw_torch_fused" the fused kernel; impl "forloop" = AdamW(foreach=False)."""
    name = f"{optim}-forloop" if impl == "forloop" else optim
    return {"id": f"hf-{model}_full_b{batch}_s{seq_len}_gc-{checkpointing}_{name}", "stack": "hf-trainer",
            "model": model, "method": "full", "batch": batch, "seq_len": seq_len, "checkpointing": checkpointing,
            "optim": optim, "optimizer_impl": impl or ("fused" if optim.endswith("fused") else "foreach"),
            "precision": "bf16", "attention": "sdpa", "lora_rank": None, "lora_alpha": None, "lora_dropout": None,
            "lora_targets": None}


def lora_case(model: str, *, rank: int = 16, targets: str = "all-linear", batch: int = 1, seq_len: int = 2048,
              checkpointing: str = "trainer", optim: str = "adamw_torch_fused", dropout: float = 0.0) -> Case:
    """Plain LoRA through the Trainer on a model loaded in bf16 (PEFT's fp32 adapters): checkpointing "trainer" =
    `TrainingArguments(gradient_checkpointing=True)` (what the Trainer enables itself), "none" = off."""
    drop = f"-d{int(dropout * 100):02d}" if dropout else ""
    tag = (f"{model}_lora-r{rank}-{'qv' if targets == 'qv' else 'all'}{drop}_b{batch}_s{seq_len}_gc-{checkpointing}_"
           f"{optim}")
    return {"id": f"hf-{tag}", "stack": "hf-trainer", "model": model, "method": "lora", "lora_rank": rank,
            "lora_alpha": 2 * rank, "lora_dropout": dropout, "lora_targets": targets, "batch": batch,
            "seq_len": seq_len, "checkpointing": checkpointing, "optim": optim, "precision": "bf16",
            "attention": "sdpa"}


L2, L3 = "llama-2-7b", "llama-3.1-8b"
CASES: list[Case] = [
    qlora_case(L2),
    qlora_case(L2, checkpointing="none"),
    qlora_case(L2, rank=64),
    qlora_case(L2, targets="qv"),
    qlora_case(L2, batch=4, seq_len=512),
    qlora_case(L2, seq_len=4096),
    qlora_case(L2, optim="paged_adamw_32bit"),
    qlora_case(L2, optim="adamw_torch"),
    qlora_case(L2, targets="qv", seq_len=512, checkpointing="none"),
    qlora_case(L2, rank=64, batch=2, seq_len=1024, checkpointing="none", optim="adamw_torch"),
    qlora_case(L3),
    qlora_case(L3, seq_len=1024, checkpointing="none"),
    qlora_case(L3, rank=64, batch=2, optim="paged_adamw_32bit"),
    qlora_case(L3, targets="qv", seq_len=4096),
    qlora_case(L3, batch=4, seq_len=1024, optim="adamw_torch"),
    qlora_case(L3, targets="qv", batch=2, seq_len=512, checkpointing="none"),
    # full fine-tuning: foreach vs fused vs for-loop AdamW (item 2)
    full_case("llama-3.2-1b", seq_len=512),
    full_case("llama-3.2-1b", seq_len=512, batch=4),
    full_case("llama-3.2-1b", seq_len=512, optim="adamw_torch_fused"),
    full_case("llama-3.2-1b", seq_len=512, impl="forloop"),
    full_case("llama-3.2-1b", seq_len=2048, checkpointing="trainer"),
    full_case(L2, seq_len=512),
    full_case(L2, seq_len=512, batch=4),
    full_case(L2, seq_len=512, optim="adamw_torch_fused"),
    full_case(L3, seq_len=1024, checkpointing="trainer"),
    # plain LoRA through the real Trainer (issue 25: is the hf-trainer LoRA path the calibration loop's?)
    lora_case(L2),
    lora_case(L2, checkpointing="none"),
    lora_case(L3, seq_len=4096),
]


def titan_case(*, layers: int = 4, batch: int = 1, seq_len: int = 8192, checkpointing: str = "selective",
               loss: str = "chunked", world: int = 8, reshard: str = "default", float8: bool = False) -> Case:
    """torchtitan 0.3.0 llama3 8B with its first `layers` blocks, FSDP2 over `world` fake ranks (llama3_8b(): local
    batch 1, 8,192 tokens, SelectiveAC, ChunkedLossWrapper 8 chunks); checkpointing none / full / selective;
    float8: its Float8LinearConverter (rowwise recipe) on every block linear."""
    case_id = f"titan-llama3-8b-{layers}l_fsdp{world}_b{batch}_s{seq_len}_ac-{checkpointing}_loss-{loss}"
    if reshard != "default":
        case_id += f"_reshard-{reshard}"
    if float8:
        case_id += "_float8"
    return {"id": case_id, "stack": "torchtitan", "model": "llama-3.1-8b", "method": "full", "layers": layers,
            "world": world, "batch": batch, "seq_len": seq_len, "checkpointing": checkpointing, "loss": loss,
            "reshard": reshard, "precision": "bf16-mixed", "attention": "sdpa", "optim": "adamw_torch_fused",
            "float8": float8}


CASES += [
    titan_case(),
    titan_case(checkpointing="full"),
    titan_case(checkpointing="none"),
    titan_case(layers=2),
    titan_case(loss="standard"),
    titan_case(seq_len=2048, batch=2),
    # reshard_after_forward never: what the "default" policy means with pipeline parallelism (fsdp.py
    # get_fsdp_reshard_after_forward_policy: not pp_enabled), traced here without the pipeline
    titan_case(reshard="never"),
    titan_case(checkpointing="full", loss="standard"),
    # float8 (torchtitan's converter, rowwise recipe, eager): traced, not costed (NOTES section 8)
    titan_case(layers=2, checkpointing="none", float8=True),
    titan_case(float8=True),
]


def tune_case(*, layers: int = 4, batch: int = 2, seq_len: int = 2048, checkpointing: str = "full",
              rank: int = 8) -> Case:
    """torchtune 0.6.1 llama3_1/8B_qlora_single_device.yaml: LoRA r8 alpha 16 on q, v, output_proj and the MLP,
    bf16, batch 2, activation checkpointing, CEWithChunkedOutputLoss; Llama 3.1 8B's shape with `layers` blocks."""
    return {"id": f"tune-llama3-8b-{layers}l_qlora-r{rank}_b{batch}_s{seq_len}_gc-{checkpointing}",
            "stack": "torchtune", "model": "llama-3.1-8b", "method": "qlora", "layers": layers, "batch": batch,
            "seq_len": seq_len, "checkpointing": checkpointing, "lora_targets": ["q_proj", "v_proj", "output_proj"],
            "lora_mlp": True, "lora_rank": rank, "lora_alpha": 2 * rank, "lora_dropout": 0.0, "precision": "bf16",
            "attention": "sdpa", "optim": "adamw_torch_fused", "loss": "chunked-output"}


CASES += [
    tune_case(),
    tune_case(layers=2),
    tune_case(checkpointing="none"),
    tune_case(layers=2, checkpointing="none"),
    tune_case(batch=1, seq_len=8192),
]


def case_by_id(case_id: str) -> Case:
    for c in CASES:
        if c["id"] == case_id:
            return c
    raise KeyError(f"no stack case {case_id!r} (see --list)")
