"""``python -m engine models``: the bundled catalog with exact parameter counts; ``--local``: the models already in
this computer's Hugging Face cache (engine.catalog.local)."""

from __future__ import annotations

import argparse
from typing import Any

from engine.catalog import model_source, models
from engine.params import count_params
from engine.units import format_count


def register(sub: Any) -> None:
    p = sub.add_parser("models", help="list the bundled models and their parameter counts")
    p.add_argument("--json", action="store_true", help="print JSON")
    p.add_argument("--local", action="store_true", help="list the models in the local Hugging Face cache instead")
    p.set_defaults(handler=run)


def run_local() -> tuple[dict[str, Any], str]:
    """The cached models: ``{"cache": folder, "models": [{"id", "hf_repo", "path", "total_params", ...}]}``."""
    from engine.catalog.local import cache_dir, local_models

    found = local_models()
    rows = [m.as_dict() for m in found]
    lines = [
        f"{m.repo:<40} {format_count(m.spec.published_params) if m.spec and m.spec.published_params else '-':>8}"
        + (f"  ({m.error})" if m.error else "")
        for m in found
    ]
    text = "\n".join(lines) if lines else f"no models in the Hugging Face cache ({cache_dir()})"
    return {"cache": str(cache_dir()), "models": rows}, text


def run(args: argparse.Namespace) -> tuple[dict[str, Any], str]:
    if getattr(args, "local", False):
        return run_local()
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
                "source": model_source(m.id).model_dump(mode="json", exclude_defaults=True),
                "architecture": m.model_dump(mode="json", exclude={"id", "name", "family", "hf_repo"}),
            }
        )
    text = "\n".join(f"{m.id:<30} {format_count(count_params(m).total):>8}  {m.label}" for m in models())
    return {"models": rows}, text
