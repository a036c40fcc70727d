"""gui.widgets.kv_cards: one card per model, the engine's bytes and formula numbers, hidden when unused."""

from __future__ import annotations

from pytestqt.qtbot import QtBot

from engine.catalog import get_model, models
from engine.serving import kv_cache
from engine.units import Unit, format_bytes
from gui.widgets.kv_cards import KvCards


def test_cards_show_the_engines_kv_cache(qtbot: QtBot) -> None:
    cards = KvCards()
    qtbot.addWidget(cards)
    rows = [(get_model(i), kv_cache(get_model(i), 4096)) for i in ("llama-2-7b", "llama-2-70b", "gemma-2-2b")]
    cards.show_models(rows, Unit.GB)
    for card, (model, kv) in zip(cards.cards, rows, strict=True):
        assert card.name.text() == f"<b>{model.label}</b>"
        assert card.value.text() == format_bytes(kv.bytes_per_sequence, Unit.GB)
        assert card.detail.text() == kv.detail
        assert kv.source in card.toolTip()
    assert cards.cards[1].kind.text() == "GQA, 8 KV heads for 64 query heads"
    assert "layers slide over 4,096 tokens" in cards.cards[2].kind.text()
    cards.show_models(rows[:1], Unit.GIB)
    assert [c.isVisibleTo(cards) for c in cards.cards] == [True, False, False]
    assert cards.cards[0].value.text() == format_bytes(rows[0][1].bytes_per_sequence, Unit.GIB)


def test_an_mla_model_names_its_latent(qtbot: QtBot) -> None:
    cards = KvCards()
    qtbot.addWidget(cards)
    model = next(m for m in models() if m.mla is not None)
    cards.show_models([(model, kv_cache(model, 1024))], Unit.GB)
    assert model.mla is not None
    assert cards.cards[0].kind.text().startswith(f"MLA, one latent of {model.mla.kv_lora_rank} + ")
