"""The memory page with a parallel layout (issue 14) and the logits note (issue 19), driven through its controls;
every number shown is the engine's."""

from __future__ import annotations

import pytest
from PySide6.QtWidgets import QApplication
from pytestqt.qtbot import QtBot

from engine.catalog import get_gpu, get_model
from engine.specs import Checkpointing, Method, PipelineSchedule, TrainingSetup
from engine.training import estimate
from engine.training.advisor import logits_over_weights
from engine.units import Unit, format_bytes
from gui.pages.memory import MemoryPage, MemoryTab
from gui.state.scenario import Scenario
from gui.text import i18n
from gui.text.words import term_title


@pytest.fixture
def page(qtbot: QtBot) -> MemoryPage:
    p = MemoryPage(Scenario(gpu=get_gpu("h100-80gb")))
    qtbot.addWidget(p)
    p.resize(1280, 800)
    return p


def _expected(page: MemoryPage):
    sc = page.scenario
    return estimate(sc.model, sc.setup, sc.gpu)


def test_the_group_shows_with_more_than_one_gpu(page: MemoryPage) -> None:
    group = page.controls.parallel
    assert not group.isVisibleTo(page)
    page.controls.gpus_spin.setValue(4)
    page.flush()
    assert group.isVisibleTo(page)
    assert group.data_parallel.text() == "Data parallelism: 4 = 4 GPUs / (TP 1 × PP 1 × CP 1)"
    assert not group.sequence_parallel.isEnabled()  # needs TP
    assert not group.ep.isEnabled()  # Llama 2 7B is dense


def test_controls_round_trip(page: MemoryPage) -> None:
    """Each control writes its field of setup.parallel; a scenario change shows in every control."""
    c, group = page.controls, page.controls.parallel
    c.gpus_spin.setValue(8)
    page.flush()
    group.tp.setValue(2)
    group.pp.setValue(2)
    page.flush()
    group.sequence_parallel.click()
    group.micro_batches.setValue(4)
    page.flush()
    group.schedule.setCurrentIndex(2)  # interleaved
    group.virtual_stages.setValue(2)
    page.flush()
    p = page.scenario.setup.parallel
    assert (p.tp, p.pp, p.cp, p.sequence_parallel, p.micro_batches) == (2, 2, 1, True, 4)
    assert (p.schedule, p.virtual_stages) == (PipelineSchedule.INTERLEAVED, 2)
    assert c.gpus_spin.singleStep() == 4  # GPU counts the layout can take
    page.scenario.update(gpus=16, **{"parallel.cp": 2, "parallel.micro_batches": 8})
    page.flush()
    assert (group.cp.value(), group.micro_batches.value(), c.gpus_spin.value()) == (2, 8, 16)
    assert group.data_parallel.text() == "Data parallelism: 2 = 16 GPUs / (TP 2 × PP 2 × CP 2)"
    assert page.summary.big.text() == format_bytes(_expected(page).device_bytes, Unit.GB, 1)


def test_an_impossible_layout_shows_its_reason_and_changes_nothing(page: MemoryPage) -> None:
    """tp 3 on 6 GPUs: a valid setup, but Llama 2 7B's 32 heads cannot be split 3 ways; the engine's rule is
    shown beside the controls, the control goes back, the scenario and every number stay as they were."""
    group = page.controls.parallel
    page.scenario.update(gpus=6)
    page.flush()
    before, shown = page.scenario.value, page.summary.big.text()
    estimate_before = page.current
    group.tp.setValue(3)
    page.flush()
    assert page.scenario.value is before
    assert group.tp.value() == 1
    assert page.current is estimate_before
    assert page.summary.big.text() == shown
    note = page.controls.reason
    assert note.isVisibleTo(page)
    assert "tp (3) must divide the attention heads (32)" in note.text()
    group.tp.setValue(2)  # a change that goes through clears it
    page.flush()
    assert page.scenario.setup.parallel.tp == 2
    assert not note.isVisibleTo(page)
    page.controls.gpus_spin.setValue(5)  # no multiple of tp: refused by the engine's setup rule, named
    page.flush()
    assert page.scenario.setup.gpus == 6
    assert "gpus (5) must be a whole multiple of tp x pp x cp" in note.text()


