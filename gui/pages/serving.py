"""The serving page: the KV cache per sequence, what vLLM will allocate and log, MLA vs GQA, paging.

Data flow: the controls write to the shared ``Scenario`` (model, GPU) and to the page's own state, a
``PageState`` over the engine's ``ServingSetup`` (the context, the concurrency wanted and vLLM's flags). The page
reads the scenario's model, GPU and unit and every field of its own state (``READS``): a change to anything else
(a LoRA rank, a batch size) costs it nothing. ``refresh`` asks the engine (``engine.serving.serving_fit``, which
runs vLLM's start-up, ``engine.serving.vllm``) and hands its results to the views, by the one recompute policy of
every page (``gui.state.recompute``). No number on this page is computed here; a setup vLLM refuses (a GPU it does not
run on, a tensor-parallel size that does not divide the heads) is said in its words.
"""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import SignalInstance
from PySide6.QtWidgets import QLabel, QPlainTextEdit, QScrollArea, QVBoxLayout, QWidget

from engine.catalog import get_model
from engine.serving import ServingFit, ServingSetup, compare_mla, kv_cache, serving_fit
from engine.serving.paged import PoolSpec
from engine.serving.trace import SHAREGPT, request_stream
from engine.specs import ModelSpec
from engine.units import format_bytes
from gui.files.breakdown_table import Breakdown
from gui.look.follows_palette import FollowsPalette
from gui.look.palette import colors_for
from gui.pages import page_title
from gui.pages.serving_controls import ServingControls
from gui.pages.serving_sections import log_box, section, vllm_terms
from gui.state.page_state import PageState
from gui.state.recompute import Recompute
from gui.state.scenario import Scenario
from gui.widgets.capacity_chart import CapacityChart
from gui.widgets.kv_cards import KvCards
from gui.widgets.mla_panel import MlaPanel
from gui.widgets.paging_player import PagingPlayer

if TYPE_CHECKING:
    from engine.lessons import Situation

SEED_MODELS = ("llama-2-7b", "llama-2-13b", "llama-2-70b")
PAGING_REQUESTS, PAGING_SEED = 60, 0
INITIAL_SEQUENCES = 16  # enough users for the KV cache to outweigh a 7B model's weights
# what the page reads from the shared scenario (its own state it reads whole)
READS = frozenset({"model", "gpu", "unit"})


