"""The stored example configs (tests/fixtures/training_configs, SOURCES.md) and how a test imports one alone."""

from __future__ import annotations

from pathlib import Path

from engine.catalog import get_model
from engine.config_import import ImportedConfig, import_configs

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "training_configs"
#: fixtures whose model is given explicitly: the file names one the catalog lacks, or a placeholder path (/model)
GIVEN = {"bloom-1b1-sft-full.json": "llama-2-7b", "final_best_8b_dpo_config.yaml": "llama-3.1-8b"}


def import_alone(path: Path) -> ImportedConfig:
    """``path`` with the files it names; Llama 2 7B where it names no model."""
    model = get_model(GIVEN[path.name]) if path.name in GIVEN else None
    return import_configs([path], model=model, default_model=get_model("llama-2-7b"))
