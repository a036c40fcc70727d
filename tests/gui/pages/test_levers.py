"""gui.pages.levers: the real toggles and apply buttons, the numbers shown checked against the engine."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication, QScrollArea
from pytestqt.qtbot import QtBot

from engine.catalog import DEFAULT_GPU, get_gpu, get_model
from engine.levers import (
    POSITIONS,
    SEED_KINDS,
    LeverKind,
    all_levers,
    biggest_term,
    largest_terms,
    long_context_lever,
)
from engine.specs import Attention, Checkpointing, Loss, Method, Optimizer, ParallelSpec, Sharding, TrainingSetup
from engine.training import estimate
from engine.training.advisor import chunked_recompute
from engine.units import Unit, format_bytes
from gui.look.theme import ThemeManager, ThemeMode, light_palette
from gui.pages.levers import KINDS, LeversPage
from gui.shell.main_window import MainWindow
from gui.state.scenario import Scenario
from gui.text.fonts import register_fonts
from gui.visual_audit.window import Look, Setup, arrange

PSI = 6_738_415_616
LONG = LeverKind.LONG_CONTEXT


def _long_context() -> Scenario:
    """Issue 19's case: Llama 3.1 8B, LoRA, 32,768 tokens, checkpointing on (logits 50.4 GB, the biggest term)."""
    return Scenario(get_model("llama-3.1-8b"),
                    TrainingSetup(method=Method.LORA, seq_len=32_768, checkpointing=Checkpointing.FULL))


def _page(qtbot: QtBot, scenario: Scenario | None = None) -> tuple[LeversPage, Scenario]:
    scenario = scenario or Scenario()
    page = LeversPage(scenario)
    qtbot.addWidget(page)
    return page, scenario


def _click(qtbot: QtBot, page: LeversPage, kind: LeverKind, index: int) -> None:
    qtbot.mouseClick(page.cards[kind].buttons.button(index), Qt.MouseButton.LeftButton)


@pytest.mark.parametrize("scenario", [Scenario, _long_context], ids=["seed", "long-context"])
def test_numbers_are_the_engines(qtbot: QtBot, scenario: type[Scenario]) -> None:
    page, sc = _page(qtbot, scenario())
    expected = all_levers(sc.model, sc.setup, sc.gpu)
    assert [lv.kind for lv in expected] == [*KINDS]
    for lv in expected:
        card = page.cards[lv.kind]
        after = largest_terms(lv.steps[card.selected()].estimate)
        for name, (before_text, after_text) in card.numbers().items():
            assert before_text == format_bytes(largest_terms(lv.steps[0].estimate)[name], Unit.GB)
            assert after_text == "→ " + format_bytes(after[name], Unit.GB)
        assert card.numbers(), lv.kind


def test_the_seed_numbers(qtbot: QtBot) -> None:
    page, _ = _page(qtbot)
    assert page.cards[LeverKind.LORA].numbers()["optimizer_states"] == ("80.86 GB", "→ 0.32 GB")


def test_the_fourth_card_is_the_engines_long_context_lever(qtbot: QtBot) -> None:
    page, sc = _page(qtbot, _long_context())
    lever = long_context_lever(sc.model, sc.setup, sc.gpu)
    assert page.lever(LONG) == lever
    assert [s.key for s in lever.steps] == ["standard", "chunked", "fused-linear-ce", "fused-linear-ce-offload"]
    card = page.cards[LONG]
    assert [card.step_label(i) for i in range(4)] == ["Standard", "Chunked", "Fused CE", "+ offload"]
    assert card.selected() == 1  # the scenario is at "standard": the card shows the first step on
    assert card.numbers()["logits"] == ("50.43 GB", "→ " + format_bytes(
        largest_terms(lever.steps[1].estimate)["logits"], Unit.GB))
    assert card.numbers()["logits"][1] == "→ 1.06 GB"  # README: 2.1% of the standard loss's
    assert card.bars.segments()["logits"] == (largest_terms(lever.steps[0].estimate)["logits"] / 1e9,
                                              largest_terms(lever.steps[1].estimate)["logits"] / 1e9)
    assert "moves: logits, activations" in card.moves.text().lower()
    offload = lever.steps[-1].estimate
    assert f"{chunked_recompute(sc.model):.0%} more compute" in card.note.text()
    assert format_bytes(offload.offloaded_bytes, Unit.GB) + " per GPU to host RAM" in card.note.text()
    _click(qtbot, page, LONG, 3)
    assert card.numbers()["activations"][1] == "→ " + format_bytes(largest_terms(offload)["activations"], Unit.GB)


