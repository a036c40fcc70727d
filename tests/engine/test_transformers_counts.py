"""Parameter and LoRA counts against the models transformers 5.24 and PEFT 0.21.2 build from the same configs.

The numbers in data/transformers_counts.json were recorded with ``python -m calibration.counts`` in the dev venv
(meta-device models, nothing allocated); these tests import the same configs with the engine and compare exactly.
"""

import json
from pathlib import Path

import pytest

from engine.hf_import import spec_from_config
from engine.params import count_params, lora_params
from engine.specs import LoraTargets

DATA = json.loads((Path(__file__).parent / "data" / "transformers_counts.json").read_text())
ROWS = DATA["models"]


def test_recorded_with_the_versions_the_docs_name():
    assert (DATA["transformers"], DATA["peft"]) == ("5.24.0", "0.21.2")
    assert len(ROWS) >= 40


@pytest.mark.parametrize("row", ROWS, ids=lambda r: r["id"])
def test_total_equals_the_model_transformers_builds(row):
    m = spec_from_config(row["config"], row["id"])
    assert count_params(m).total == row["total_params"]


@pytest.mark.parametrize("row", ROWS, ids=lambda r: r["id"])
@pytest.mark.parametrize("targets", list(LoraTargets), ids=str)
def test_lora_trainable_equals_peft(row, targets):
    m = spec_from_config(row["config"], row["id"])
    assert lora_params(m, 16, targets) == row["lora_r16"][targets.value]
