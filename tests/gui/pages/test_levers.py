"""gui.pages.levers: the real toggles and apply buttons, the numbers shown checked against the engine."""

from __future__ import annotations

from PySide6.QtCore import Qt
from pytestqt.qtbot import QtBot

from engine.levers import LeverKind, largest_terms, levers
from engine.specs import Checkpointing, Method, TrainingSetup
from engine.units import Unit, format_bytes
from gui.pages.levers import LeversPage
from gui.scenario import Scenario
from gui.theme import ThemeManager, ThemeMode

PSI = 6_738_415_616


def _page(qtbot: QtBot, scenario: Scenario | None = None) -> tuple[LeversPage, Scenario]:
    scenario = scenario or Scenario()
    page = LeversPage(scenario)
    qtbot.addWidget(page)
    return page, scenario


def _click(qtbot: QtBot, page: LeversPage, kind: LeverKind, index: int) -> None:
    qtbot.mouseClick(page.cards[kind].buttons.button(index), Qt.MouseButton.LeftButton)


def test_numbers_are_the_engines(qtbot: QtBot) -> None:
    page, sc = _page(qtbot)
    expected = levers(sc.model, sc.setup, sc.gpu)
    for lv in expected:
        card = page.cards[lv.kind]
        after = largest_terms(lv.steps[card.selected()].estimate)
        for name, (before_text, after_text) in card.numbers().items():
            assert before_text == format_bytes(largest_terms(lv.steps[0].estimate)[name], Unit.GB)
            assert after_text == "→ " + format_bytes(after[name], Unit.GB)
    assert page.cards[LeverKind.LORA].numbers()["optimizer_states"] == ("80.86 GB", "→ 0.32 GB")


def test_a_toggle_changes_the_card_not_the_scenario(qtbot: QtBot) -> None:
    page, sc = _page(qtbot)
    before = sc.setup
    _click(qtbot, page, LeverKind.LORA, 2)  # QLoRA
    card = page.cards[LeverKind.LORA]
    assert card.selected() == 2
    qlora = page.lever(LeverKind.LORA).steps[2].estimate
    assert card.numbers()["weights"][1] == "→ " + format_bytes(largest_terms(qlora)["weights"], Unit.GB)
    assert card.bars.segments()["weights"][1] == largest_terms(qlora)["weights"] / 1e9
    assert sc.setup == before
    assert "QLoRA" in card.apply.text()
    assert card.apply.isEnabled()


def test_apply_writes_the_position_into_the_scenario(qtbot: QtBot) -> None:
    page, sc = _page(qtbot)
    _click(qtbot, page, LeverKind.ACTIVATIONS, 2)
    with qtbot.waitSignal(sc.changed):
        qtbot.mouseClick(page.cards[LeverKind.ACTIVATIONS].apply, Qt.MouseButton.LeftButton)
    page.flush()
    assert sc.setup.checkpointing is Checkpointing.FULL
    card = page.cards[LeverKind.ACTIVATIONS]
    assert card.selected() == 2
    assert not card.apply.isEnabled()


def test_lora_card_states_both_shares(qtbot: QtBot) -> None:
    page, _ = _page(qtbot)
    note = page.cards[LeverKind.LORA].note.text()
    assert "39,976,960" in note
    assert "0.59%" in note
    assert "0.62%" in note


def test_zero3_over_n_divides_model_states_and_not_activations(qtbot: QtBot) -> None:
    page, _ = _page(qtbot)
    page.gpus_box.setValue(4)
    page.flush()
    card = page.cards[LeverKind.ZERO3]
    seg = card.bars.segments()
    assert seg["weights"] == (PSI * 2 / 1e9, -(-PSI * 2 // 4) / 1e9)
    assert seg["activations"][0] == seg["activations"][1]
    assert card.step_label(1) == "ZeRO-3 × 4"
    assert "1.50×" in card.note.text()


def test_the_rule_names_the_biggest_term_and_its_lever(qtbot: QtBot) -> None:
    page, sc = _page(qtbot)
    assert "optimizer states (80.86 GB)" in page.rule.text()
    assert "LoRA" in page.rule.text()
    sc.update(method=Method.LORA)
    page.flush()
    assert "activations" in page.rule.text()
    assert "checkpointing" in page.rule.text()
    assert page.cards[LeverKind.LORA].selected() == 1  # the scenario's own position


def test_no_lever_for_the_logits(qtbot: QtBot) -> None:
    from engine.catalog import get_gpu, get_model

    sc = Scenario(get_model("qwen2.5-7b"), TrainingSetup(method=Method.QLORA, checkpointing=Checkpointing.FULL),
                  get_gpu("h200"))
    page, _ = _page(qtbot, sc)
    assert "None of these three levers moves it." in page.rule.text()


def test_dark_theme_and_narrow_width(qtbot: QtBot, theme: ThemeManager) -> None:
    page, _ = _page(qtbot)
    page.resize(800, 600)
    page.show()
    theme.set_mode(ThemeMode.DARK)
    qtbot.wait(1)
    assert page.cards[LeverKind.ZERO3].isVisible()
    assert page.columns() == 2


def test_a_hidden_page_waits_until_shown(qtbot: QtBot) -> None:
    page, sc = _page(qtbot)
    page.show()
    page.hide()
    sc.update(method=Method.QLORA)
    assert page.lever(LeverKind.LORA).current == 0  # stale while hidden
    page.show()
    assert page.lever(LeverKind.LORA).current == 2
