"""The catalog's sources (engine/catalog/README.md): every imported model names the public config it comes from;
our own configs import to exactly the stored entry; no config file ships; refused models are not entries."""

from __future__ import annotations

import json
import re
from importlib import resources

import pytest

from calibration.catalog_configs import ENTRIES
from engine.catalog import CatalogSource, families, get_model, model_ids, model_source, models
from engine.hf_import import spec_from_config
from engine.specs import ModelSpec

FOLDER = resources.files("engine.catalog")
IMPORTED = [m for m in models() if m.layers is not None]


def test_the_catalog_holds_sixty_models_or_more_with_sources() -> None:
    assert len(models()) >= 60
    assert len(IMPORTED) >= 60 - 24
    assert all(model_source(m.id).config for m in IMPORTED)


@pytest.mark.parametrize("m", IMPORTED, ids=lambda m: m.id)
def test_an_imported_model_names_the_config_of_its_repository(m: ModelSpec) -> None:
    source = model_source(m.id)
    repos = [r.lower() for r in (m.hf_repo or "", *source.aliases)]
    url = source.config.lower()
    assert url.startswith("https://huggingface.co/")
    assert url.endswith("/blob/main/config.json")
    assert url.removeprefix("https://huggingface.co/").removesuffix("/blob/main/config.json") in repos
    assert source.read_from.strip()
    assert m.family in families()


@pytest.mark.parametrize("model_id", sorted(ENTRIES))
def test_our_own_configs_import_to_the_stored_entry(model_id: str) -> None:
    """The entry is what the engine's importer makes of the config (only the catalog's own fields differ)."""
    stored = get_model(model_id)
    imported = spec_from_config(ENTRIES[model_id]["config"], model_id)
    keep = {"name", "family", "hf_repo", "notes", "published_params"}
    assert imported.model_copy(update={k: getattr(stored, k) for k in keep}) == stored


def test_a_multimodal_language_model_says_its_vision_tower_is_not_counted() -> None:
    for model_id in ("gemma-3-27b", "qwen3-vl-8b", "llama-4-scout"):
        assert any("vision tower" in n for n in get_model(model_id).notes), model_id
    assert not any("vision tower" in n for n in get_model("qwen3-8b").notes)


def test_no_config_file_ships() -> None:
    """The repository holds our entries, never a published config.json (engine/catalog/README.md)."""
    names = [f.name for f in FOLDER.iterdir()]
    assert "hf_configs" not in names
    for name in ("models.json", "models_hf.json"):
        text = FOLDER.joinpath(name).read_text(encoding="utf-8")
        assert '"architectures"' not in text
        assert '"num_hidden_layers"' not in text


def test_a_source_object_rejects_unknown_keys() -> None:
    with pytest.raises(ValueError, match="extra"):
        CatalogSource.model_validate({"config": "x", "licence": "y"})


def test_the_readme_lists_the_refused_models_and_none_is_an_entry() -> None:
    readme = FOLDER.joinpath("README.md").read_text(encoding="utf-8")
    refused = readme.split("## Known models the engine refuses", 1)[1]
    repos = re.findall(r"\| ([\w.-]+/[\w.*-]+) \|", refused)
    assert len(repos) >= 6
    known = {m.hf_repo.lower() for m in models() if m.hf_repo}
    assert not {r.lower() for r in repos} & known
    for word in ("DeepSeek-V3.2", "GLM-5", "Falcon-H1", "Gemma 4"):
        assert word in refused
    assert not {"deepseek-v3.2", "glm-5", "gemma-4-26b-a4b", "falcon-h1-7b"} & set(model_ids())


def test_the_file_lists_entries_in_catalog_order() -> None:
    """models_hf.json is written grouped by family then by size, so a diff of a regeneration reads well."""
    rows = json.loads(FOLDER.joinpath("models_hf.json").read_text(encoding="utf-8"))["models"]
    rank = {f: i for i, f in enumerate(families())}
    keys = [(rank[r["family"]], r["source"]["total_params"]) for r in rows]
    assert keys == sorted(keys)
