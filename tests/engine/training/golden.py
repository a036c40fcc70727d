"""The golden grid: the engine's JSON for a fixed grid of commands, recorded once and compared byte for byte.

Issue 24 rewrote how a training step is built (one plan, one builder) under the rule that no output moves. This
grid is that rule's check: 400-odd ``estimate`` runs over catalog models x methods x precisions x checkpointing x
sharding x layouts x long-context levers, plus the ``timeline``, ``levers``, ``alignment`` and ``plan`` commands
that read the same step, and issue 25's other stacks (``STACK_COMMANDS``). Each command's JSON
(``json.dumps(data, indent=2)``, as ``--json`` prints it) is kept in ``data/golden_grid.json.gz``.

A change that is meant to move numbers re-records the file (``python -m tests.engine.training.golden``) in its
own commit, which says why; the diff of the decompressed file shows what moved.
"""

from __future__ import annotations

import gzip
import itertools
import json
import sys
from collections.abc import Iterator
from pathlib import Path

from engine.cli import build_parser

DATA = Path(__file__).parent / "data" / "golden_grid.json.gz"

#: models chosen for the layer kinds they cover: dense GQA, MHA, tied embeddings, learned positions and LayerNorm
#: (GPT-2), fused qkv / gate_up (Phi), sliding windows and soft-capping (Gemma 2/3), q/k norms (Qwen3, OLMo 2),
#: MoE with shared experts, MLA (DeepSeek), attention sinks and clamped SwiGLU (GPT-OSS), Llama 4's interleaved MoE
MODELS = ("llama-2-7b", "llama-3.2-1b", "llama-3.1-8b", "qwen2.5-0.5b", "qwen3-0.6b", "qwen3-30b-a3b", "gpt2",
          "gemma-2-2b", "gemma-3-1b", "phi-4-mini", "phi-3-mini", "mixtral-8x7b", "deepseek-v2-lite", "gpt-oss-20b",
          "olmo-2-1b", "smollm2-135m", "llama-2-70b", "llama-4-scout", "qwen1.5-moe-a2.7b", "stablelm-2-1.6b",
          "exaone-4.0-1.2b", "granite-3.1-1b-a400m", "glm-4.7-flash", "mistral-7b")

#: setups, as flags; each model runs a rotating slice of them so that every flag meets many kinds of model
SETUPS: tuple[tuple[str, ...], ...] = (
    (),
    ("--method", "lora"),
    ("--method", "qlora", "--checkpointing", "full"),
    ("--precision", "bf16", "--seq-len", "2048", "--batch", "2"),
    ("--precision", "amp-bf16", "--attention", "eager", "--seq-len", "1024"),
    ("--precision", "fp32", "--seq-len", "512"),
    ("--method", "lora", "--lora-targets", "qv", "--lora-dropout", "0.05", "--precision", "amp-bf16"),
    ("--checkpointing", "selective", "--attention", "eager", "--seq-len", "2048"),
    ("--optimizer", "adamw-8bit", "--gpus", "4", "--sharding", "zero2"),
    ("--optimizer", "paged-adamw-8bit", "--method", "qlora"),
    ("--optimizer", "adafactor", "--gpus", "8", "--sharding", "zero3", "--checkpointing", "full"),
    ("--optimizer", "lion", "--gpus", "2", "--sharding", "zero1", "--grad-accum", "4"),
    ("--optimizer", "sgd-momentum", "--gpus", "2"),
    ("--gpus", "8", "--sharding", "zero3", "--offload-optimizer", "--offload-params"),
    ("--method", "lora", "--gpus", "4", "--sharding", "zero3", "--seq-len", "8192", "--checkpointing", "full"),
    ("--loss", "chunked", "--seq-len", "16384", "--method", "lora", "--checkpointing", "full"),
    ("--loss", "chunked-output", "--loss-chunks", "4", "--seq-len", "8192"),
    ("--loss", "fused-linear-ce", "--activation-offload", "--seq-len", "8192", "--checkpointing", "full"),
    ("--activation-offload", "--method", "lora", "--seq-len", "4096"),
    ("--gpus", "4", "--tp", "2", "--pp", "2", "--micro-batches", "4", "--sequence-parallel"),
    ("--gpus", "8", "--tp", "2", "--sharding", "zero1", "--checkpointing", "full"),
    ("--gpus", "4", "--pp", "4", "--micro-batches", "8", "--pp-schedule", "gpipe"),
    ("--gpus", "8", "--pp", "2", "--micro-batches", "8", "--pp-schedule", "interleaved", "--virtual-stages", "2",
     "--cp", "2", "--seq-len", "8192"),
    ("--gpus", "8", "--tp", "2", "--cp", "2", "--sharding", "zero3", "--seq-len", "16384", "--method", "lora"),
    ("--method", "lora", "--gpus", "2", "--pp", "2", "--micro-batches", "2", "--grad-accum", "2"),
    ("--precision", "fp16-mixed", "--optimizer", "paged-adamw", "--gpus", "2", "--sharding", "zero2"),
    ("--model-loading", "meta-sharded", "--gpus", "8", "--nodes", "2", "--sharding", "zero3",
     "--dataset-tokens", "100000000", "--num-workers", "4", "--pin-memory"),
)

