"""gui.widgets.model_picker: family headings, rows mapped to models, imported models added once."""

from __future__ import annotations

import pytest
from pytestqt.qtbot import QtBot

from engine.catalog import get_model, models
from gui.widgets.model_picker import ModelPicker


@pytest.fixture
def picker(qtbot: QtBot) -> ModelPicker:
    p = ModelPicker(models())
    qtbot.addWidget(p)
    return p


def test_headings_are_not_models(picker: ModelPicker) -> None:
    rows = [picker.model_at(r) for r in range(picker.count())]
    listed = [m for m in rows if m is not None]
    assert listed == list(models())
    assert rows[0] is None  # the first family's heading
    assert picker.model_at(-1) is None
    families = {m.family for m in models()}
    assert rows.count(None) == len(families)


def test_show_model_selects_it(picker: ModelPicker) -> None:
    m = get_model("llama-3.1-8b")
    picker.show_model(m)
    assert picker.current_model() == m
    assert picker.currentText().startswith("Llama 3.1 8B — ")


def test_an_imported_model_joins_once_and_is_replaced_by_id(picker: ModelPicker) -> None:
    before = picker.count()
    mine = get_model("llama-2-7b").model_copy(update={"id": "mine", "name": "Mine"})
    picker.show_model(mine)
    assert picker.count() == before + 2  # the "Imported" heading and the model
    assert picker.current_model() == mine
    picker.add_imported(mine)
    assert picker.count() == before + 2
    changed = mine.model_copy(update={"num_layers": 16})
    picker.add_imported(changed)
    assert picker.count() == before + 2
    assert [picker.model_at(r) for r in range(picker.count())][-1] == changed
