"""``python -m engine models``: the bundled catalog with exact parameter counts."""

from __future__ import annotations

import argparse
from typing import Any

from engine.catalog import models
from engine.params import count_params
from engine.units import format_count


def register(sub: Any) -> None:
    p = sub.add_parser("models", help="list the bundled models and their parameter counts")
    p.add_argument("--json", action="store_true", help="print JSON")
    p.set_defaults(handler=run)


def run(args: argparse.Namespace) -> tuple[dict[str, Any], str]:
    rows = []
    for m in models():
        pc = count_params(m)
        rows.append(
            {
                "id": m.id,
                "name": m.label,
                "family": m.family,
                "hf_repo": m.hf_repo,
                "total_params": pc.total,
                "non_embedding_params": pc.non_embedding,
                "published_params": m.published_params,
                "architecture": m.model_dump(mode="json", exclude={"id", "name", "family", "hf_repo"}),
            }
        )
    text = "\n".join(f"{m.id:<20} {format_count(count_params(m).total):>8}  {m.label}" for m in models())
    return {"models": rows}, text