def test_the_fourth_card_leads_when_logits_are_the_biggest_term(qtbot: QtBot) -> None:
    page, sc = _page(qtbot, _long_context())
    assert biggest_term(estimate(sc.model, sc.setup, sc.gpu)).name == "logits"
    assert page.order() == (LONG, *SEED_KINDS)
    card = page.cards[LONG]
    assert card.leading()
    assert not card.badge.isHidden()
    assert "logits" in card.badge.text()
    assert page.position(LONG) == (0, 0)
    page.resize(1280, 900)
    page.show()
    qtbot.wait(1)
    first = min(page.cards.values(), key=lambda c: (c.y(), c.x()))
    assert first is card  # drawn first: top left
    assert not any(page.cards[k].leading() for k in SEED_KINDS)
    assert "Long context: chunked loss · activation offload, set to “Chunked”" in page.rule.text()


def test_it_does_not_lead_when_optimizer_states_are(qtbot: QtBot) -> None:
    page, sc = _page(qtbot)  # the seed's default: full fine-tuning, optimizer states 80.86 GB
    assert biggest_term(estimate(sc.model, sc.setup, sc.gpu)).name == "optimizer_states"
    assert page.order() == KINDS
    card = page.cards[LONG]
    assert not card.leading()
    assert card.badge.isHidden()
    assert page.position(LONG) == (1, 1)  # two a row: last


def test_a_new_biggest_term_moves_the_card(qtbot: QtBot) -> None:
    page, sc = _page(qtbot, _long_context())
    sc.update(method=Method.FULL)  # optimizer states of 8B parameters outgrow the logits
    page.flush()
    assert page.order() == KINDS
    assert not page.cards[LONG].leading()


def test_apply_writes_the_long_context_step(qtbot: QtBot) -> None:
    page, sc = _page(qtbot, _long_context())
    card = page.cards[LONG]
    _click(qtbot, page, LONG, 3)
    assert "+ offload" in card.apply.text()
    qtbot.mouseClick(card.apply, Qt.MouseButton.LeftButton)
    page.flush()
    assert (sc.setup.loss, sc.setup.activation_offload) == (Loss.FUSED_LINEAR_CE, True)
    assert sc.setup.checkpointing is Checkpointing.FULL  # kept
    assert sc.setup == page.lever(LONG).steps[3].setup
    assert card.selected() == 3
    assert not card.apply.isEnabled()
    _click(qtbot, page, LONG, 1)
    qtbot.mouseClick(card.apply, Qt.MouseButton.LeftButton)
    page.flush()
    assert (sc.setup.loss, sc.setup.loss_chunks, sc.setup.activation_offload) == (Loss.CHUNKED, None, False)
    assert not page.cards[LONG].leading()  # chunked: the logits are no longer the biggest term


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
    # activations are now the biggest term: all four levers compete, and offloading moves them the most
    assert "Here the biggest term is activations (26.69 GB)." in page.rule.text()
    assert "set to “+ offload”, moves it to 0.83 GB." in page.rule.text()
    assert page.order()[0] is LONG
    assert page.cards[LeverKind.LORA].selected() == 1  # the scenario's own position


def test_the_long_context_lever_moves_the_logits(qtbot: QtBot) -> None:
    # 8,192 tokens: the logits outgrow hf-trainer QLoRA's fp32 embeddings and head (engine.training.policy)
    sc = Scenario(get_model("qwen2.5-7b"), TrainingSetup(method=Method.QLORA, checkpointing=Checkpointing.FULL,
                                                         seq_len=8_192), get_gpu("h200"))
    page, _ = _page(qtbot, sc)
    assert "Here the biggest term is logits" in page.rule.text()
    assert "Long context: chunked loss · activation offload" in page.rule.text()


def test_no_lever_moves_it(qtbot: QtBot) -> None:
    every_lever_on = TrainingSetup(method=Method.QLORA, sharding=Sharding.ZERO3, gpus=8, seq_len=512,
                                   checkpointing=Checkpointing.FULL, loss=Loss.FUSED_LINEAR_CE,
                                   activation_offload=True)
    page, _ = _page(qtbot, Scenario(get_model("llama-2-7b"), every_lever_on, get_gpu(DEFAULT_GPU)))
    assert "Here the biggest term is weights" in page.rule.text()
    assert "None of these levers moves it." in page.rule.text()


def test_dark_theme_and_narrow_width(qtbot: QtBot, theme: ThemeManager) -> None:
    page, _ = _page(qtbot)
    page.resize(800, 600)
    page.show()
    theme.set_mode(ThemeMode.DARK)
    qtbot.wait(1)
    assert page.cards[LeverKind.ZERO3].isVisible()
    assert page.cards[LONG].isVisible()
    assert page.columns() == 2


@pytest.fixture(params=[100, 150, 200], ids=lambda p: f"{p}%")
def type_scale(request: pytest.FixtureRequest, qapp: QApplication) -> Iterator[int]:
    """The application's type size at a presentation scale (as ``gui.shell.presentation`` sets it), then back."""
    font = qapp.font()
    scaled = qapp.font()
    scaled.setPointSizeF(font.pointSizeF() * request.param / 100)
    qapp.setFont(scaled)
    yield request.param
    qapp.setFont(font)


