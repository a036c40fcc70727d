"""``python -m engine gpus``: the bundled GPU catalog."""

from __future__ import annotations

import argparse
from typing import Any

from engine.catalog import gpus
from engine.units import Unit, format_bytes


def register(sub: Any) -> None:
    p = sub.add_parser("gpus", help="list the bundled GPUs and their memory")
    p.add_argument("--json", action="store_true", help="print JSON")
    p.set_defaults(handler=run)


def run(args: argparse.Namespace) -> tuple[dict[str, Any], str]:
    rows = [g.model_dump(mode="json") for g in gpus()]
    text = "\n".join(f"{g.id:<18} {format_bytes(g.memory_bytes, Unit.GIB):>12}  {g.memory_kind:<8} {g.name}"
                     for g in gpus())
    return {"gpus": rows}, text
