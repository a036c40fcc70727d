"""The serving page: real controls drive it, and every number shown is the engine's."""

from __future__ import annotations

from typing import Any

import pytest
from PySide6.QtWidgets import QWidget
from pytestqt.qtbot import QtBot

from engine.catalog import get_gpu, get_model
from engine.serving import Allocation, ServingFit, ServingSetup, WeightDtype, compare_mla, kv_cache, serving_fit
from engine.serving.vllm_setup import KvCacheDtype
from engine.specs import KvDtype, Method
from engine.units import Unit, format_bytes, to_unit
from gui.pages.serving import ServingPage
from gui.pages.serving_controls import SEQUENCES, TOKENS, TP
from gui.state.scenario import Scenario


@pytest.fixture
def page(qtbot: QtBot) -> ServingPage:
    widget = ServingPage(Scenario())
    qtbot.addWidget(widget)
    return widget


def card_values(page: ServingPage) -> list[str]:
    return [c.value.text() for c in page.cards.cards if c.isVisibleTo(page)]


def test_the_seed_figures(page: ServingPage) -> None:
    assert card_values(page) == ["2.15 GB", "3.36 GB", "1.34 GB"]
    assert page.cards.cards[2].detail.text() == "2 × 80 × 8 × 128 × 4,096 × 2 B"


def test_context_slider_and_kv_dtype_update_the_cards(page: ServingPage) -> None:
    page.controls.tokens.setValue(TOKENS.to_position(16_384))
    page.controls.kv_box.setCurrentIndex(list(KvCacheDtype).index(KvCacheDtype.FP8))
    page.controls.flush()
    page.flush()
    assert page.state.value.tokens == 16_384
    expected = [format_bytes(kv_cache(get_model(m), 16_384, KvDtype.FP8).bytes_per_sequence, Unit.GB)
                for m in ("llama-2-7b", "llama-2-13b", "llama-2-70b")]
    assert card_values(page) == expected
    assert "82.2%" in page.mla.ratio.text()


def test_sliders_and_gpu_picker_give_the_engines_capacity(page: ServingPage) -> None:
    page.controls.sequences.setValue(SEQUENCES.to_position(40))
    page.controls.tp.setValue(TP.to_position(2))
    page.controls.gpu_box.setCurrentText("H200 141 GB")
    page.controls.flush()
    page.flush()
    setup = page.state.value
    assert (setup.sequences, setup.tp) == (40, 2)
    fit = serving_fit(get_model("llama-2-7b"), get_gpu("h200"), setup)
    assert f"at most {fit.max_sequences:,} sequences" in page.fit_label.text()
    assert f"{fit.startup.kv_cache_tokens:,} tokens in its KV cache" in page.fit_label.text()
    assert "fit." in page.fit_label.text()
    assert page.log.toPlainText().splitlines() == fit.startup.log_lines
    heights = page.chart.bar_items["kv_cache"].opts["height"]
    assert heights[0] == pytest.approx(to_unit(fit.term("kv_cache").bytes, Unit.GB))


def test_overflowing_weights_are_said(page: ServingPage) -> None:
    page.scenario.update(model=get_model("llama-2-70b"), gpu=get_gpu("rtx-4090"))
    page.flush()
    assert "weights alone overflow" in page.fit_label.text()
    page.controls.weight_box.setCurrentIndex(list(WeightDtype).index(WeightDtype.INT4_GPTQ))
    page.controls.tp.setValue(TP.to_position(4))
    page.controls.flush()
    page.flush()
    fit = serving_fit(get_model("llama-2-70b"), get_gpu("rtx-4090"),
                      ServingSetup(sequences=16, weight_dtype=WeightDtype.INT4_GPTQ, tp=4))
    assert f"at most {fit.max_sequences:,}" in page.fit_label.text()


def test_another_model_gets_a_card(page: ServingPage) -> None:
    picker = page.controls.model_box
    row = next(r for r in range(picker.count()) if (m := picker.model_at(r)) is not None and m.id == "qwen2.5-7b")
    picker.setCurrentIndex(row)
    picker.activated.emit(row)
    page.flush()
    qwen = page.scenario.model
    assert qwen.id == "qwen2.5-7b"
    assert card_values(page)[3] == format_bytes(kv_cache(qwen, 4096).bytes_per_sequence, Unit.GB)


