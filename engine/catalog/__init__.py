"""The bundled catalogs of models and GPUs (data files inside the package, read offline).

``get_model`` accepts a catalog id (``llama-2-7b``) or the Hugging Face repository name as an alias
(``meta-llama/Llama-2-7b-hf``), case-insensitively.
"""

from __future__ import annotations

import json
from functools import cache
from importlib import resources

from engine.specs import GpuSpec, ModelSpec

#: The seed guide's defaults, used wherever no model or GPU is named (the CLI, the GUI's first scenario).
DEFAULT_MODEL = "llama-2-7b"
DEFAULT_GPU = "a100-80gb"


class CatalogError(LookupError):
    """An id that names no bundled model or GPU."""


def _read(name: str) -> dict[str, object]:
    text = resources.files("engine.catalog").joinpath(name).read_text(encoding="utf-8")
    data: dict[str, object] = json.loads(text)
    return data


@cache
def models() -> tuple[ModelSpec, ...]:
    """Every bundled model, in catalog order (grouped by family)."""
    raw = _read("models.json")["models"]
    assert isinstance(raw, list)
    return tuple(ModelSpec.model_validate(d) for d in raw)


@cache
def gpus() -> tuple[GpuSpec, ...]:
    """Every bundled GPU, smallest memory first."""
    raw = _read("gpus.json")["gpus"]
    assert isinstance(raw, list)
    return tuple(sorted((GpuSpec.model_validate(d) for d in raw), key=lambda g: g.memory_bytes))


@cache
def _model_index() -> dict[str, ModelSpec]:
    index: dict[str, ModelSpec] = {}
    for m in models():
        index[m.id.lower()] = m
        if m.hf_repo:
            index[m.hf_repo.lower()] = m
    return index


def get_model(name: str) -> ModelSpec:
    """A bundled model by catalog id or Hugging Face repository name."""
    try:
        return _model_index()[name.strip().lower()]
    except KeyError:
        ids = ", ".join(m.id for m in models())
        raise CatalogError(f"unknown model {name!r}; known: {ids}") from None


def get_gpu(name: str) -> GpuSpec:
    for g in gpus():
        if name.strip().lower() in (g.id, g.name.lower()):
            return g
    raise CatalogError(f"unknown GPU {name!r}; known: {', '.join(g.id for g in gpus())}")
