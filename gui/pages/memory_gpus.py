"""The memory page's "Which GPUs?" tab: every GPU type the run fits on, and how many of it, ranked by the run's
hours, or by its cost at the prices the user types (none is shipped).

The engine finds, for each GPU type with figures, the fewest GPUs the scenario fits on (1, 2, 4, then whole
nodes), and twice and four times as many, each with its step time (``engine.timing.choices.gpu_options``); the
run's hours are the dataset's tokens (the Host RAM tab) times the epochs at that speed. A price per GPU-hour typed
in a row is kept in the page's state by GPU id (``MemoryView.prices``) and gives that type's costs; a type without
a price has none. The tab recomputes only while it is shown (``gui.recompute``); typing a price only redraws.
"""

from __future__ import annotations

import math

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QAbstractItemView,
    QComboBox,
    QDoubleSpinBox,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QSpinBox,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from engine.catalog import gpus
from engine.timing import StepTime
from engine.timing.choices import GpuOption, gpu_options
from gui.state import ranges
from gui.state.binding import Bindable, Binder
from gui.state.page_state import Fields, touches
from gui.state.recompute import Recompute
from gui.state.scenario import EVERYTHING, Scenario
from gui.text.tr import QT_TRANSLATE_NOOP, translate

HEADERS = (
    QT_TRANSLATE_NOOP("GpuChoices", "GPU"),
    QT_TRANSLATE_NOOP("GpuChoices", "GPUs"),
    QT_TRANSLATE_NOOP("GpuChoices", "Tokens/s"),
    QT_TRANSLATE_NOOP("GpuChoices", "Step"),
    QT_TRANSLATE_NOOP("GpuChoices", "Hours"),
    QT_TRANSLATE_NOOP("GpuChoices", "Price"),
    QT_TRANSLATE_NOOP("GpuChoices", "Cost"),
)
TIPS = (
    "",
    QT_TRANSLATE_NOOP("GpuChoices", "how many GPUs of this type (ZeRO-3 beyond one)"),
    QT_TRANSLATE_NOOP("GpuChoices", "the run's tokens per second over all its GPUs"),
    QT_TRANSLATE_NOOP("GpuChoices", "seconds of one optimizer step"),
    QT_TRANSLATE_NOOP("GpuChoices", "the run's hours: the dataset's tokens times the epochs at that speed"),
    QT_TRANSLATE_NOOP("GpuChoices", "your price per GPU-hour for this type (double-click to type it)"),
    QT_TRANSLATE_NOOP("GpuChoices", "hours times GPUs times your price"),
)
PRICE_COLUMN = 5
MAX_PRICE = 1e6  # per GPU-hour: MemoryView.prices' bound


#: a run's length in epochs (not an engine field: the time it multiplies is per step)
EPOCHS = (0.1, 10_000.0)


def epochs_box(parent: QWidget, binder: Binder) -> QDoubleSpinBox:
    """The run's length in epochs, bound to the view's ``epochs`` (the GPU choices' and the planner's: what a run
    costs in time)."""
    box = QDoubleSpinBox(parent)
    box.setRange(*EPOCHS)
    box.setDecimals(1)
    box.setKeyboardTracking(False)
    box.setSuffix(translate("GpuChoicesSection", " epochs"))
    binder.spin(box, "epochs")
    return box


