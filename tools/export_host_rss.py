"""Bundle the host-RAM measurements with the engine: calibration/host_rss.jsonl -> engine/catalog/host_rss.json.

Run after ``python -m calibration.host_rss --all`` (the dev venv with torch; calibration/README.md, "Host RAM"):
``python tools/export_host_rss.py``. Each row keeps what the engine needs to cost the same case (the storage,
tokens, workers, batch and sequence length; or the loading mode, rank and checkpoint) and two measured figures,
``before_bytes`` (before the data or the weights) and ``measured_bytes`` (after). Dataset rows are process trees
(the main process and its forked workers), loading rows one of two processes that hold their weights at the same
time: every figure is PSS (RSS with each page shared by several processes split among them), so that a page
counts once: the workers share the main process's pages, and processes that map the same file share its page
cache. The RSS figures are kept beside them.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from engine.hf_import import spec_fields  # noqa: E402
from engine.specs import ModelSpec  # noqa: E402


def _dataset_row(r: dict[str, Any]) -> dict[str, Any]:
    workers = r["workers_mem"]
    return {"id": r["id"], "part": "dataset", "kind": r["kind"], "arrow_pool": r.get("arrow_pool", ""),
            "tokens": r["tokens"], "workers": r["workers"], "prefetch_factor": r["prefetch_factor"] or 2,
            "batch": r["batch"], "seq_len": r["seq_len"], "before_bytes": r["before"]["pss"],
            "measured_bytes": r["main"]["pss"] + sum(w["pss"] for w in workers),
            "main_rss_bytes": r["main"]["rss"], "workers_uss_bytes": [w["uss"] for w in workers]}


def _loading_row(r: dict[str, Any], spec: dict[str, Any]) -> dict[str, Any]:
    return {"id": r["id"], "part": "loading", "mode": r["mode"].removesuffix("-fp32"), "rank": r["rank"],
            "world_size": r["world_size"], "precision": "fp32" if r["dtype"] == "float32" else "bf16",
            "params": r["params"], "spec": spec, "before_bytes": r["before"]["pss"],
            "measured_bytes": r["after"]["pss"], "rss_before_bytes": r["before"]["rss"],
            "rss_after_bytes": r["after"]["rss"], "local_weight_bytes": r["local_weight_bytes"],
            "file_bytes": r["after"]["file"] - r["before"]["file"]}


def main() -> int:
    sys.path.insert(0, str(ROOT))
    from calibration.host_rss import LLAMA  # the checkpoint's config (no torch needed to read it)

    spec = ModelSpec.model_validate(spec_fields({"model_type": "llama", **LLAMA}, "host-rss-llama"))
    rows = [json.loads(x) for x in (ROOT / "calibration" / "host_rss.jsonl").read_text().splitlines() if x]
    out: list[dict[str, Any]] = []
    for r in rows:
        if r["part"] == "dataset":
            out.append(_dataset_row(r))
        elif r["part"] == "loading":
            out.append(_loading_row(r, spec.model_dump(mode="json")))
        elif r["part"] == "runtime":
            out.append({"id": r["id"], "part": "runtime", "what": r["what"], "measured_bytes": r["main"]["rss"]})
        else:
            out.append({"id": r["id"], "part": "tokens", "form": r["form"], "bytes_per_token": r["bytes_per_token"]})
    doc = {"schema": 1, "source": "calibration/host_rss.jsonl: RSS / USS measured on the project's Debian 12 "
           "machine (calibration/README.md, Host RAM)", "runs": out}
    (ROOT / "engine" / "catalog" / "host_rss.json").write_text(json.dumps(doc, indent=1) + "\n")
    print(f"{len(out)} host-RAM rows bundled")
    return 0


if __name__ == "__main__":
    sys.exit(main())