#: MoE-only setups (expert parallelism)
MOE_SETUPS: tuple[tuple[str, ...], ...] = (
    ("--gpus", "8", "--ep", "4", "--sharding", "zero1"),
    ("--gpus", "8", "--ep", "2", "--tp", "2", "--etp", "1", "--sequence-parallel", "--method", "lora"),
)

MOE = frozenset({"qwen3-30b-a3b", "mixtral-8x7b", "deepseek-v2-lite", "gpt-oss-20b", "llama-4-scout",
                 "qwen1.5-moe-a2.7b", "granite-3.1-1b-a400m", "glm-4.7-flash"})

#: other commands that read the training step
OTHERS: tuple[tuple[str, ...], ...] = (
    ("timeline", "--model", "llama-3.2-1b", "--seq-len", "1024"),
    ("timeline", "--model", "qwen3-0.6b", "--method", "lora", "--checkpointing", "full"),
    ("timeline", "--model", "gemma-3-1b", "--seq-len", "2048", "--activation-offload"),
    ("timeline", "--model", "llama-2-7b", "--gpus", "4", "--pp", "2", "--tp", "2", "--micro-batches", "4"),
    ("timeline", "--model", "qwen3-30b-a3b", "--method", "qlora"),
    ("levers",),
    ("levers", "--model", "llama-3.1-8b", "--seq-len", "32768", "--method", "lora"),
    ("alignment", "--method", "lora"),
    ("alignment", "--model", "qwen2.5-7b", "--method", "lora", "--checkpointing", "full", "--stage", "grpo",
     "--num-generations", "8", "--rollout-engine", "vllm-colocate", "--vllm-gpu-memory-utilization", "0.3"),
    ("plan", "--model", "llama-3.1-70b", "--gpu", "h100-80gb", "--max-gpus", "32"),
    ("plan", "--model", "mixtral-8x7b", "--gpu", "h100-80gb", "--max-gpus", "16"),
)