@pytest.mark.parametrize("width", [800, 1280, 1920, 2560])
def test_four_cards_never_overlap_or_clip(qtbot: QtBot, type_scale: int, width: int) -> None:
    page, _ = _page(qtbot, _long_context())
    page.resize(width, 900)
    page.show()
    qtbot.wait(1)
    cards = [page.cards[k] for k in page.order()]
    assert page.columns() in (1, 2, 4)
    scroll = page.findChild(QScrollArea)
    assert scroll is not None
    assert scroll.horizontalScrollBar().maximum() == 0  # the cards fit the width: nothing to scroll sideways
    for card in cards:
        assert card.width() >= card.minimumSizeHint().width()
        assert card.apply.width() >= card.apply.minimumSizeHint().width()
    for i, a in enumerate(cards):
        for b in cards[i + 1:]:
            assert not a.geometry().intersects(b.geometry())
    rows = {c.geometry().top() for c in cards}
    assert len(rows) == 4 // page.columns()


def test_four_a_row_on_a_wide_window_two_on_a_narrow_one(qtbot: QtBot) -> None:
    page, _ = _page(qtbot)
    page.show()
    page.resize(1920, 1000)
    qtbot.wait(1)
    assert page.columns() == 4
    page.resize(1000, 800)
    qtbot.wait(1)
    assert page.columns() == 2


def test_a_hidden_page_waits_until_shown(qtbot: QtBot) -> None:
    page, sc = _page(qtbot)
    page.show()
    page.hide()
    sc.update(method=Method.QLORA)
    assert page.lever(LeverKind.LORA).current == 0  # stale while hidden
    page.show()
    assert page.lever(LeverKind.LORA).current == 2


@pytest.mark.parametrize("setup", [
    TrainingSetup(method=Method.LORA, trainable_tokens=16),
    TrainingSetup(method=Method.LORA, dora=True),
    TrainingSetup(optimizer=Optimizer.GALORE_ADAMW),
    TrainingSetup(method=Method.BADAM, freeze_layers=2, attention=Attention.FLASH),
    TrainingSetup(gpus=2, parallel=ParallelSpec(tp=2)),
], ids=["trainable-tokens", "dora", "galore", "badam", "tp2"])
def test_a_position_the_setup_cannot_take_is_disabled_and_the_rest_work(qtbot: QtBot, setup: TrainingSetup) -> None:
    """Fuzz seed 17 (a bug): a setup the engine refuses some positions of (DoRA has no QLoRA, GaLore no LoRA,
    BAdam no ZeRO-3 and no offload, tensor parallelism no QLoRA) raised, or showed another position's numbers.
    Each position left out of the engine's lever is a disabled button; every other one shows its own step."""
    page, sc = _page(qtbot, Scenario(get_model("llama-2-7b"), setup))
    page.flush()
    for lv in all_levers(sc.model, sc.setup, sc.gpu):
        card, keys = page.cards[lv.kind], [st.key for st in lv.steps]
        for position, key in enumerate(POSITIONS[lv.kind]):
            button = card.buttons.button(position)
            assert button.isEnabled() == (key in keys), (lv.kind, key)
            if key not in keys:
                continue
            _click(qtbot, page, lv.kind, position)
            after = largest_terms(lv.steps[keys.index(key)].estimate)
            assert {n: a for n, (_, a) in card.numbers().items()} == {
                n: "→ " + format_bytes(after[n], Unit.GB) for n in card.numbers()}


def test_cards_arranged_while_hidden_lie_inside_their_content_when_shown(qtbot: QtBot, qapp: QApplication) -> None:
    """The visual audit's levers-present150-1920x1080-en (a bug): the window widened while another page showed
    moved the cards from two a row to four, but the content's layout kept the two rows' height, so the cards'
    last rows lay below the content's end, never painted and never reachable by scrolling."""
    register_fonts()
    theme = ThemeManager(qapp, ThemeMode.LIGHT)
    win = MainWindow(Scenario(), theme)
    qtbot.addWidget(win)
    win.setAttribute(Qt.WidgetAttribute.WA_DontShowOnScreen, True)
    win.show()
    try:
        for page_id, look, size in (("levers", Look(scale=150), (1280, 720)), ("serving", Look(scale=150), (1280, 720)),
                                    ("levers", Look(scale=150), (1920, 1080))):
            arrange(win, Setup(page_id, look, size, "en"))
        page = win.pages.currentWidget()
        assert isinstance(page, LeversPage)
        content = page.cards[LeverKind.LORA].parentWidget()
        assert content is not None
        assert page.columns() == 4
        assert [card.geometry().bottom() < content.height() for card in page.cards.values()] == [True] * 4
    finally:
        win.presentation.leave()
        win.close()
        qapp.setPalette(light_palette())
