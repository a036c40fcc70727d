"""The bundled catalogs of models and GPUs (data files inside the package, read offline).

Models come from two files, loaded the same way (see ``README.md`` beside them):

* ``models.json``: the original catalog, architectures written out field by field;
* ``models_hf.json``: models whose architecture the engine's own importer (:mod:`engine.hf_import`) read from
  their published Hugging Face ``config.json``, stored as :class:`ModelSpec` dumps with their layer lists
  (``tools/catalog_import.py`` writes it; no config file ships).

Each entry is a :class:`ModelSpec` plus an optional ``source`` object (:class:`CatalogSource`): the config's
public URL, the aliases it answers to, and its parameter total with where that number comes from. ``models()``
lists both files grouped by family, in the order of ``models.json``'s ``families``, smallest model first.

``get_model`` accepts a catalog id (``llama-2-7b``), the Hugging Face repository name (``meta-llama/Llama-2-7b-hf``)
or a common alias (``meta-llama/Meta-Llama-3.1-8B``), case-insensitively; a model the engine refuses
(``refused.json``: Llama 3.2 Vision, Falcon, Mamba, ...) is refused with the layer kind it cannot cost; any
other unknown name gets the closest known names (``difflib``) and a hint to pass the model's own config with
``--config``. ``get_gpu`` accepts an id, a name, or a shorthand (``rtx4090``, ``H100``) that names one GPU; a
shorthand that fits several lists them.
"""

from __future__ import annotations

import difflib
import json
import re
from functools import cache
from importlib import resources
from typing import Annotated

from pydantic import BaseModel, ConfigDict, Field

from engine.hf_families import REFUSED
from engine.specs import GpuSpec, ModelSpec

#: The seed guide's defaults, used wherever no model or GPU is named (the CLI, the GUI's first scenario).
DEFAULT_MODEL = "llama-2-7b"
DEFAULT_GPU = "a100-80gb"
#: the model files, in catalog order
MODEL_FILES = ("models.json", "models_hf.json")
#: how many close matches an unknown name is answered with
SUGGESTIONS = 5


class CatalogError(LookupError):
    """An id that names no bundled model or GPU."""


class CatalogSource(BaseModel):
    """Where a catalog model comes from: the entry's ``source`` object (all optional for ``models.json``)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    #: the public URL of the config.json the architecture comes from
    config: str = ""
    #: where its numbers were actually read (a public copy of the file, or the public text our config was written
    #: from: calibration/catalog_configs.py)
    read_from: str = ""
    #: other names that mean this model (Hugging Face repositories of its variants, short names)
    aliases: tuple[str, ...] = ()
    #: why an alias that is a fine-tune or another version keeps this architecture (where it is not obvious)
    alias_source: str = ""
    #: the model's parameter total, exact: a published total (safetensors index) or what transformers builds
    total_params: Annotated[int, Field(ge=1)] | None = None
    #: where ``total_params`` comes from, in words, with its URL or file
    total_params_source: str = ""
    #: a model card's rounded figure (``"8.2B"``): a check on the total, never a count
    card_params: str = ""
    card_source: str = ""


class RefusedModel(BaseModel):
    """A known model the engine refuses (an entry of ``refused.json``): its layers are a kind it cannot cost."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    name: str
    #: the model_type whose reason engine/hf_families.py ``REFUSED`` gives
    model_type: str
    #: a regular expression over the repository part of a name, in lower case (``^falcon-(7b|40b|180b|rw-)``)
    pattern: str
    #: Hugging Face repositories it means (examples, and what the tests check the pattern against)
    repos: tuple[str, ...]
    #: torchtune model builders that build it (``llama3_2_vision_11b``; ``lora_`` / ``qlora_`` prefixes dropped)
    builders: tuple[str, ...] = ()
    #: where the architecture was read
    source: str

    @property
    def why(self) -> str:
        """The layer kind the engine cannot cost (engine/hf_families.py REFUSED)."""
        return REFUSED[self.model_type]


@cache
def _read(name: str) -> dict[str, object]:
    text = resources.files("engine.catalog").joinpath(name).read_text(encoding="utf-8")
    data: dict[str, object] = json.loads(text)
    return data


def _entry(d: dict[str, object]) -> tuple[ModelSpec, CatalogSource]:
    fields = dict(d)
    source = CatalogSource.model_validate(fields.pop("source", {}))
    return ModelSpec.model_validate(fields), source


@cache
def families() -> tuple[str, ...]:
    """The order of the model families (``models.json``'s ``families``): the model picker's groups."""
    order = _read("models.json")["families"]
    assert isinstance(order, list)
    return tuple(str(f) for f in order)


def _size(m: ModelSpec, source: CatalogSource) -> int:
    """A model's size, only to order a family's models: its stated total, else 12 x layers x hidden² (the
    transformer blocks' weights when the MLP is 4 x hidden wide; Kaplan et al. 2020, arXiv:2001.08361, table 1)."""
    return m.published_params or source.total_params or 12 * m.num_layers * m.hidden_size**2


@cache
def _catalog() -> tuple[tuple[ModelSpec, CatalogSource], ...]:
    """Every entry of both files, grouped by family (``families()``; a family it lacks goes last), smallest first."""
    rows: list[tuple[ModelSpec, CatalogSource]] = []
    for name in MODEL_FILES:
        raw = _read(name)["models"]
        assert isinstance(raw, list)
        rows += [_entry(d) for d in raw]
    rank = {f: i for i, f in enumerate(families())}
    return tuple(sorted(rows, key=lambda r: (rank.get(r[0].family, len(rank)), _size(*r))))


