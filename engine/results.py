"""Typed results: a number of bytes that carries its formula and its source, so a tooltip can show why."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field


class Term(BaseModel):
    """One named share of memory."""

    model_config = ConfigDict(frozen=True)

    name: str  # weights, gradients, optimizer_states, activations, logits, sharding_buffers, temporaries
    bytes: int = Field(ge=0)
    formula: str
    source: str
    detail: str = ""  # e.g. "trainable 40.0M fp32 + frozen 6.74B bf16"


def term_bytes(terms: list[Term]) -> dict[str, int]:
    """Name -> bytes, summing terms that share a name."""
    out: dict[str, int] = {}
    for t in terms:
        out[t.name] = out.get(t.name, 0) + t.bytes
    return out
