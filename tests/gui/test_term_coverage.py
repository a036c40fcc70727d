"""Every memory term is labelled in both languages, coloured in every palette, explained (formula and source)
and exported; a new term added in one function either shows up everywhere or the check names what it lacks."""

from __future__ import annotations

from collections.abc import Iterator, Sequence

import pytest
from pytestqt.qtbot import QtBot

from engine.catalog import get_gpu, get_model
from engine.results import Term
from engine.serving import ServingSetup, serving_fit
from engine.specs import Attention, HostSetup, Method, ParallelSpec, Sharding, TrainingSetup
from engine.terms import TERMS, Scope, TermDef, TermName, in_scope
from engine.training import estimate
from engine.training.context import StepContext
from engine.training.host import host_of
from engine.training.inference import forward_bytes
from engine.training.moments import Cost, Moment
from engine.training.plan import clear_cache
from engine.training.terms import TRAINING_TERMS, TermRule
from engine.units import Unit
from gui.files.breakdown_table import Breakdown, to_csv
from gui.look.palette import DARK, HIGH_CONTRAST, LIGHT
from gui.look.theme import ThemeManager
from gui.term_coverage import missing
from gui.text.words import term_title
from gui.widgets.breakdown_chart import BreakdownChart, Row
from gui.widgets.term_legend import TermLegend

M, GPU = get_model("llama-2-7b"), get_gpu("a100-80gb")


def computed_terms() -> dict[str, Term]:
    """One engine result for every term: a training step that has all of them, serving, alignment."""
    s = TrainingSetup(method=Method.QLORA, attention=Attention.EAGER, gpus=4, sharding=Sharding.ZERO3)
    found: dict[str, Term] = {t.name: t for t in estimate(M, s, GPU).device_terms}
    laid = TrainingSetup(gpus=4, parallel=ParallelSpec(tp=2, pp=2, micro_batches=2))
    found |= {t.name: t for t in estimate(M, laid, GPU).terms if t.name == TermName.PARALLEL_BUFFERS}
    found |= {t.name: t for t in serving_fit(M, GPU, ServingSetup()).terms}
    found[TermName.FORWARD] = forward_bytes(M, TrainingSetup(), 2)  # a frozen model's no-grad forward
    # host RAM: a node of 8 processes holding every host term at its peak (training: workers, pins, offload)
    host = TrainingSetup(gpus=8, sharding=Sharding.ZERO3, offload_optimizer=True,
                         host=HostSetup(dataset_tokens=10**8, num_workers=2, pin_memory=True))
    found |= {t.name: t for t in host_of(estimate(M, host, GPU)).as_terms()}
    return found


@pytest.mark.parametrize("name", list(TermName))
def test_every_term_is_complete(name: TermName) -> None:
    result = computed_terms().get(name)
    assert result is not None, f"{name}: no engine result produces this term"
    gaps = missing(name, result)
    assert not gaps, f"{name} lacks: {', '.join(gaps)}"


def test_training_terms_are_computed_in_their_defined_order() -> None:
    """The layout's buffers exist only with a layout; every other training term always."""
    plain = [t.name for t in estimate(M, TrainingSetup(), GPU).terms]
    laid = [t.name for t in estimate(M, TrainingSetup(gpus=2, parallel=ParallelSpec(tp=2)), GPU).terms]
    assert laid == list(in_scope(Scope.TRAINING))
    assert plain == [n for n in laid if n != TermName.PARALLEL_BUFFERS]


def test_an_undefined_term_is_named_as_such() -> None:
    assert missing("nonsense") == ["a definition in engine.terms.TERMS (and so an English label)"]


def _throwaway(c: StepContext, at: Sequence[Moment]) -> TermRule:
    """1 GB during the backward of every step, as a term function would say it."""
    costs = tuple(Cost(1e9) if mo.phase == "backward" else Cost() for mo in at)
    return TermRule("throwaway", costs, "one gigabyte while backward runs", "a test's own rule")


@pytest.fixture
def throwaway(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """A term added the way a contributor adds one: a definition and one function (its label is a word the
    translation already holds, so only its colours are missing)."""
    monkeypatch.setitem(TERMS, "throwaway", TermDef("throwaway", "temporaries", Scope.TRAINING))
    TRAINING_TERMS.append(_throwaway)
    clear_cache()
    yield
    TRAINING_TERMS.remove(_throwaway)
    clear_cache()


@pytest.mark.usefixtures("throwaway")
def test_a_new_term_without_colours_is_named_with_what_it_lacks() -> None:
    e = estimate(M, TrainingSetup(), GPU)
    term = next(t for t in e.terms if t.name == "throwaway")
    assert term.bytes == 1_000_000_000
    assert sum(t.bytes for t in e.terms) == e.peak_allocated_bytes
    assert missing("throwaway", term) == [
        "a colour in the light palette", "a colour in the dark palette", "a colour in the presentation palette"]


@pytest.mark.usefixtures("throwaway", "theme")
def test_a_complete_new_term_is_labelled_coloured_explained_and_exported(
    qtbot: QtBot, monkeypatch: pytest.MonkeyPatch, theme: ThemeManager
) -> None:
    for palette, colour in ((LIGHT, "#123456"), (DARK, "#abcdef"), (HIGH_CONTRAST, "#fedcba")):
        monkeypatch.setitem(palette.terms, "throwaway", colour)
    e = estimate(M, TrainingSetup(), GPU)
    term = next(t for t in e.device_terms if t.name == "throwaway")
    assert missing("throwaway", term) == []

    chart, legend = BreakdownChart(), TermLegend()
    for w in (chart, legend):
        qtbot.addWidget(w)
    chart.resize(900, 160)
    chart.show_rows([Row("This setup", e.device_terms)], GPU.memory_bytes, Unit.GB)
    legend.show_terms(e.device_terms, Unit.GB)
    start = sum(t.bytes for t in e.device_terms[: e.device_terms.index(term)]) / 1e9
    hit = chart.segment_at(start + 0.5, 1.0)
    assert hit is not None
    assert hit[1].name == "throwaway"
    tip = chart.tooltip_for(*hit)
    assert term_title("throwaway") in tip
    assert "one gigabyte while backward runs" in tip
    assert "a test's own rule" in tip
    assert "#123456" in legend.text() or "#abcdef" in legend.text()
    csv = to_csv(Breakdown.of("t", e.device_terms), term_title)
    assert "throwaway," + term_title("throwaway") + ",1000000000," in csv