class ServingPage(FollowsPalette, QWidget):
    """KV cache, capacity, MLA and paged allocation, for the scenario's model and GPU.

    Signals: none of its own (it recomputes when ``Scenario.changed`` names a field in ``READS``, and on any
    change of its own ``state``).
    """

    page_id = "serving"

    def __init__(self, scenario: Scenario, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("page-serving")
        self.scenario = scenario
        self.state = PageState(ServingSetup(sequences=INITIAL_SEQUENCES), parent=self)
        self.recompute = Recompute(self, now=self.refresh).watch(scenario, READS).watch(self.state)
        self.controls = ServingControls(scenario, self.state, self)
        self.cards = KvCards(self)
        self.chart = CapacityChart(self)
        self.fit_label = QLabel(self)
        self.fit_label.setObjectName("fitLabel")
        self.fit_label.setWordWrap(True)
        self.log_title = QLabel(self)
        self.log_title.setWordWrap(True)
        self.log: QPlainTextEdit = log_box(self)
        self.mla = MlaPanel(self)
        self.player = PagingPlayer(request_stream(SHAREGPT, PAGING_REQUESTS, PAGING_SEED), PoolSpec(), self)
        self._layout()
        self.recompute.flush()
        self.follow_palette()

    def title(self) -> str:
        return page_title(self.page_id)

    def export_chart(self) -> QWidget:
        return self.chart

    def flush(self) -> None:
        """Run any pending recompute now (tests, export)."""
        self.recompute.flush()

    def export_breakdown(self) -> Breakdown:
        """Per GPU at the requested concurrency: weights, activation peak, non-torch memory, KV cache, graphs."""
        sc, setup = self.scenario, self.state.value
        title = (f"{sc.model.label} · {setup.sequences} × {setup.tokens:,} tokens · {setup.kv_element.value} KV "
                 f"cache · TP {setup.tp} × {sc.gpu.name} · vLLM {setup.vllm_version}")
        return Breakdown.of(title, serving_fit(sc.model, sc.gpu, setup).terms)

    def view_state(self) -> dict[str, Any]:
        return {"serving": self.state.value.model_dump(mode="json")}

    def restore_view_state(self, state: dict[str, Any]) -> None:
        if "serving" in state:
            self.state.replace(ServingSetup.model_validate(state["serving"]))

    # -- a lesson's situation holds the page's serving setup (``gui.pages.contract.HoldsLessonPart``) -----------
    def lesson_part(self, situation: Situation) -> Situation:
        return replace(situation, serving=self.state.value)

    def set_lesson_part(self, situation: Situation) -> None:
        self.state.replace(situation.serving)

    def lesson_part_changed(self) -> SignalInstance:
        return self.state.changed

    def _layout(self) -> None:
        content = QWidget(self)
        body = QVBoxLayout(content)
        body.setContentsMargins(32, 24, 32, 24)
        body.setSpacing(12)
        body.addWidget(section(self.title(), self.tr(
            "At inference every generated token leaves its keys and values behind, in every layer. With many "
            "users at once, this KV cache, not the weights, is what fills the GPU."), content, heading=True))
        body.addWidget(self.controls)
        body.addWidget(section(self.tr("KV cache per sequence"), self.tr(
            "2 × layers × KV heads × head dim × tokens × bytes per element, per sequence (GB: 10⁹ bytes)."), content))
        body.addWidget(self.cards)
        body.addWidget(section(self.tr("What vLLM will allocate"), self.tr(
            "vLLM profiles one dummy batch at start-up, then gives the KV cache what is left of its budget (the "
            "memory the driver reports × gpu_memory_utilization) after the weights, the activation peak and the "
            "memory outside PyTorch. CUDA graphs are captured after, from the headroom."), content))
        body.addWidget(self.chart)
        body.addWidget(self.fit_label)
        body.addWidget(section(self.tr("What vLLM will log"), "", content))
        body.addWidget(self.log_title)
        body.addWidget(self.log)
        body.addWidget(section(self.tr("MLA against GQA"), "", content))
        body.addWidget(self.mla)
        body.addWidget(section(self.tr("Paged allocation"), self.tr(
            "The same requests, reserved at the maximum length or handed 16-token blocks as they grow "
            "(PagedAttention, vLLM). A pool of {n} blocks; requests shaped like ShareGPT conversations."
        ).format(n=PoolSpec().blocks), content))
        body.addWidget(self.player)
        scroll = QScrollArea(self)
        scroll.setWidgetResizable(True)
        scroll.setFrameShape(QScrollArea.Shape.NoFrame)
        scroll.setWidget(content)
        outer = QVBoxLayout(self)
        outer.setContentsMargins(0, 0, 0, 0)
        outer.addWidget(scroll)

    def card_models(self) -> list[ModelSpec]:
        """The seed's three Llama 2 models, and the scenario's model when it is another one."""
        seed = [get_model(i) for i in SEED_MODELS]
        return seed + ([] if self.scenario.model in seed else [self.scenario.model])

    def refresh(self) -> None:
        """Ask the engine for every result on the page and show them."""
        setup, unit = self.state.value, self.scenario.unit
        rows = [(m, kv_cache(m, setup.tokens, setup.kv_element)) for m in self.card_models()]
        self.cards.show_models(rows, unit)
        model, gpu = self.scenario.model, self.scenario.gpu
        self.mla.show_comparison(compare_mla(dtype=setup.kv_element))
        try:
            fit = serving_fit(model, gpu, setup)
        except ValueError as err:  # vLLM's own refusals, in its words
            self._refused(str(err))
            return
        most = fit.terms_at(fit.max_sequences) if fit.max_sequences else []  # may pass a request's bound
        start = fit.startup
        self.chart.show_bars(
            [(self.tr("{n:,} requested").format(n=setup.sequences), fit.terms),
             (self.tr("{n:,} that fit").format(n=fit.max_sequences), most),
             (self.tr("vLLM's cache"), vllm_terms(fit))],
            [(self.tr("GPU memory (as the driver reports it)"), fit.gpu_bytes, False),
             (self.tr("vLLM's budget ({u:.0%})").format(u=setup.gpu_memory_utilization), fit.budget_bytes, True)],
            unit,
        )
        self.fit_label.setText(self._fit_text(fit))
        self.log_title.setText(self.tr(
            "vLLM {version} ({engine} engine) will print these lines at start-up (times are not predicted):"
        ).format(version=start.version, engine=start.engine.value))
        self.log.setPlainText("\n".join(start.log_lines))

    def _refused(self, why: str) -> None:
        self.chart.show_bars([], [], self.scenario.unit)
        self.fit_label.setText(self.tr("<b>vLLM would not start:</b> {why}").format(why=why))
        self.log_title.setText("")
        self.log.setPlainText("")

    def palette_changed(self) -> None:
        self.recompute.request()  # the verdict's colour follows the theme

    def _fit_text(self, fit: ServingFit) -> str:
        unit, s, start = self.scenario.unit, fit.setup, fit.startup
        if fit.max_sequences == 0 and fit.kv_budget_bytes <= 0:
            return self.tr(
                "<b>The weights alone overflow:</b> {w} per GPU of {b} in vLLM's budget. Add GPUs or quantize."
            ).format(
                w=format_bytes(fit.term("weights").bytes, unit), b=format_bytes(fit.budget_bytes, unit))
        c = colors_for(self)
        verdict = (self.tr("The {n:,} requested fit.") if fit.fits else self.tr("The {n:,} requested do not fit."))
        verdict = f'<span style="color:{c.fits if fit.fits else c.over}"><b>{verdict}</b></span>'
        gpus = s.tp * s.pp
        where = (self.tr("on one {gpu}") if gpus == 1 else self.tr("on {n} × {gpu}")).format(
            n=gpus, gpu=self.scenario.gpu.name)
        return self.tr(
            "<b>vLLM will hold {tokens:,} tokens in its KV cache</b> {where}, {kv} per GPU: at most {max:,} "
            "sequences of {t:,} tokens at once ({per} of KV cache each). {verdict}"
        ).format(tokens=start.kv_cache_tokens, where=where, kv=format_bytes(start.kv_cache_bytes, unit),
                 max=fit.max_sequences, t=s.tokens, per=format_bytes(fit.kv.bytes_per_sequence, unit),
                 verdict=verdict.format(n=s.sequences))