def test_one_bar_per_pipeline_stage_the_most_loaded_marked(page: MemoryPage) -> None:
    page.scenario.update(gpus=4, checkpointing=Checkpointing.FULL,
                         **{"parallel.pp": 4, "parallel.micro_batches": 8})
    page.flush()
    e = _expected(page)
    rows = page.breakdown.rows()
    assert len(rows) == len(e.ranks) == 4
    for row, r in zip(rows, e.ranks, strict=True):
        assert list(row.terms) == list(r.device_terms)
        assert row.label == f"Stage {r.stage} · layers {r.layers[0]}–{r.layers[1]}"
        assert row.highlight == (r.stage == e.most_loaded_stage)
    assert sum(row.highlight for row in rows) == 1
    most = e.ranks[e.most_loaded_stage or 0]
    assert f"stage {most.stage} (layers {most.layers[0]}–{most.layers[1]}) is the most loaded" in (
        page.stages_note.text())
    assert page.summary.big.text() == format_bytes(most.device_bytes, Unit.GB, 1)
    # hover: the stage's term under the pointer, with its bytes, formula and source
    y = len(rows) - 1  # rows sit at n..1: stage 1 is at y = 3
    hit = page.breakdown.segment_at(0.1, y)
    assert hit is not None
    row, term = hit
    assert row is rows[1]
    tip = page.breakdown.tooltip_for(row, term)
    assert term_title(term.name) in tip
    assert format_bytes(term.bytes, Unit.GB) in tip
    # export: the per-stage table, as the engine computed it
    b = page.export_breakdown()
    assert [(s.stage, s.layers, s.terms, s.most_loaded) for s in b.stages] == [
        (r.stage, r.layers, r.device_terms, r.stage == e.most_loaded_stage) for r in e.ranks]
    assert b.terms == e.device_terms


def test_qlora_is_compared_as_not_applicable_under_a_layout(page: MemoryPage) -> None:
    page.scenario.update(gpus=2, **{"parallel.tp": 2})
    page.flush()
    labels = [r.label for r in page.overview.compare.rows()]
    assert labels == ["Full", "LoRA", "QLoRA: n/a"]
    assert not page.overview.compare.rows()[2].terms


def test_the_logits_note(page: MemoryPage, qapp: QApplication) -> None:
    assert page.logits_note.isHidden()
    page.scenario.update(model=get_model("llama-3.1-8b"), method=Method.LORA, seq_len=32_768,
                         checkpointing=Checkpointing.FULL)
    page.flush()
    over = logits_over_weights(_expected(page))
    assert over is not None
    assert not page.logits_note.isHidden()
    assert page.logits_note.text().startswith("The logits (50.4 GB) are larger than the weights (16.2 GB)")
    assert format_bytes(over[0], Unit.GB, 1) == "50.4 GB"
    i18n.set_language(qapp, "zh_TW")
    try:
        other = MemoryPage(page.scenario)
        other.flush()
        assert other.logits_note.text().startswith("輸出分數（50.4 GB）比權重（16.2 GB）還大")
        other.deleteLater()
    finally:
        i18n.set_language(qapp, "en")


def test_the_pages_own_state_survives_a_rebuild(qtbot: QtBot, page: MemoryPage) -> None:
    page.tabs.setCurrentIndex(2)
    page.planner.max_gpus.setValue(128)
    page.flush()
    page.planner.binder.flush()
    state = page.view_state()
    assert state == {"tab": "planner", "max_gpus": 128, "fastest": False, "epochs": 1.0, "prices": {},
                     "rank_by_cost": False}
    again = MemoryPage(Scenario(setup=TrainingSetup()))
    qtbot.addWidget(again)
    again.restore_view_state(state)
    assert again.tabs.currentIndex() == 2
    assert again.planner.max_gpus.value() == 128
    assert again.view.value.tab is MemoryTab.PLANNER
