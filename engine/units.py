"""Byte units, named once: decimal GB (what GPU vendors print) and binary GiB (what PyTorch reports)."""

from __future__ import annotations

from enum import StrEnum

KIB = 1 << 10
MIB = 1 << 20
GIB = 1 << 30
GB = 10**9


class Unit(StrEnum):
    GB = "GB"
    GIB = "GiB"

    @property
    def size(self) -> int:
        return GB if self is Unit.GB else GIB


def to_unit(n_bytes: float, unit: Unit) -> float:
    return n_bytes / unit.size


def format_bytes(n_bytes: float, unit: Unit = Unit.GB, digits: int = 2) -> str:
    """``53.92 GB`` / ``50.22 GiB``; small values fall back to MB / MiB so that nothing shows as 0.00."""
    if abs(n_bytes) < unit.size / 10 and n_bytes:
        small, name = (10**6, "MB") if unit is Unit.GB else (MIB, "MiB")
        return f"{n_bytes / small:,.{digits if abs(n_bytes) < small else 1}f} {name}"
    return f"{n_bytes / unit.size:,.{digits}f} {unit.value}"


def format_count(n: int) -> str:
    """Parameter counts as people say them: 6.74B, 39.98M, 124.4M."""
    for size, suffix in ((10**12, "T"), (10**9, "B"), (10**6, "M"), (10**3, "K")):
        if abs(n) >= size:
            return f"{n / size:.2f}{suffix}"
    return str(n)
