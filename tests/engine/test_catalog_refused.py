"""Known models the engine refuses (engine/catalog/refused.json): named with the layer kind it cannot cost, never
called unknown, never shadowing a catalog model; and the models the swept training configs name, in the catalog."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from importlib import resources

import pytest

from engine.catalog import CatalogError, get_model, model_source, models, refused_model, refused_models
from engine.hf_families import REFUSED
from engine.params import count_params

README = resources.files("engine.catalog").joinpath("README.md").read_text(encoding="utf-8")


@pytest.mark.parametrize("r", refused_models(), ids=lambda r: r.name)
def test_each_entry_has_a_reason_and_its_pattern_means_its_repositories(r) -> None:
    assert r.model_type in REFUSED
    assert r.source.strip()
    for repo in r.repos:
        assert refused_model(repo) == r, repo
    for builder in r.builders:
        assert refused_model(builder) == r


def test_no_catalog_name_is_refused() -> None:
    """Every catalog id, repository and alias stays the catalog's, and no pattern matches one (so a pattern cannot
    hide a catalog model behind a refusal if the lookup order ever changes)."""
    for m in models():
        names = [m.id, *(n for n in [m.hf_repo] if n), *model_source(m.id).aliases]
        for name in names:
            assert refused_model(name) is None
            short = name.rsplit("/", 1)[-1].lower()
            assert not [r.name for r in refused_models() if re.search(r.pattern, short)], name


@pytest.mark.parametrize("name", ["tiiuae/Falcon3-7B-Base", "microsoft/Phi-3-mini-4k-instruct",
                                  "microsoft/phi-4", "google/gemma-3-27b-it", "Qwen/Qwen3-8B"])
def test_neighbours_of_refused_families_are_not_refused(name: str) -> None:
    """Falcon 3 is a Llama, Phi-3 / Phi-4 sequential, Gemma 3 and Qwen3 costed."""
    assert refused_model(name) is None


def test_the_readme_table_lists_every_refused_model() -> None:
    table = README.split("## Known models the engine refuses", 1)[1]
    for r in refused_models():
        assert r.name in table, r.name
        assert r.repos[0] in table, r.repos[0]


def test_the_cli_refuses_by_name_in_one_line() -> None:
    r = subprocess.run([sys.executable, "-m", "engine", "estimate", "--model", "tiiuae/falcon-7b"],
                       capture_output=True, text=True, timeout=60, check=False)
    assert r.returncode == 2
    assert "Traceback" not in r.stderr
    assert len(r.stderr.strip().splitlines()) == 1
    assert "is Falcon 7B / 40B / 180B, which has parallel attention and MLP blocks" in r.stderr
    assert "unknown model" not in r.stderr


def test_get_model_says_why_not_unknown() -> None:
    with pytest.raises(CatalogError, match=r"Llama 3\.2 Vision 11B / 90B, which has cross-attention layers"):
        get_model("meta-llama/Llama-3.2-11B-Vision-Instruct")
    with pytest.raises(CatalogError, match="unknown model"):
        get_model("someorg/Some-Model-7B")


#: the models of the sweep of the six tools' example configs (issue 16) that the catalog now holds, with the
#: parameter total of the published checkpoint or model card where it is well known (a check, independent of the
#: transformers counts that tests/engine/test_transformers_counts.py compares every entry with)
SWEPT = {
    "qwen2-0.5b": 494_032_768, "qwen2-1.5b": 1_543_714_304, "qwen2-7b": 7_615_616_512,
    "qwen2.5-1.5b": 1_543_714_304, "gemma-2b": 2_506_172_416, "gemma-7b": 8_537_680_896,
    "tinyllama-1.1b": 1_100_048_384, "codellama-7b": 6_738_546_688, "codellama-34b": 33_743_970_304,
    "qwen1.5-moe-a2.7b": 14_315_784_192, "stablelm-2-1.6b": 1_644_515_328, "mistral-7b-v0.2": 7_241_732_096,
    "yi-34b": 34_388_917_248, "cogito-v1-preview-qwen-14b": 14_765_947_904,
}


@pytest.mark.parametrize(("model_id", "total"), SWEPT.items(), ids=list(SWEPT))
def test_the_swept_models_are_counted(model_id: str, total: int) -> None:
    assert count_params(get_model(model_id)).total == total
    assert model_source(model_id).total_params == total


def test_the_models_listing_shows_them() -> None:
    r = subprocess.run([sys.executable, "-m", "engine", "models", "--json"], capture_output=True, text=True,
                       timeout=60, check=True)
    listed = {m["id"]: m for m in json.loads(r.stdout)["models"]}
    for model_id in [*SWEPT, "codellama-13b", "open-llama-3b", "qwen2-vl-7b", "qwen2.5-vl-7b", "llava-1.5-7b",
                     "smollm2-1.7b", "smollm-360m"]:
        assert model_id in listed, model_id
    assert listed["qwen2-vl-7b"]["family"] == "Qwen2-VL"
    assert listed["gemma-7b"]["family"] == "Gemma"
