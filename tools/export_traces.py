"""Bundle the calibration traces with the engine: calibration/traces.jsonl -> engine/catalog/traced_steps.json.

Run after ``python -m calibration.trace --all`` (which needs the dev venv with torch; see calibration/README.md):
``python tools/export_traces.py``. Each row keeps the traced setup and peak; a model outside the catalog (the
tiny MoE, the reduced DeepSeek-V3 and Llama 4), or one whose catalog entry counts other parameters than the traced
config, carries its architecture, built from the traced Hugging Face config by ``engine.hf_import``.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from engine.catalog import CatalogError, get_model  # noqa: E402
from engine.hf_import import spec_from_config  # noqa: E402
from engine.params import count_params  # noqa: E402


def _setup(r: dict[str, object]) -> dict[str, object]:
    setup = {k: r[k] for k in ("method", "precision", "batch", "seq_len", "attention", "checkpointing")}
    if r["method"] != "full":
        setup["lora"] = {"rank": r["lora_rank"], "alpha": r["lora_alpha"], "dropout": r["lora_dropout"] or 0.0,
                         "targets": r["lora_targets"]}
    if r.get("loss", "standard") != "standard":  # issue 19's long-context levers (the lc- cases)
        setup["loss"] = r["loss"]
        if r.get("loss_chunks") is not None:  # None: the tool's own chunks (TRL's 256 tokens)
            setup["loss_chunks"] = r["loss_chunks"]
    if r.get("activation_offload"):
        setup["activation_offload"] = True
    if r.get("optimizer", "adamw") != "adamw":  # issue 27's optimizers (the op- cases)
        setup["optimizer"] = r["optimizer"]
    if r["method"] == "oft":  # OFT's targets are the LoRA targets' field; no rank
        setup["lora"] = {"targets": r["lora_targets"]}
    if r["method"] in ("freeze", "badam"):  # no adapter
        setup.pop("lora", None)
        if r["method"] == "freeze":
            setup["freeze_layers"] = r["freeze_layers"]
    if r.get("dora"):
        setup["dora"] = True
    if r.get("modules_to_save"):
        setup["modules_to_save"] = r["modules_to_save"]
    if r.get("trainable_tokens"):
        setup["trainable_tokens"] = r["trainable_tokens"]
    return setup


def _row(r: dict[str, object]) -> dict[str, object]:
    row: dict[str, object] = {
        "id": r["id"], "model": r["model"], "setup": _setup(r), "described": r["id"],
        "peak_bytes": r["peak_bytes"], "peak_phase": r["peak_phase"],
        "total_params": r["total_params"], "trainable_params": r["trainable_params"],
    }
    if "host_offloaded_peak_bytes" in r:
        row["host_offloaded_peak_bytes"] = r["host_offloaded_peak_bytes"]
    if "fake_kernels" in r:  # traced with registered fakes of these kernels (calibration/kernels.py)
        row["fake_kernels"] = r["fake_kernels"]
    assert isinstance(r["hf_config"], dict)
    spec = spec_from_config(r["hf_config"], str(r["model"]))
    try:
        same = count_params(get_model(str(r["model"]))).total == count_params(spec).total
    except CatalogError:
        same = False
    if not same:
        row["spec"] = spec.model_dump(mode="json", exclude_defaults=True)
    return row


def main() -> int:
    traces = [json.loads(line) for line in (ROOT / "calibration" / "traces.jsonl").read_text().splitlines() if line]
    out = {
        "schema": 1,
        "source": "calibration/traces.jsonl: PyTorch training steps traced with fake tensors (calibration/README.md)",
        "runs": [_row(r) for r in traces],
    }
    (ROOT / "engine" / "catalog" / "traced_steps.json").write_text(json.dumps(out, indent=1) + "\n")
    print(f"{len(traces)} traced steps bundled")
    return 0


if __name__ == "__main__":
    sys.exit(main())
