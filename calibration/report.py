"""Print the Markdown tables of README.md from traces.jsonl (no torch needed).

    python3 -m calibration.report          # H200 comparison, then every case
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

HERE = Path(__file__).parent
REFERENCE = HERE.parent.parent / "shared" / "reference" / "gpu_llama.jsonl"
REFERENCE_FALLBACK = Path("/work/shared/reference/gpu_llama.jsonl")
GIB = 2**30


def load(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def h200_table(traces: list[dict[str, Any]]) -> str:
    """Trace vs `max_memory_allocated` for each reference setup."""
    ref_path = REFERENCE if REFERENCE.exists() else REFERENCE_FALLBACK
    refs = {r["id"]: r for r in load(ref_path)}
    rows = ["| id | setup | trace (bytes) | H200 max_memory_allocated | diff | trace − H200 "
            "| peak phase: trace / H200 |", "|---|---|---:|---:|---:|---:|---|"]
    for t in traces:
        ref = refs.get(t["id"].removeprefix("h200-"))
        if not t["id"].startswith("h200-") or ref is None:
            continue
        measured = ref["max_memory_allocated"]
        diff = t["peak_bytes"] - measured
        rows.append(f"| {ref['id']} | {ref['setup']} | {t['peak_bytes']:,} | {measured:,} | "
                    f"{100 * diff / measured:+.2f}% | {diff / 2**20:+,.2f} MiB | "
                    f"{t['peak_phase']} / {ref['peak_phase']} |")
    return "\n".join(rows)


def case_table(traces: list[dict[str, Any]]) -> str:
    """One row per case: peak, where it is, and what is live then (GiB)."""
    rows = ["| id | params | trainable | peak GiB | phase | params | grads | optim | act+tmp |",
            "|---|---:|---:|---:|---|---:|---:|---:|---:|"]
    for t in traces:
        a = t["at_peak"]
        rows.append(f"| {t['id']} | {t['total_params']:,} | {t['trainable_params']:,} | "
                    f"{t['peak_bytes'] / GIB:.3f} | {t['peak_phase']} | {a['parameters'] / GIB:.2f} | "
                    f"{a['gradients'] / GIB:.2f} | {a['optimizer_states'] / GIB:.2f} | "
                    f"{a['activations_and_temporaries'] / GIB:.2f} |")
    return "\n".join(rows)


def main() -> None:
    traces = load(HERE / "traces.jsonl")
    print("## Trace vs H200 max_memory_allocated\n")
    print(h200_table(traces))
    print(f"\n## All cases ({len(traces)})\n")
    print(case_table(traces))


if __name__ == "__main__":
    main()
