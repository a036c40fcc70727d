"""The calibration cases: the H200 reference setups, then one-factor-at-a-time sweeps on several models.

Each sweep starts from a base (full fine-tuning, bf16, batch 1, SDPA, no checkpointing, at a per-model sequence
length) and changes one factor, sometimes two, so that every factor is seen on more than one architecture
without running the full product. LoRA presets: "r16" = r 16, alpha 32, dropout 0, all-linear; "r8" = r 8,
alpha 16, dropout 0, q and v only; "r16-d05" = "r16" with dropout 0.05.
"""

from __future__ import annotations

from typing import Any

LORA_PRESETS: dict[str | None, tuple[Any, Any, Any, Any]] = {
    None: (None, None, None, None),
    "r16": (16, 32, 0.0, "all-linear"),
    "r8": (8, 16, 0.0, "qv"),
    "r16-d05": (16, 32, 0.05, "all-linear"),
}


def case(model: str, method: str = "full", *, precision: str = "bf16", batch: int = 1, seq_len: int = 2048,
         attention: str = "sdpa", checkpointing: str = "none", lora: str | None = None,
         case_id: str | None = None) -> dict[str, Any]:
    """One case's settings; the id spells them out unless given."""
    rank, alpha, dropout, targets = LORA_PRESETS[lora]
    method_tag = f"lora-{lora}" if method == "lora" else method
    auto_id = f"{model}_{method_tag}_{precision}_b{batch}_s{seq_len}_{attention}_gc-{checkpointing}"
    return {"id": case_id or auto_id, "model": model, "method": method, "precision": precision,
            "optimizer": "adamw", "batch": batch, "seq_len": seq_len, "attention": attention,
            "checkpointing": checkpointing, "lora_rank": rank, "lora_alpha": alpha, "lora_dropout": dropout,
            "lora_targets": targets}


# The H200 reference setups (shared/reference/gpu_llama.jsonl); m06 was Llama 3 8B, the same network as 3.1.
H200 = [
    case("llama-2-7b", case_id="h200-m01"),
    case("llama-2-7b", attention="eager", case_id="h200-m02"),
    case("llama-2-7b", "lora", lora="r16", case_id="h200-m03"),
    case("llama-2-7b", "lora", lora="r16", checkpointing="full", case_id="h200-m04"),
    case("llama-2-7b", "lora", lora="r16", seq_len=512, attention="eager", case_id="h200-m05"),
    case("llama-3.1-8b", case_id="h200-m06"),
    case("llama-2-7b", precision="amp-bf16", seq_len=512, checkpointing="full", case_id="h200-m07"),
]


