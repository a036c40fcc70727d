"""The engine's estimate beside each stack trace (torch-free; runs the engine CLI from the repository root).

    python3 -m calibration.stacks.compare            # Markdown table of traces.jsonl vs `python -m engine estimate`
    python3 -m calibration.stacks.compare --json     # the same rows as JSON

The engine is run as `ENGINE_PYTHON -m engine estimate ... --json` (default /work/main/.venv/bin/python) with each
case's setup typed into today's flags, as a user would.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

from calibration.stacks.trace import TRACES

ROOT = Path(__file__).resolve().parents[2]
ENGINE_PYTHON = os.environ.get("ENGINE_PYTHON", "/work/main/.venv/bin/python")
OPTIMIZERS = {"paged_adamw_8bit": "paged-adamw-8bit", "paged_adamw_32bit": "paged-adamw", "adamw_torch": "adamw",
              "adamw_torch_fused": "adamw", "adamw_8bit": "adamw-8bit"}
CHECKPOINTING = {"peft": "full", "none": "none", "full": "full", "trainer": "full", "selective": "selective"}
#: torchtitan's "selective" is its per-operator SelectiveAC
TITAN_CHECKPOINTING = {**CHECKPOINTING, "selective": "op-selective"}


def _model_args(r: dict[str, Any]) -> list[str]:
    """The catalog id, or (a model cut to a few layers) its config written to a temporary folder."""
    if r.get("stack") not in ("torchtitan", "torchtune"):
        return ["--model", r["model"]]
    folder = Path(tempfile.mkdtemp(prefix="stack-config-"))
    (folder / "config.json").write_text(json.dumps({**r["hf_config"], "architectures": ["LlamaForCausalLM"]}))
    return ["--config", str(folder)]


def _stack_args(r: dict[str, Any]) -> list[str]:
    """torchtitan: its stack, FSDP2 over the fake world (zero3), bf16 compute over fp32 parameters, its loss
    (ChunkedLossWrapper: chunked-backward); torchtune: its stack, pure bf16 (adapters too), torchtune's
    chunked-output loss (8 chunks), its LoRA targets (q, v, o and the MLP); the others: their stack."""
    if r.get("stack") == "torchtune":
        return ["--stack", "torchtune", "--precision", "bf16", "--loss", "chunked-output", "--loss-chunks", "8"]
    if r.get("stack") != "torchtitan":
        return ["--stack", r["stack"]]
    loss = ["--loss", "chunked-backward"] if r["loss"] == "chunked" else ["--loss", "standard"]
    sharding = "zero2" if r.get("reshard") == "never" else "zero3"  # fsdp_reshard_after_forward "never"
    return ["--stack", "torchtitan", "--gpus", str(r["world"]), "--sharding", sharding, "--precision", "bf16-mixed",
            *loss]


def engine_args(r: dict[str, Any]) -> list[str]:
    """Today's flags for a traced case: its stack, and torch AdamW's implementation where the trace ran one."""
    args = [*_model_args(r), *_stack_args(r), "--method", r["method"], "--batch", str(r["batch"]), "--seq-len",
            str(r["seq_len"]), "--attention", r["attention"], "--checkpointing",
            (TITAN_CHECKPOINTING if r.get("stack") == "torchtitan" else CHECKPOINTING)[r["checkpointing"]],
            "--optimizer", OPTIMIZERS[r["optim"]]]
    if OPTIMIZERS[r["optim"]] == "adamw" and r.get("optimizer_impl_traced") in ("fused", "foreach", "forloop"):
        args += ["--optimizer-impl", r["optimizer_impl_traced"]]
    if r["method"] == "full" and r["precision"] == "bf16":  # loaded in bf16, bf16=True: no fp32 master copy
        args += ["--precision", "bf16"]
    if r["method"] in ("lora", "qlora"):
        targets = r["lora_targets"] if isinstance(r["lora_targets"], str) else "qvo-mlp"  # torchtune: q,v,o+MLP
        args += ["--lora-rank", str(r["lora_rank"]), "--lora-alpha", str(r["lora_alpha"]),
                 "--lora-dropout", str(r["lora_dropout"]), "--lora-targets", targets]
    return args


def estimate(r: dict[str, Any]) -> dict[str, Any]:
    out = subprocess.run([ENGINE_PYTHON, "-m", "engine", "estimate", *engine_args(r), "--json"], cwd=ROOT,
                         capture_output=True, text=True, check=True)
    return dict(json.loads(out.stdout))


def rows() -> list[dict[str, Any]]:
    result = []
    for line in TRACES.read_text().splitlines():
        r = json.loads(line)
        e = estimate(r)
        result.append({"id": r["id"], "traced": r["peak_bytes"], "traced_phase": r["peak_phase"],
                       "engine": e["peak_allocated_bytes"], "gap": e["peak_allocated_bytes"] / r["peak_bytes"] - 1,
                       "traced_at_peak": r["at_peak"], "traced_weights": r.get("weights_at_peak"),
                       "traced_paged": r.get("paged_bytes", 0), "engine_paged": e.get("paged_bytes", 0),
                       "engine_terms": e["terms"], "engine_args": engine_args(r)})
    return result


def _gb(n: float) -> str:
    return f"{n / 1e9:.2f}"


def table(data: list[dict[str, Any]]) -> str:
    head = ("| case | traced GB | phase | engine GB | engine vs trace | traced weights / act+tmp GB | "
            "engine weights / act+logits+tmp GB |\n|---|---:|---|---:|---:|---:|---:|")
    lines = [head]
    for d in data:
        t, e = d["traced_at_peak"], d["engine_terms"]
        engine_act = e["activations"] + e["logits"] + e["temporaries"]
        lines.append(f"| {d['id']} | {_gb(d['traced'])} | {d['traced_phase']} | {_gb(d['engine'])} | "
                     f"{100 * d['gap']:+.1f}% | {_gb(t['parameters'])} / {_gb(t['activations_and_temporaries'])} | "
                     f"{_gb(e['weights'])} / {_gb(engine_act)} |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    data = rows()
    print(json.dumps(data, indent=1) if args.json else table(data))
    return 0


if __name__ == "__main__":
    sys.exit(main())
