"""Every catalog model's parameter count equals the total its entry states, exactly: a published total (a
safetensors index's ``metadata.total_size`` over the dtype's bytes) where one was found, else the count of the
model transformers 5.24 builds from the same config; model cards' rounded figures agree to their rounding."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from engine.catalog import CatalogSource, model_source, models
from engine.params import count_params
from engine.specs import ModelSpec

COUNTS = {r["id"]: r["total_params"] for r in json.loads(
    (Path(__file__).parent / "data" / "transformers_counts.json").read_text())["models"]}
STATED = [m for m in models() if model_source(m.id).total_params is not None]


def test_every_imported_model_states_its_total() -> None:
    assert len(STATED) >= 60 - 24
    assert all(m.layers is not None for m in STATED)


@pytest.mark.parametrize("m", STATED, ids=lambda m: m.id)
def test_the_count_equals_the_stated_total(m: ModelSpec) -> None:
    source = model_source(m.id)
    assert count_params(m).total == source.total_params
    if m.published_params is not None:
        assert m.published_params == source.total_params
        assert "safetensors" in source.total_params_source
        assert f"https://huggingface.co/{m.hf_repo}/blob/main/model.safetensors.index.json" in (
            source.total_params_source)
    else:
        assert "transformers 5.24" in source.total_params_source
        assert COUNTS[m.id] == source.total_params


@pytest.mark.parametrize("m", [m for m in models() if m.published_params], ids=lambda m: m.id)
def test_a_published_total_is_met_exactly(m: ModelSpec) -> None:
    assert count_params(m).total == m.published_params


def _bytes_and_divisor(source: CatalogSource) -> tuple[int, int]:
    found = re.search(r"([\d,]{9,}) bytes / (\d)", source.total_params_source)
    assert found, source.total_params_source
    return int(found.group(1).replace(",", "")), int(found.group(2))


@pytest.mark.parametrize("m", [m for m in STATED if m.published_params], ids=lambda m: m.id)
def test_a_published_total_is_the_index_size_over_the_dtype(m: ModelSpec) -> None:
    """Granite 3.1 1B-A400M: 5,338,513,408 bytes in float32; the others in bf16."""
    size, per_param = _bytes_and_divisor(model_source(m.id))
    assert m.published_params is not None
    assert size == m.published_params * per_param


def _card_figure(text: str) -> tuple[float, float]:
    """A card's first figure in parameters and half its last digit's place (``8.2B`` -> 8.2e9, 0.05e9)."""
    found = re.match(r"(\d+)(?:\.(\d+))?B", text)
    assert found, text
    decimals = len(found.group(2) or "")
    return float(found.group(0)[:-1]) * 1e9, 0.5 * 10.0 ** -decimals * 1e9


CARDS = [m for m in models() if model_source(m.id).card_params]


def test_some_cards_are_there() -> None:
    assert {"deepseek-v3", "gpt-oss-20b", "qwen3-8b"} <= {m.id for m in CARDS}


@pytest.mark.parametrize("m", CARDS, ids=lambda m: m.id)
def test_a_card_figure_agrees_to_its_rounding(m: ModelSpec) -> None:
    figure, half = _card_figure(model_source(m.id).card_params)
    assert abs(count_params(m).total - figure) <= half
    assert model_source(m.id).card_source.startswith("https://")