@cache
def models() -> tuple[ModelSpec, ...]:
    """Every catalog model, grouped by family."""
    return tuple(m for m, _ in _catalog())


def model_source(model_id: str) -> CatalogSource:
    """The ``source`` of a catalog id (an empty one where the entry has none)."""
    found = next((s for m, s in _catalog() if m.id == model_id), None)
    if found is None:
        raise CatalogError(unknown_model_message(model_id))
    return found


@cache
def gpus() -> tuple[GpuSpec, ...]:
    """Every bundled GPU, smallest memory first."""
    raw = _read("gpus.json")["gpus"]
    assert isinstance(raw, list)
    return tuple(sorted((GpuSpec.model_validate(d) for d in raw), key=lambda g: g.memory_bytes))


def _key(name: str) -> str:
    return name.strip().lower()


@cache
def _model_names() -> dict[str, str]:
    """Every accepted model name, lower-cased, to its catalog id (an id or repository wins over an alias)."""
    names: dict[str, str] = {}
    for m, source in _catalog():
        for alias in source.aliases:
            names.setdefault(_key(alias), m.id)
    for m in models():
        names[_key(m.id)] = m.id
        if m.hf_repo:
            names[_key(m.hf_repo)] = m.id
    return names


def model_ids() -> tuple[str, ...]:
    """Every catalog id, in catalog order."""
    return tuple(m.id for m in models())


def _close(key: str, names: dict[str, str]) -> list[str]:
    """Up to SUGGESTIONS catalog ids whose names are close to ``key`` (difflib, then a substring match)."""
    found: list[str] = []
    for name in difflib.get_close_matches(key, list(names), n=SUGGESTIONS * 3, cutoff=0.6):
        if names[name] not in found:
            found.append(names[name])
    for name, target in names.items():
        if key and key in name and target not in found:
            found.append(target)
    return found[:SUGGESTIONS]


def resolve_model_id(name: str) -> str | None:
    """The catalog id a name, HF repository or alias means (case-insensitive), or None."""
    return _model_names().get(_key(name))


def get_model(name: str) -> ModelSpec:
    """A catalog model by id, Hugging Face repository name or alias (see module docstring)."""
    model_id = resolve_model_id(name)
    if model_id is None:
        refused = refused_model(name)
        raise CatalogError(unknown_model_message(name) if refused is None else refused_model_message(name, refused))
    return next(m for m in models() if m.id == model_id)


@cache
def refused_models() -> tuple[RefusedModel, ...]:
    """The known models the engine refuses (``refused.json``)."""
    raw = _read("refused.json")["models"]
    assert isinstance(raw, list)
    return tuple(RefusedModel.model_validate(d) for d in raw)


def refused_model(name: str) -> RefusedModel | None:
    """The refused model a name means (its repository part, owner dropped: ``LnL-AI/dbrx-base-converted-v2``,
    ``/tmp/Llama-3.2-11B-Vision-Instruct/``; or a torchtune builder), or None. A catalog name is never refused
    (checked first)."""
    if resolve_model_id(name) is not None:
        return None
    short = name.strip().rstrip("/").rsplit("/", 1)[-1].lower()
    return next((r for r in refused_models() if re.search(r.pattern, short) or short in r.builders), None)


def refused_model_message(name: str, refused: RefusedModel) -> str:
    """One line for a refused model: what it is and the layer kind the engine cannot cost."""
    return (f"{name.strip()!r} is {refused.name}, which has {refused.why}: the engine cannot cost that yet "
            "(engine/catalog/README.md lists the models it refuses)")


def unknown_model_message(name: str) -> str:
    """One line for a name the catalog does not know: the closest names, and how to bring the model in."""
    close = _close(_key(name), _model_names())
    hint = f"; did you mean {', '.join(close)}?" if close else "."
    how = (
        " For a Hugging Face model the catalog does not know, give its config.json with --config "
        "(a file, its folder, or its folder in the Hugging Face cache)."
    )
    return f"unknown model {name.strip()!r}{hint}" + how


def _squash(text: str) -> str:
    """A GPU name reduced to letters and digits (``RTX 4090 24 GB`` -> ``rtx409024gb``)."""
    return re.sub(r"[^a-z0-9]", "", text.lower())


def get_gpu(name: str) -> GpuSpec:
    """A bundled GPU by id or name; a shorthand (``rtx4090``, ``H100``) is accepted when it fits one GPU only."""
    key, squashed = _key(name), _squash(name)
    for g in gpus():
        spelled = (g.id, g.name, *g.aliases)
        if key in (n.lower() for n in spelled) or (squashed and squashed in (_squash(n) for n in spelled)):
            return g
    starts = [g for g in gpus() if squashed and any(_squash(n).startswith(squashed) for n in (g.id, g.name))]
    if len(starts) == 1:
        return starts[0]
    if len(starts) > 1:
        ids = ", ".join(g.id for g in starts)
        raise CatalogError(f"GPU {name.strip()!r} fits several: {ids}; name one of them")
    names = {g.id: g.id for g in gpus()} | {_squash(g.name): g.id for g in gpus()}
    close = _close(squashed or key, names)
    hint = f"; did you mean {', '.join(close)}?" if close else ""
    raise CatalogError(f"unknown GPU {name.strip()!r}{hint} (known: {', '.join(g.id for g in gpus())})")
