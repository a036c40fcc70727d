"""Every catalog config (engine/catalog/hf_configs) imports, with its parameter count equal to the published
checkpoint total where one is known (within 0.1%), or is refused by name."""

import json
from pathlib import Path

import pytest

from engine.hf_import import RefusedLayerError, spec_from_config
from engine.params import count_params

FOLDER = Path(__file__).resolve().parents[2] / "engine" / "catalog" / "hf_configs"
ENTRIES = [json.loads(p.read_text()) for p in sorted(FOLDER.glob("*.json"))]


REFUSED = {"qwen3_next", "qwen3_5", "qwen3_5_moe", "nemotron_h", "deepseek_v32", "glm_moe_dsa", "gemma4"}


@pytest.mark.parametrize("entry", ENTRIES, ids=lambda e: e["id"])
def test_catalog_config_imports_or_is_refused_by_name(entry):
    where = f"hf_configs/{entry['id']}.json"
    if entry["config"].get("model_type") in REFUSED:
        with pytest.raises(RefusedLayerError, match="which the engine cannot cost yet"):
            spec_from_config(entry["config"], entry["id"], where)
        return
    m = spec_from_config(entry["config"], entry["id"], where)
    assert count_params(m).total > 0
    if entry.get("published_params"):
        assert count_params(m).total == pytest.approx(entry["published_params"], rel=1e-3)