def test_mla_panel_shows_both_figures(page: ServingPage) -> None:
    c = compare_mla()
    assert f"{c.like_for_like:.1%}" in page.mla.ratio.text()
    assert "93.3%" in page.mla.published.text()
    assert "6 bits" in page.mla.note.text()


def test_hiding_the_page_pauses_the_animation(qtbot: QtBot) -> None:
    host = QWidget()
    qtbot.addWidget(host)
    page = ServingPage(Scenario(), host)
    host.show()
    page.player.play_button.click()
    assert page.player.is_playing()
    page.hide()
    assert not page.player.is_playing()
    assert page.player.lane_frame(Allocation.PAGED) is not None


def test_an_imported_model_gets_a_card_and_joins_the_picker(page: ServingPage) -> None:
    imported = get_model("llama-2-70b").model_copy(update={"id": "my-70b", "name": "My 70B"})
    page.scenario.update(model=imported)
    page.flush()
    assert page.controls.model_box.current_model() == imported
    assert page.cards.cards[3].name.text() == "<b>My 70B</b>"
    assert card_values(page)[3] == "1.34 GB"


def test_a_training_change_does_not_recompute_the_page(qtbot: QtBot, monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[str] = []

    def counted(*args: Any) -> ServingFit:
        calls.append("fit")
        return serving_fit(*args)

    monkeypatch.setattr("gui.pages.serving.serving_fit", counted)
    page = ServingPage(Scenario())
    qtbot.addWidget(page)
    page.show()
    qtbot.waitUntil(lambda: not page.recompute.pending())
    calls.clear()
    page.scenario.update(method=Method.LORA, batch=4, **{"lora.rank": 64})
    assert not page.recompute.pending()
    qtbot.wait(5)
    assert calls == []
    page.scenario.update(gpu=get_gpu("h200"))  # a field the page reads
    assert page.recompute.pending()
    qtbot.waitUntil(lambda: calls != [], timeout=1000)
    assert page.fit_label.text().count("H200") == 1


def test_a_small_model_that_fits_more_than_a_request_may_ask_for(page: ServingPage) -> None:
    """Issue 17: GPT-2 on twelve H100s at 128 tokens holds more sequences than a request may ask for (65,536):
    the page raised a validation error in its recompute; it shows the count and its bar."""
    page.scenario.update(model=get_model("gpt2"), gpu=get_gpu("h100-80gb"))
    page.state.update(tokens=128, weight_dtype=WeightDtype.INT8, tp=12)
    page.flush()
    fit = serving_fit(get_model("gpt2"), get_gpu("h100-80gb"), page.state.value)
    assert fit.max_sequences > 65_536
    assert f"at most {fit.max_sequences:,} sequences" in page.fit_label.text()
    heights = page.chart.bar_items["kv_cache"].opts["height"]
    assert heights[1] == pytest.approx(to_unit(fit.max_sequences * fit.kv.bytes_per_sequence, Unit.GB))


def test_a_setup_vllm_refuses_is_said_in_its_words(page: ServingPage) -> None:
    page.scenario.update(gpu=get_gpu("m4-max-128gb"))
    page.flush()
    assert "vLLM would not start" in page.fit_label.text()
    assert "Apple M4 Max 128 GB" in page.fit_label.text()
    assert page.log.toPlainText() == ""
    page.scenario.update(gpu=get_gpu("h100-80gb"))
    page.state.update(tp=3)
    page.flush()
    assert "TP 3 does not divide them" in page.fit_label.text()


def test_the_advanced_fold_sets_the_vllm_release(page: ServingPage) -> None:
    """vLLM 0.6.3's v0 engine charges NCCL and logs blocks, not tokens; its line ends the log box."""
    assert not page.controls.advanced.body.isVisibleTo(page)
    page.controls.advanced.toggle.setChecked(True)
    assert page.controls.advanced.body.isVisibleTo(page)
    box = page.controls.advanced.version_box
    box.setCurrentIndex(box.findText("0.6.3"))
    page.flush()
    assert page.state.value.vllm_version == "0.6.3"
    lines = page.log.toPlainText().splitlines()
    assert lines[0].startswith("Loading model weights took 12.5523 GB")
    assert any(line.startswith("# GPU blocks: ") for line in lines)
    assert "vLLM 0.6.3 (v0 engine)" in page.log_title.text()
