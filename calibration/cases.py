"""The calibration cases."""

from __future__ import annotations

from typing import Any


def case(model: str, method: str = "full", precision: str = "bf16", batch: int = 1, seq_len: int = 2048,
         attention: str = "sdpa", checkpointing: str = "none", lora: str | None = None,
         case_id: str | None = None) -> dict[str, Any]:
    rank, alpha, dropout, targets = {None: (None, None, None, None), "r16": (16, 32, 0.0, "all-linear"),
                                     "r8": (8, 16, 0.0, "qv"),
                                     "r16-d05": (16, 32, 0.05, "all-linear")}[lora]
    return {"id": case_id or f"{model}-{method}", "model": model, "method": method, "precision": precision,
            "optimizer": "adamw", "batch": batch, "seq_len": seq_len, "attention": attention,
            "checkpointing": checkpointing, "lora_rank": rank, "lora_alpha": alpha, "lora_dropout": dropout,
            "lora_targets": targets}


CASES = [case("gpt2", seq_len=512, case_id="t1"), case("gpt2", "lora", seq_len=512, lora="r16", case_id="t2")]


def case_by_id(case_id: str) -> dict[str, Any]:
    for c in CASES:
        if c["id"] == case_id:
            return c
    raise KeyError(f"no case {case_id!r}; see --list")
