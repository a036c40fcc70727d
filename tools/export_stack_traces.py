"""Bundle the stack traces the engine models: calibration/stacks/traces.jsonl -> engine/catalog/stack_traces.json.

Run after ``python -m calibration.stacks.trace`` (the dev venv with torch; calibration/README.md, "Stacks"):
``python tools/export_stack_traces.py``. A row is bundled when the engine models every rule its trace shows
(``modelled``); the others stay in calibration/stacks/NOTES.md with the engine's estimate beside them until their
rules land. Each row keeps the traced setup (its stack and AdamW implementation among it) and peak.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
TRACES = ROOT / "calibration" / "stacks" / "traces.jsonl"
OUT = ROOT / "engine" / "catalog" / "stack_traces.json"


#: the Trainer's ``optim`` names as the engine's optimizers
OPTIMIZERS = {"paged_adamw_8bit": "paged-adamw-8bit", "paged_adamw_32bit": "paged-adamw", "adamw_torch": "adamw",
              "adamw_torch_fused": "adamw", "adamw_8bit": "adamw-8bit"}
#: PEFT's default ("peft": prepare_model_for_kbit_training) and the Trainer's ("trainer") checkpoint every layer
CHECKPOINTING = {"peft": "full", "trainer": "full", "none": "none"}


def modelled(r: dict[str, Any]) -> bool:
    """The traces whose every rule the engine has (issue 25): the hf-trainer ones (full fine-tuning's AdamW
    implementations, PEFT's LoRA, and QLoRA through PEFT's preparation), torchtitan's FSDP2 step and torchtune's
    QLoRA recipe step."""
    if r["stack"] in ("torchtitan", "torchtune"):
        return not r.get("float8")  # float8's casts: traced, not costed (calibration/stacks/NOTES.md section 8)
    return bool(r["stack"] == "hf-trainer" and r["precision"] == "bf16")


def _row(r: dict[str, Any]) -> dict[str, Any]:
    if r["stack"] in ("torchtitan", "torchtune"):
        return _cut_row(r)
    impl = r["optimizer_impl_traced"]
    optimizer = OPTIMIZERS[r["optim"]]
    setup: dict[str, Any] = {"method": r["method"], "precision": "bf16", "optimizer": optimizer,
                             "batch": r["batch"], "seq_len": r["seq_len"], "attention": r["attention"],
                             "checkpointing": CHECKPOINTING[r["checkpointing"]], "stack": r["stack"]}
    if optimizer == "adamw":
        setup["optimizer_impl"] = impl
    if r["method"] != "full":
        setup["lora"] = {"rank": r["lora_rank"], "alpha": r["lora_alpha"], "dropout": r["lora_dropout"],
                         "targets": r["lora_targets"]}
    return {"id": r["id"], "stack": r["stack"], "model": r["model"], "setup": setup,
            "described": f"{r['id'][3:]} ({'AdamW ' + impl if optimizer == 'adamw' else r['optim']})",
            "peak_bytes": r["peak_bytes"], "peak_phase": r["peak_phase"], "total_params": r["total_params"],
            "trainable_params": r["trainable_params"]}


def _cut_setup(r: dict[str, Any]) -> dict[str, Any]:
    """The setup of a torchtitan or torchtune trace, as its flags say it (calibration/stacks/compare.py)."""
    if r["stack"] == "torchtitan":
        ckpt = {"selective": "op-selective"}.get(r["checkpointing"], r["checkpointing"])
        return {"method": "full", "precision": "bf16-mixed", "optimizer": "adamw", "batch": r["batch"],
                "seq_len": r["seq_len"], "attention": r["attention"], "checkpointing": ckpt, "gpus": r["world"],
                "sharding": "zero2" if r.get("reshard") == "never" else "zero3", "stack": "torchtitan",
                "loss": "chunked-backward" if r["loss"] == "chunked" else "standard"}
    return {"method": "qlora", "precision": "bf16", "optimizer": "adamw", "batch": r["batch"], "seq_len": r["seq_len"],
            "attention": r["attention"], "checkpointing": r["checkpointing"], "stack": "torchtune",
            "loss": "chunked-output", "loss_chunks": 8,
            "lora": {"rank": r["lora_rank"], "alpha": float(r["lora_alpha"]), "dropout": r["lora_dropout"],
                     "targets": "qvo-mlp"}}


def _cut_row(r: dict[str, Any]) -> dict[str, Any]:
    """A trace of a model cut to its first blocks: the model spec rides along (from the traced config)."""
    from engine.hf_import import spec_from_config

    spec = spec_from_config({**r["hf_config"], "architectures": ["LlamaForCausalLM"]},
                            f"{r['model']}-{r['layers']}-layers")
    trainable = r["total_params"] if r["stack"] == "torchtitan" else r["trainable_params"]  # titan: full FT
    return {"id": r["id"], "stack": r["stack"], "model": r["model"], "spec": spec.model_dump(mode="json"),
            "setup": _cut_setup(r), "described": r["id"].split("-", 1)[1], "peak_bytes": r["peak_bytes"],
            "peak_phase": r["peak_phase"], "total_params": r["total_params"], "trainable_params": trainable}


def main() -> int:
    records = [json.loads(line) for line in TRACES.read_text().splitlines() if line]
    runs = [_row(r) for r in records if modelled(r)]
    out = {"schema": 1,
           "source": "calibration/stacks/traces.jsonl: each stack's own training step traced with fake tensors "
                     "(calibration/stacks/NOTES.md)",
           "runs": runs}
    OUT.write_text(json.dumps(out, indent=1) + "\n")
    print(f"{len(runs)} stack traces -> {OUT.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