def sweep(model: str, seq_len: int, variants: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The model's cases: each variant's settings over the base (full, bf16, b1, SDPA, no checkpointing)."""
    return [case(model, **{"seq_len": seq_len, **v}) for v in variants]


LORA16, LORA8 = {"method": "lora", "lora": "r16"}, {"method": "lora", "lora": "r8"}

GRID = (
    sweep("llama-3.2-1b", 2048, [
        {}, {"seq_len": 512}, {"seq_len": 4096}, {"batch": 2}, {"attention": "eager"},
        {"checkpointing": "full"}, {"precision": "amp-bf16"}, {"precision": "fp32"},
        {"attention": "eager", "checkpointing": "full"},
        {"precision": "amp-bf16", "checkpointing": "full", "seq_len": 4096},
        LORA16, LORA8, {**LORA16, "checkpointing": "full"}, {**LORA16, "attention": "eager"},
        {**LORA16, "precision": "amp-bf16"}, {**LORA16, "seq_len": 4096}, {**LORA16, "batch": 2},
        {"method": "lora", "lora": "r16-d05"},
    ])
    + sweep("qwen2.5-0.5b", 2048, [
        {}, {"seq_len": 4096}, {"batch": 2, "seq_len": 512}, {"attention": "eager"},
        {"checkpointing": "full"}, {"precision": "amp-bf16"}, LORA16, LORA8,
        {**LORA8, "checkpointing": "full", "seq_len": 4096},
    ])
    + sweep("gpt2", 1024, [  # GPT-2 has 1,024 positions; its config has dropout 0.1 (attention, residual, embedding)
        {}, {"seq_len": 512}, {"batch": 2}, {"attention": "eager"}, {"checkpointing": "full"},
        {"precision": "amp-bf16"}, LORA16, LORA8,
    ])
    + sweep("tiny-moe", 2048, [  # no amp-bf16: torch._grouped_mm takes bf16 only (fp32 experts fail to trace)
        {}, {"seq_len": 4096}, {"batch": 2}, {"attention": "eager"}, {"checkpointing": "full"}, LORA16, LORA8,
    ])
    + sweep("llama-2-7b", 2048, [
        {"checkpointing": "full"}, {"seq_len": 4096, "checkpointing": "full"}, LORA8,
        {**LORA16, "batch": 2}, {**LORA16, "seq_len": 4096, "checkpointing": "full"},
        {**LORA16, "precision": "amp-bf16"},
    ])
    + sweep("llama-3.1-8b", 2048, [
        {"checkpointing": "full", "seq_len": 4096}, {"attention": "eager"}, LORA16,
        {**LORA8, "checkpointing": "full", "seq_len": 4096}, {**LORA16, "precision": "amp-bf16", "seq_len": 512},
    ])
    + sweep("gemma-2-2b", 2048, [  # transformers has no SDPA path for Gemma 2 (logit soft-capping): eager only
        {"attention": "eager"}, {"attention": "eager", "checkpointing": "full"},
        {**LORA16, "attention": "eager"},
    ])
)


# --- Issue 19: long-context levers (ids lc-...; calibration/long_context.py runs them) -------------------------
def lc_case(model: str, method: str = "full", *, loss: str = "standard", loss_chunks: int | None = None,
            activation_offload: bool = False, **settings: Any) -> dict[str, Any]:
    """A case with issue 19's levers: a chunked loss (``chunked``: TRL's chunked_nll, 256-token chunks unless
    ``loss_chunks``; ``chunked-output``: torchtune's CEWithChunkedOutputLoss in ``loss_chunks`` pieces),
    activation offloading, selective checkpointing."""
    c = case(model, method, **settings)
    tags = ([f"{loss}{loss_chunks or ''}"] if loss != "standard" else []) + (["offload"] if activation_offload
                                                                           else [])
    c["id"] = "lc-" + c["id"] + "".join(f"_{t}" for t in tags)
    return {**c, "loss": loss, "loss_chunks": loss_chunks, "activation_offload": activation_offload}


CHUNKED8 = {"loss": "chunked-output", "loss_chunks": 8}  # torchtune's default 8 chunks
TRL = {"loss": "chunked"}  # TRL's chunked_nll, 256-token chunks
OFFLOAD = {"activation_offload": True}
LONG_8B = {"method": "lora", "lora": "r16", "seq_len": 32768, "checkpointing": "full"}

LONG_CONTEXT = [
    lc_case("llama-3.2-1b", seq_len=4096, **CHUNKED8),
    lc_case("llama-3.2-1b", seq_len=4096, loss="chunked-output", loss_chunks=16),
    lc_case("llama-3.2-1b", "lora", lora="r16", seq_len=4096, checkpointing="full", **CHUNKED8),
    lc_case("qwen2.5-0.5b", seq_len=4096, **CHUNKED8),
    lc_case("llama-3.2-1b", **OFFLOAD),
    lc_case("llama-3.2-1b", "lora", lora="r16", **OFFLOAD),
    lc_case("llama-3.2-1b", "lora", lora="r16", checkpointing="full", seq_len=8192, **OFFLOAD),
    lc_case("qwen2.5-0.5b", checkpointing="full", seq_len=8192, **OFFLOAD),
    lc_case("llama-3.2-1b", precision="amp-bf16", **OFFLOAD),
    lc_case("llama-3.2-1b", checkpointing="selective"),
    lc_case("llama-3.2-1b", "lora", lora="r16", checkpointing="selective"),
    lc_case("llama-3.2-1b", attention="eager", checkpointing="selective"),
    lc_case("llama-3.1-8b", **LONG_8B),
    lc_case("llama-3.1-8b", **LONG_8B, **CHUNKED8),
    lc_case("llama-3.1-8b", **LONG_8B, **OFFLOAD),
    lc_case("llama-3.1-8b", **LONG_8B, **CHUNKED8, **OFFLOAD),
    # TRL's chunked_nll (SFTTrainer's default loss in TRL 1.7 to 1.14), through TRL's own code
    lc_case("llama-3.2-1b", seq_len=4096, **TRL),
    lc_case("llama-3.2-1b", seq_len=4096, loss="chunked", loss_chunks=4),
    lc_case("llama-3.2-1b", "lora", lora="r16", seq_len=4096, checkpointing="full", **TRL),
    lc_case("llama-3.2-1b", "lora", lora="r16", seq_len=32768, checkpointing="full", **TRL),
    lc_case("llama-3.2-1b", precision="amp-bf16", seq_len=4096, **TRL),
    lc_case("qwen2.5-0.5b", seq_len=4096, **TRL),
    lc_case("llama-3.1-8b", checkpointing="full", seq_len=4096, **TRL),
    lc_case("llama-3.1-8b", "lora", lora="r16", checkpointing="full", seq_len=4096, **TRL),
    lc_case("llama-3.1-8b", **LONG_8B, **TRL),
    lc_case("llama-3.1-8b", **LONG_8B, **TRL, **OFFLOAD),
]


# Current models (issue 13): full fine-tuning and LoRA r16 all-linear on each; a few more factors on the smaller ones.
CURRENT = (
    sweep("qwen3-0.6b", 2048, [{}, LORA16, {**LORA16, "checkpointing": "full"}, LORA8, {"attention": "eager"}])
    + sweep("qwen3-8b", 2048, [{"checkpointing": "full"}, LORA16])
    + sweep("qwen3-30b-a3b", 2048, [{}, LORA16, LORA8, {**LORA16, "checkpointing": "full"}])
    + sweep("gemma-3-1b", 2048, [{}, {"seq_len": 512}, LORA16, {**LORA16, "checkpointing": "full"}])
    + sweep("gemma-3-4b", 2048, [LORA16])
    + sweep("gpt-oss-20b", 1024, [  # transformers has no SDPA path for its attention sinks: eager only
        {"attention": "eager"}, {**LORA16, "attention": "eager"}])
    + sweep("deepseek-v3-5l", 2048, [{}, LORA16])
    + sweep("phi-4-mini", 2048, [{}, LORA16])
    + sweep("phi-4", 2048, [LORA16])
    + sweep("olmo-2-1b", 2048, [{}, LORA16])
    + sweep("olmo-3-7b", 2048, [LORA16])
    + sweep("llama-4-maverick-4l", 2048, [{}, LORA16])
    + sweep("mistral-small-3.1-24b", 2048, [LORA16])
    + sweep("exaone-4.0-1.2b", 2048, [{}, LORA16])
    + sweep("glm-4-9b", 2048, [{}, LORA16])
    + sweep("glm-4.5-air-3l", 2048, [{}, LORA16])
    + sweep("minimax-m2-3l", 2048, [LORA16])
    + sweep("granite-3.1-1b-a400m", 2048, [{}, LORA16])
    + sweep("smollm3-3b", 2048, [LORA16])
    + sweep("exaone-4.0-32b-4l", 8192, [LORA16, {**LORA16, "checkpointing": "full"}])
    + sweep("gemma-3-1b", 8192, [LORA16])
    + sweep("stablelm-2-1.6b", 2048, [{}, LORA16, {**LORA16, "checkpointing": "full"}])
    + sweep("gemma-2b", 2048, [{}, LORA16])
    + sweep("qwen1.5-moe-a2.7b", 2048, [{}, LORA16])
)

# Hybrid layers (issue 27): the layer kinds beside attention, run with fakes of the kernels users install
# (calibration/kernels.py: flash-linear-attention, causal-conv1d, mamba-ssm); each record lists the kernels it ran
HYBRID = (
    sweep("qwen3.5-0.8b", 2048, [{}, LORA16, {**LORA16, "checkpointing": "full"}, {"precision": "amp-bf16"},
                                 {"seq_len": 512}])
    + sweep("qwen3.5-35b-a3b-4l", 2048, [{}, LORA16])
    + sweep("qwen3-next-80b-a3b-4l", 2048, [{}, LORA16])
    + sweep("bamba-9b-4l", 2048, [{}, LORA16, {**LORA16, "checkpointing": "full"}, {"precision": "amp-bf16"}])
    + sweep("nemotron-nano-9b-v2-4l", 2048, [{}, LORA16])
    + sweep("nemotron-3-nano-30b-a3b-4l", 2048, [{}, LORA16])
    + sweep("kimi-linear-48b-a3b-4l", 2048, [{}, LORA16])
    + sweep("lfm2-1.2b", 2048, [{}, LORA16, {**LORA16, "checkpointing": "full"}])
    + sweep("jamba-v0.1-4l", 2048, [{}, LORA16])
    # no attention: transformers refuses an SDPA implementation for it, so the cases name eager (it runs none)
    + sweep("mamba-130m", 2048, [{"attention": "eager"}, {**LORA16, "attention": "eager"},
                                 {**LORA16, "checkpointing": "full", "attention": "eager"}])
    # parallel attention / MLP blocks: PyTorch's own ops (no kernel faked)
    + sweep("pythia-1.4b", 2048, [{}, LORA16, {**LORA16, "checkpointing": "full"}, {"precision": "amp-bf16"}])
    + sweep("phi-1.5", 2048, [{}, LORA16])
    + sweep("gpt-j-6b-4l", 2048, [{}, LORA16])
    + sweep("aya-23-8b-4l", 2048, [{}, LORA16, {**LORA16, "checkpointing": "full"}])
    # TRL's chunked loss keeps the logits small, so the peak falls in a layer's backward (the kernels' temporaries)
    + [lc_case("qwen3.5-0.8b", "lora", lora="r16", seq_len=8192, checkpointing="full", **TRL),
       lc_case("qwen3.5-0.8b", seq_len=4096, **TRL),
       lc_case("nemotron-nano-9b-v2-4l", "lora", lora="r16", seq_len=8192, checkpointing="full", **TRL)]
)



# --- Issue 27: options the engine refused before (ids op-...; calibration/options.py builds them) -------------
def op_case(model: str, method: str = "full", *, optimizer: str = "adamw", optim_args: str | None = None,
            tag: str = "", dora: bool = False, modules_to_save: list[str] | None = None, trainable_tokens: int = 0,
            freeze_layers: int = 2, **settings: Any) -> dict[str, Any]:
    """A case with one of issue 27's optimizers or methods; ``optim_args`` is transformers' string; ``dora``:
    PEFT's ``use_dora``."""
    partial = method in ("freeze", "badam")  # no adapter: the id says freeze2, badam
    if partial:
        c = case(model, "full", **settings)
        tag_method = f"freeze{settings_layers}" if (settings_layers := freeze_layers) and method == "freeze" else method
        c["id"] = "op-" + c["id"].replace("_full_", f"_{tag_method}_", 1)
        return {**c, "method": method, "optimizer": optimizer, "optim_args": optim_args, "freeze_layers": freeze_layers}
    lora_like = method not in ("full", "lora")  # an issue 27 method on LoRA: the id says lora-8bit-r16 ...
    c = case(model, "lora" if lora_like else method, **settings)
    if lora_like:
        c["method"], c["id"] = method, c["id"].replace("_lora-", f"_{method}-", 1)
    saved = "".join(f"_save-{name}" for name in modules_to_save or ())
    c["id"] = "op-" + c["id"] + (f"_{optimizer}" if optimizer != "adamw" else "") + ("_dora" if dora else "") + (
        saved + (f"_tokens{trainable_tokens}" if trainable_tokens else "") + (f"_{tag}" if tag else ""))
    return {**c, "optimizer": optimizer, "optim_args": optim_args, **({"dora": True} if dora else {}),
            **({"modules_to_save": modules_to_save} if modules_to_save else {}),
            **({"trainable_tokens": trainable_tokens} if trainable_tokens else {})}


OPTIONS = [
    op_case("llama-3.2-1b", precision="bf16", seq_len=512, optimizer="adamw-4bit"),
    op_case("llama-3.2-1b", "lora", lora="r16", optimizer="adamw-4bit"),
    op_case("qwen2.5-0.5b", precision="amp-bf16", seq_len=512, optimizer="adamw-4bit"),
    op_case("llama-3.2-1b", precision="bf16", seq_len=512, optimizer="adamw-8bit-torchao"),
    op_case("llama-3.2-1b", precision="bf16", seq_len=512, optimizer="rmsprop"),
    op_case("llama-3.2-1b", precision="bf16", seq_len=512, optimizer="rmsprop-momentum"),
    op_case("qwen2.5-0.5b", "lora", lora="r16", optimizer="rmsprop"),
    op_case("llama-3.2-1b", precision="bf16", seq_len=512, optimizer="muon"),
    op_case("qwen2.5-0.5b", precision="amp-bf16", seq_len=512, optimizer="muon"),
    op_case("llama-3.2-1b", "lora", lora="r16", optimizer="muon"),
    op_case("llama-3.2-1b", precision="bf16", seq_len=512, optimizer="galore-adamw"),
    op_case("llama-3.2-1b", precision="bf16", seq_len=512, optimizer="galore-adamw", optim_args="update_proj_gap=1",
            tag="gap1"),
    op_case("qwen2.5-0.5b", precision="amp-bf16", seq_len=512, optimizer="galore-adamw",
            optim_args="update_proj_gap=1", tag="gap1"),
    op_case("llama-3.2-1b", precision="bf16", seq_len=512, optimizer="apollo-adamw"),
    op_case("llama-3.2-1b", precision="bf16", seq_len=512, optimizer="apollo-adamw", optim_args="update_proj_gap=1",
            tag="gap1"),
    op_case("llama-3.2-1b", precision="bf16", seq_len=512, optimizer="adam-mini"),
    op_case("qwen2.5-0.5b", precision="bf16", seq_len=2048, optimizer="adam-mini"),
    # LoRA on an 8-bit base (bitsandbytes LLM.int8, calibration/options.py)
    op_case("llama-3.2-1b", "lora-8bit", lora="r16"),
    op_case("llama-3.2-1b", "lora-8bit", lora="r16", checkpointing="full"),
    op_case("llama-3.2-1b", "lora-8bit", lora="r8"),
    op_case("qwen2.5-0.5b", "lora-8bit", lora="r16-d05"),
    op_case("llama-3.1-8b", "lora-8bit", lora="r16", checkpointing="full", seq_len=4096),
    # DoRA (PEFT use_dora): the magnitude vector, the weight norm of W + BA per forward
    op_case("llama-3.2-1b", "lora", lora="r16", dora=True),
    op_case("llama-3.2-1b", "lora", lora="r16", checkpointing="full", dora=True),
    op_case("llama-3.2-1b", "lora", lora="r8", seq_len=512, dora=True),
    op_case("qwen2.5-0.5b", "lora", lora="r16", precision="amp-bf16", dora=True),
    op_case("llama-3.1-8b", "lora", lora="r16", checkpointing="full", seq_len=512, dora=True),
    op_case("llama-3.1-8b", "lora", lora="r16", seq_len=256, dora=True),
    # DoRA with lora_dropout > 0: PEFT recomputes the base output on the dropped input (DoraLinearVariant.forward)
    op_case("llama-3.2-1b", "lora", lora="r16-d05", dora=True),
    op_case("llama-3.2-1b", "lora", lora="r16-d05", checkpointing="full", dora=True),
    op_case("qwen2.5-0.5b", "lora", lora="r16-d05", precision="amp-bf16", dora=True),
    # modules trained in full beside LoRA (PEFT modules_to_save) and trained token rows (trainable_token_indices)
    op_case("stablelm-2-1.6b", "lora", lora="r16", modules_to_save=["embed_tokens", "lm_head"]),
    op_case("stablelm-2-1.6b", "lora", lora="r16", modules_to_save=["lm_head"], checkpointing="full"),
    op_case("stablelm-2-1.6b", "lora", lora="r16", modules_to_save=["embed_tokens"], precision="amp-bf16"),
    op_case("llama-3.2-1b", "lora", lora="r16", modules_to_save=["embed_tokens"]),
    op_case("stablelm-2-1.6b", "lora", lora="r16", trainable_tokens=16),
    op_case("llama-3.2-1b", "lora", lora="r16", trainable_tokens=16),
    # freeze tuning (LLaMA-Factory finetuning_type: freeze) and BAdam (use_badam, layer mode)
    op_case("llama-3.2-1b", "freeze", freeze_layers=2),
    op_case("llama-3.2-1b", "freeze", freeze_layers=-2),
    op_case("llama-3.2-1b", "freeze", freeze_layers=2, checkpointing="full"),
    op_case("qwen2.5-0.5b", "freeze", freeze_layers=-4, checkpointing="full"),
    op_case("llama-3.2-1b", "badam"),
    op_case("llama-3.2-1b", "badam", checkpointing="full"),
    # OFT (PEFT OFTConfig defaults: block 32, Cayley-Neumann)
    op_case("llama-3.2-1b", "oft", lora="r16"),
    op_case("llama-3.2-1b", "oft", lora="r16", checkpointing="full"),
    op_case("qwen2.5-0.5b", "oft", lora="r16"),
]


CASES = H200 + GRID + LONG_CONTEXT + CURRENT + HYBRID + OPTIONS

# The validation cases (calibration.validate): tiny models traced on fake tensors and run on real CPU tensors.
CHECKS = [
    case("tiny-llama", seq_len=128, batch=2, case_id="v-full-bf16-sdpa"),
    case("tiny-llama", seq_len=128, attention="eager", case_id="v-full-bf16-eager"),
    case("tiny-llama", precision="amp-bf16", seq_len=128, checkpointing="full", case_id="v-full-amp-gc"),
    case("tiny-llama", precision="fp32", seq_len=64, case_id="v-full-fp32"),
    case("tiny-llama", "lora", seq_len=128, lora="r16", case_id="v-lora-all"),
    case("tiny-llama", "lora", seq_len=128, lora="r8", checkpointing="full", case_id="v-lora-qv-gc"),
    case("tiny-llama", "lora", seq_len=128, lora="r16-d05", attention="eager", case_id="v-lora-dropout"),
    case("tiny-gpt2", seq_len=128, case_id="v-gpt2-dropout"),
    case("tiny-moe-2", seq_len=64, case_id="v-moe"),
    # TRL's chunked_nll in 4 chunks of 128 tokens (long_context.py), its chunk count checked against TRL's own
    {**case("tiny-llama", seq_len=256, batch=2, case_id="v-trl-chunked"), "loss": "chunked", "loss_chunks": 4,
     "activation_offload": False},
]


def case_by_id(case_id: str) -> dict[str, Any]:
    """The case with this id, from CASES or the validation cases (CHECKS)."""
    for c in CASES + CHECKS:
        if c["id"] == case_id:
            return c
    raise KeyError(f"no case {case_id!r}; see --list")
