"""Typed results: a number of bytes that carries its formula and its source, so a tooltip can show why.

Results are frozen dataclasses rather than pydantic models: an estimate builds a dozen of them and must stay
well under 50 microseconds (``bench/engine_speed.py``); inputs stay pydantic, where validation matters.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import asdict, dataclass
from typing import Any


@dataclass(frozen=True, slots=True)
class Term:
    """One named share of memory, with the formula that produced it and where that formula comes from."""

    name: str  # weights, gradients, optimizer_states, activations, logits, sharding_buffers, temporaries
    bytes: int
    formula: str
    source: str
    detail: str = ""
    share: float = 0.0  # of the total these terms sum to

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


def with_shares(terms: Iterable[Term]) -> tuple[Term, ...]:
    """The terms with each ``share`` set to its bytes over their sum."""
    listed = tuple(terms)
    total = sum(t.bytes for t in listed) or 1
    return tuple(Term(t.name, t.bytes, t.formula, t.source, t.detail, t.bytes / total) for t in listed)


def term_bytes(terms: tuple[Term, ...] | list[Term]) -> dict[str, int]:
    """Name -> bytes, summing terms that share a name."""
    out: dict[str, int] = {}
    for t in terms:
        out[t.name] = out.get(t.name, 0) + t.bytes
    return out
