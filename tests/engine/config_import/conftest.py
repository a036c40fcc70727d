"""Helpers for the config_import tests: write a config into a temporary folder and import it."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from engine.catalog import get_model
from engine.config_import import ImportedConfig, import_configs

Importer = Callable[..., ImportedConfig]


@pytest.fixture
def imported(tmp_path: Path) -> Importer:
    """``imported({"name.yaml": text, ...}, **options)`` writes the files into a temporary folder and imports them,
    in order (``given=[names]``: only those; the others are there to be named). The model defaults to Llama 2 7B
    when the files name none."""

    def run(files: dict[str, str], given: list[str] | None = None, **options: Any) -> ImportedConfig:
        paths = []
        for name, text in files.items():
            path = tmp_path / name
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text, encoding="utf-8")
            if given is None or name in given:
                paths.append(path)
        options.setdefault("default_model", get_model("llama-2-7b"))
        return import_configs(paths, **options)

    return run