class GpuChoicesSection(QWidget):
    """The "Which GPUs?" tab for the shared scenario and the page's view state (epochs, GPU limit, prices).

    Signals: none.
    """

    def __init__(self, scenario: Scenario, view: Bindable, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.scenario = scenario
        self.view_state = view
        self.options: list[GpuOption] = []
        self.binder = Binder(view, self)
        self.rank = QComboBox(self)
        self.binder.combo(self.rank, "rank_by_cost", [(self.tr("Fastest run first"), False),
                                                      (self.tr("Cheapest run first"), True)])
        self.epochs = epochs_box(self, self.binder)
        self.max_gpus = QSpinBox(self)
        self.max_gpus.setRange(*ranges.GPU_COUNT)
        self.max_gpus.setKeyboardTracking(False)
        self.max_gpus.setPrefix(self.tr("at most "))
        self.max_gpus.setSuffix(self.tr(" GPUs"))
        self.binder.spin(self.max_gpus, "max_gpus")
        self.note = QLabel(self, wordWrap=True)
        self.table = QTableWidget(0, len(HEADERS), self)
        self.table.setHorizontalHeaderLabels([translate("GpuChoices", h) for h in HEADERS])
        for col, tip in enumerate(TIPS):
            title = self.table.horizontalHeaderItem(col)
            if tip and title is not None:
                title.setToolTip(translate("GpuChoices", tip))
        self.table.verticalHeader().hide()
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.DoubleClicked
                                   | QAbstractItemView.EditTrigger.EditKeyPressed)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.NoSelection)
        self.table.setAlternatingRowColors(True)
        header = self.table.horizontalHeader()
        header.setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        header.setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)  # the GPU's name wraps in what is left
        self.table.setWordWrap(True)
        self.table.setMinimumHeight(16 * self.fontMetrics().height())
        self.table.itemChanged.connect(self._price_typed)
        self._filling = False
        self._layout()
        self.recompute = Recompute(self, now=lambda: None, later=[self._compute])
        self.recompute.watch(scenario, EVERYTHING).watch(view, {"epochs", "max_gpus"})
        view.changed.connect(self._on_view)

    def _layout(self) -> None:
        intro = QLabel(self.tr(
            "Every GPU type the run fits on, the fewest of each (1, 2, 4 or whole nodes of 8, ZeRO-3 beyond one) "
            "and twice and four times as many, with the run's speed and hours: the dataset's tokens (Host RAM "
            "tab) times the epochs. Type your price per GPU-hour on a row to see what the run costs there; no "
            "price is shipped."), self)
        intro.setWordWrap(True)
        top = QHBoxLayout()
        for w in (self.rank, self.epochs, self.max_gpus):
            top.addWidget(w)
        top.addStretch(1)
        v = QVBoxLayout(self)
        v.addWidget(intro)
        v.addLayout(top)
        v.addWidget(self.note)
        v.addWidget(self.table, 1)

    def flush(self) -> None:
        """Write pending inputs and compute now (tests)."""
        self.binder.flush()
        self.recompute.flush()

    def _compute(self) -> None:
        sc, view = self.scenario, self.view_state
        self.options = gpu_options(sc.model, sc.setup, gpus(), max_gpus=int(view.get("max_gpus")),
                                   epochs=float(view.get("epochs")))
        self._show()

    def _on_view(self, fields: Fields) -> None:
        if touches(fields, {"prices", "rank_by_cost"}) and not touches(fields, {"epochs", "max_gpus"}):
            self._show()

    def price(self, gpu_id: str) -> float | None:
        """The user's price per GPU-hour for a GPU type (None: none typed)."""
        prices = self.view_state.get("prices")
        value = prices.get(gpu_id) if isinstance(prices, dict) else None
        return float(value) if value else None

    def cost(self, o: GpuOption) -> float | None:
        """The run's cost on ``o`` at the user's price (None: no price or no hours)."""
        p = self.price(o.gpu.id)
        return o.run_hours * o.count * p if p is not None and o.run_hours is not None else None

    def ranked(self) -> list[GpuOption]:
        """The options as the table shows them: by cost (those without one last) or by hours (fastest first)."""
        if self.view_state.get("rank_by_cost"):
            return sorted(self.options, key=lambda o: (self.cost(o) is None, self.cost(o) or 0.0,
                                                       -o.tokens_per_second))
        return list(self.options)

    def _show(self) -> None:
        has_data = bool(self.scenario.setup.host.dataset_tokens)
        self.note.setText("" if has_data else self.tr(
            "Set the dataset's tokens on the Host RAM tab to see the run's hours and cost."))
        self.note.setVisible(not has_data)
        if not self.options:
            self.note.setText(self.tr("The run fits on no GPU type within the limit: allow more GPUs, or try LoRA, "
                                      "QLoRA or a shorter sequence."))
            self.note.setVisible(True)
        rows = self.ranked()
        self._filling = True
        self.table.setRowCount(len(rows))
        for i, o in enumerate(rows):
            self._fill(i, o)
        self._filling = False
        self.table.resizeRowsToContents()

    def _cell(self, row: int, col: int, text: str, tip: str = "") -> None:
        item = QTableWidgetItem(text)
        item.setFlags(item.flags() & ~Qt.ItemFlag.ItemIsEditable)
        if col:
            item.setTextAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        if tip:
            item.setToolTip(tip)
        self.table.setItem(row, col, item)

    def _fill(self, i: int, o: GpuOption) -> None:
        t = o.time
        reason = t if isinstance(t, str) else ""
        self._cell(i, 0, o.gpu.name)
        self._cell(i, 1, str(o.count))
        self._cell(i, 2, f"{o.tokens_per_second:,.0f}" if isinstance(t, StepTime) else "—", reason)
        self._cell(i, 3, self.tr("{s:.3g} s").format(s=t.step_seconds) if isinstance(t, StepTime) else "—", reason)
        hours = o.run_hours
        self._cell(i, 4, f"{hours:,.1f}" if hours is not None else "—")
        cost = self.cost(o)
        self._cell(i, 6, f"{cost:,.2f}" if cost is not None else "—")
        typed = self.price(o.gpu.id)
        price = QTableWidgetItem(f"{typed:g}" if typed is not None else "—")
        price.setData(Qt.ItemDataRole.UserRole, o.gpu.id)
        price.setTextAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        price.setToolTip(self.tr("double-click to type your price per GPU-hour"))
        self.table.setItem(i, PRICE_COLUMN, price)

    def _price_typed(self, item: QTableWidgetItem) -> None:
        if self._filling or item.column() != PRICE_COLUMN:
            return
        try:
            value = float(item.text().replace(",", "").strip())
        except ValueError:  # "—", or not a number: no price
            value = 0.0
        self.set_price(str(item.data(Qt.ItemDataRole.UserRole)), value)

    def set_price(self, gpu_id: str, value: float) -> None:
        """The user typed a price for a GPU type (0 or less, or too large: no price)."""
        prices = dict(self.view_state.get("prices") or {})
        if 0 < value <= MAX_PRICE and math.isfinite(value):
            prices[gpu_id] = value
        else:
            prices.pop(gpu_id, None)
        self.view_state.update(prices=prices)
