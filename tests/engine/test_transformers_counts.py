"""Parameter and LoRA counts against the models transformers 5.24 and PEFT 0.21.2 build from the same configs.

The numbers in data/transformers_counts.json were recorded with ``python -m calibration.counts`` in the dev venv
(meta-device models, nothing allocated). Rows of configs we wrote (the calibration catalog, the catalog models of
calibration/catalog_configs.py, the ``probe-*`` family probes) keep their ``config``: the engine imports it again
here. Rows of published configs (kept outside the repository) have none: the catalog entry of the same id, which
the engine's importer made from that config (engine/catalog/models_hf.json), is compared instead.
"""

import json
from pathlib import Path
from typing import Any

import pytest

from engine.catalog import get_model, model_ids
from engine.hf_import import spec_from_config
from engine.params import count_params, lora_params
from engine.specs import LoraTargets, ModelSpec

DATA = json.loads((Path(__file__).parent / "data" / "transformers_counts.json").read_text())
ROWS = DATA["models"]
OURS = [r for r in ROWS if "config" in r]
CATALOG = [r for r in ROWS if r["id"] in set(model_ids())]
#: the target sets PEFT was run with (calibration/counts.py: all-linear, attention, qv); torchtune's qvo-mlp is
#: checked by hand and against torchtune's traces (tests/engine/training/test_stack_rules.py)
RECORDED = [t for t in LoraTargets if t.value in ROWS[0]["lora_r16"]]


def test_recorded_with_the_versions_the_docs_name():
    assert (DATA["transformers"], DATA["peft"]) == ("5.24.0", "0.21.2")
    assert len(ROWS) >= 40
    assert {t.value for t in RECORDED} == {"all-linear", "attention", "qv"}


def test_a_row_without_its_config_is_a_catalog_model():
    """A published config is not in the repository: its row must be checkable through the catalog."""
    bare = [r["id"] for r in ROWS if "config" not in r]
    assert len(bare) >= 30
    assert set(bare) <= set(model_ids())


def test_no_probe_or_reduced_config_is_a_published_one():
    """Every config kept is one of ours: probes, or the calibration and catalog configs (no ``architectures``,
    ``torch_dtype`` or ``transformers_version``, which a published config.json carries)."""
    published_keys = {"architectures", "torch_dtype", "transformers_version", "_name_or_path"}
    for row in OURS:
        inner = row["config"].get("text_config", {})
        assert not published_keys & (set(row["config"]) | set(inner)), row["id"]


def _spec(row: dict[str, Any]) -> ModelSpec:
    return spec_from_config(row["config"], row["id"])


@pytest.mark.parametrize("row", OURS, ids=lambda r: r["id"])
def test_total_equals_the_model_transformers_builds(row):
    assert count_params(_spec(row)).total == row["total_params"]


@pytest.mark.parametrize("row", OURS, ids=lambda r: r["id"])
@pytest.mark.parametrize("targets", RECORDED, ids=str)
def test_lora_trainable_equals_peft(row, targets):
    assert lora_params(_spec(row), 16, targets) == row["lora_r16"][targets.value]


@pytest.mark.parametrize("row", CATALOG, ids=lambda r: r["id"])
def test_the_catalog_entry_counts_what_transformers_builds(row):
    assert count_params(get_model(row["id"])).total == row["total_params"]


@pytest.mark.parametrize("row", CATALOG, ids=lambda r: r["id"])
@pytest.mark.parametrize("targets", RECORDED, ids=str)
def test_the_catalog_entry_lora_equals_peft(row, targets):
    assert lora_params(get_model(row["id"]), 16, targets) == row["lora_r16"][targets.value]