#: issue 25's other stacks (torchtitan, torchtune, Megatron-LM, litgpt), after the rest so that adding them moved
#: no other command: each stack's own rules (engine.training.stacks) pinned as the rest pins hf-trainer's
STACK_COMMANDS: tuple[tuple[str, ...], ...] = (
    ("estimate", "--model", "llama-3.1-8b", "--gpu", "h100-80gb", "--stack", "torchtitan", "--gpus", "8",
     "--sharding", "zero3", "--checkpointing", "op-selective", "--loss", "chunked-backward", "--seq-len", "8192"),
    ("estimate", "--model", "llama-3.1-8b", "--gpu", "h100-80gb", "--stack", "torchtitan", "--gpus", "8",
     "--sharding", "zero3", "--checkpointing", "op-selective", "--loss", "chunked-backward", "--seq-len", "8192",
     "--compile"),
    ("estimate", "--model", "llama-3.1-8b", "--gpu", "h100-80gb", "--stack", "torchtitan", "--gpus", "8",
     "--sharding", "zero2", "--checkpointing", "full", "--checkpoint-every", "2", "--seq-len", "4096"),
    ("estimate", "--model", "llama-3.1-8b", "--gpu", "h100-80gb", "--stack", "torchtitan", "--gpus", "8", "--pp", "2",
     "--micro-batches", "4", "--sharding", "zero3", "--checkpointing", "full"),
    ("estimate", "--model", "llama-3.1-8b", "--gpu", "rtx-4090", "--stack", "torchtune", "--method", "qlora",
     "--precision", "bf16", "--lora-targets", "qvo-mlp", "--loss", "chunked-output", "--checkpointing", "full"),
    ("estimate", "--model", "llama-3.2-1b", "--gpu", "rtx-4090", "--stack", "torchtune", "--precision", "bf16",
     "--optimizer-in-backward", "--seq-len", "2048"),
    ("estimate", "--model", "llama-3.1-8b", "--gpu", "a100-80gb", "--stack", "torchtune", "--method", "lora",
     "--precision", "bf16", "--checkpointing", "full", "--checkpoint-every", "2", "--gpus", "2", "--sharding", "zero3"),
    ("estimate", "--model", "llama-2-7b", "--gpu", "a100-80gb", "--stack", "megatron", "--gpus", "8", "--tp", "2",
     "--sharding", "zero1", "--checkpointing", "selective"),
    ("estimate", "--model", "llama-3.1-8b", "--gpu", "a100-80gb", "--stack", "litgpt", "--method", "qlora",
     "--precision", "bf16", "--optimizer", "paged-adamw"),
    ("estimate", "--model", "qwen3-0.6b", "--gpu", "rtx-4090", "--stack", "litgpt", "--method", "lora"),
    ("levers", "--model", "llama-3.1-8b", "--stack", "torchtitan", "--gpus", "8", "--sharding", "zero3"),
    ("timeline", "--model", "llama-3.2-1b", "--stack", "torchtitan", "--gpus", "8", "--sharding", "zero3",
     "--checkpointing", "op-selective", "--seq-len", "2048"),
    ("plan", "--model", "llama-3.1-8b", "--gpu", "h100-80gb", "--stack", "megatron", "--max-gpus", "16"),
)

GPUS = ("a100-80gb", "rtx-4090", "h100-80gb")


def commands() -> Iterator[tuple[str, ...]]:
    """Every command of the grid, as its argv (without ``--json``)."""
    for i, model in enumerate(MODELS):
        picked = [SETUPS[(i * 7 + j) % len(SETUPS)] for j in range(15)]
        if model in MOE:
            picked += list(MOE_SETUPS)
        for setup, gpu in zip(picked, itertools.cycle(GPUS[i % 3:] + GPUS[: i % 3]), strict=False):
            yield ("estimate", "--model", model, "--gpu", gpu, *setup)
    yield from OTHERS
    yield from STACK_COMMANDS


def run(argv: tuple[str, ...]) -> str:
    """The JSON the command prints with ``--json``, or its one-line error."""
    parser = build_parser()
    args = parser.parse_args([*argv, "--json"])
    try:
        data, _ = args.handler(args)
    except (LookupError, ValueError) as err:  # a layout the model cannot take: its message is part of the grid
        return f"error: {err}"
    return json.dumps(data, indent=2)


def record() -> dict[str, str]:
    return {" ".join(argv): run(argv) for argv in commands()}


def load() -> dict[str, str]:
    data: dict[str, str] = json.loads(gzip.decompress(DATA.read_bytes()))
    return data


def main() -> int:
    DATA.parent.mkdir(exist_ok=True)
    grid = record()
    DATA.write_bytes(gzip.compress(json.dumps(grid, indent=0, sort_keys=True).encode(), mtime=0))
    errors = sum(v.startswith("error:") for v in grid.values())
    print(f"{len(grid)} commands ({errors} refused) -> {DATA}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
