"""gui.widgets.model_picker: family headings, rows mapped to models, imported models added once, and the
"On this computer" group (models of the local Hugging Face cache), in both languages."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from pytestqt.qtbot import QtBot

from engine.catalog import get_model, models
from gui.widgets.model_picker import ModelPicker, cached_models

TINY = {"model_type": "llama", "vocab_size": 1000, "hidden_size": 64, "intermediate_size": 128,
        "num_hidden_layers": 2, "num_attention_heads": 4, "num_key_value_heads": 2}


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


def test_the_models_training_configs_name_are_listed_under_their_family(picker: ModelPicker) -> None:
    """The swept example configs' models (issue 16): each a row under its own family heading."""
    rows = [picker.model_at(r) for r in range(picker.count())]
    texts = [picker.itemText(r) for r in range(picker.count())]
    for model_id, family in [("qwen2-0.5b", "Qwen2"), ("gemma-7b", "Gemma"), ("codellama-34b", "Code Llama"),
                             ("qwen2-vl-7b", "Qwen2-VL"), ("tinyllama-1.1b", "TinyLlama")]:
        row = next(r for r, m in enumerate(rows) if m is not None and m.id == model_id)
        heading = max(r for r in range(row) if rows[r] is None)
        assert texts[heading] == family


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


def _cache_model(cache: Path, repo: str, config: str) -> None:
    snap = cache / ("models--" + repo.replace("/", "--")) / "snapshots" / "r1"
    snap.mkdir(parents=True)
    (snap / "config.json").write_text(config)


def _texts(picker: ModelPicker) -> list[str]:
    return [picker.itemText(r) for r in range(picker.count())]


def test_cached_models_join_their_own_group_after_the_catalog(qtbot: QtBot, empty_hf_cache: Path) -> None:
    _cache_model(empty_hf_cache, "acme/tiny", json.dumps(TINY))
    _cache_model(empty_hf_cache, "junk/broken", "{ not json")
    local = cached_models()
    assert [m.id for m in local] == ["acme/tiny"]  # the broken one is left out, not raised
    picker = ModelPicker(models(), local=local)
    qtbot.addWidget(picker)
    texts = _texts(picker)
    heading = texts.index("On this computer")
    assert heading > len(models())
    assert texts[heading + 1].startswith("acme/tiny — ")
    assert picker.model_at(heading) is None  # a heading, not a model
    assert picker.model_at(heading + 1) == local[0]
    picker.show_model(local[0])
    assert picker.current_model() == local[0]
    assert "Imported" not in texts


def test_no_cached_model_no_group(qtbot: QtBot) -> None:
    picker = ModelPicker(models(), local=cached_models())
    qtbot.addWidget(picker)
    assert "On this computer" not in _texts(picker)


def test_a_cached_catalog_model_is_not_listed_twice(qtbot: QtBot) -> None:
    llama = get_model("llama-2-7b")
    picker = ModelPicker(models(), local=[llama])
    qtbot.addWidget(picker)
    assert "On this computer" not in _texts(picker)


def test_the_heading_is_translated(qtbot: QtBot, empty_hf_cache: Path, qapp) -> None:
    from gui.text.i18n import install_translators

    _cache_model(empty_hf_cache, "acme/tiny", json.dumps(TINY))
    translators = install_translators(qapp, "zh_TW")
    try:
        picker = ModelPicker(models(), local=cached_models())
        qtbot.addWidget(picker)
        assert "本機模型" in _texts(picker)
    finally:
        for t in translators:
            qapp.removeTranslator(t)


def test_each_family_is_one_heading_over_its_models(qtbot: QtBot) -> None:
    """The whole catalog (60+ models) reads as one bold heading per family, in catalog order."""
    picker = ModelPicker(models())
    qtbot.addWidget(picker)
    families = list(dict.fromkeys(m.family for m in models()))
    headings = [picker.itemText(r) for r in range(picker.count()) if picker.model_at(r) is None]
    assert headings == families
    assert picker.count() == len(models()) + len(families)
    first = picker.itemText(0)
    assert first == models()[0].family
    assert picker.model_at(1) == models()[0]


def test_headings_follow_a_theme_change(picker: ModelPicker, qapp) -> None:
    from PySide6.QtGui import QColor, QPalette

    before = qapp.palette()
    changed = QPalette(before)
    changed.setColor(QPalette.ColorRole.WindowText, QColor("#123456"))
    try:
        qapp.setPalette(changed)
        qapp.processEvents()  # Qt posts the change to each widget
        heading = picker.model().index(0, 0)
        assert picker.model().data(heading, Qt.ItemDataRole.ForegroundRole).color() == QColor("#123456")
    finally:
        qapp.setPalette(before)
