"""The layout planner's rows as a sortable table: a ``QAbstractTableModel`` over ``engine.training.planner.PlanRow``
and the ``QTableView`` that shows it through a sorting proxy.

Each cell's text is the engine's number as the user reads it (bytes in the scenario's unit, sizes, switches); its
sort key (``SORT_ROLE``) is the number itself, so columns sort numerically. The row whose setup is the scenario's
own is drawn in bold. The communication column words the engine's cost ids (``engine.training.planner.costs``),
one translated text per id, as the roadmap words its rungs. The last two columns are each row's time
(``engine.timing``, computed with the search): the run's tokens/s over all its GPUs and the run's hours for the
dataset's tokens times the epochs (a dash without a dataset, or where the row cannot be timed: its reason is the
cell's tooltip).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from PySide6.QtCore import (
    QAbstractTableModel,
    QModelIndex,
    QPersistentModelIndex,
    QSortFilterProxyModel,
    Qt,
)
from PySide6.QtGui import QFont
from PySide6.QtWidgets import QAbstractItemView, QHeaderView, QTableView, QWidget

from engine.specs import Checkpointing, Sharding, TrainingSetup
from engine.timing import StepTime
from engine.training.planner import Cost, PlanRow, costs
from engine.units import Unit, format_bytes
from gui.text.tr import QT_TRANSLATE_NOOP, translate

SORT_ROLE = Qt.ItemDataRole.UserRole
Index = QModelIndex | QPersistentModelIndex

COSTS: dict[Cost, str] = {
    Cost.TP_NODE: QT_TRANSLATE_NOOP("PlanTable", "TP {v:.0f} inside a node"),
    Cost.TP_ACROSS: QT_TRANSLATE_NOOP("PlanTable", "TP {v:.0f} across nodes: slow"),
    Cost.PP_BUBBLE: QT_TRANSLATE_NOOP("PlanTable", "pipeline bubble {v:.0%}"),
    Cost.CP_RING: QT_TRANSLATE_NOOP("PlanTable", "CP {v:.0f}: ring attention passes K, V around"),
    Cost.EP_ALL_TO_ALL: QT_TRANSLATE_NOOP("PlanTable", "EP {v:.0f}: an all-to-all per MoE layer"),
    Cost.ZERO3: QT_TRANSLATE_NOOP("PlanTable", "ZeRO-3: {v:g}× the traffic of data parallelism"),
    Cost.DP_ONLY: QT_TRANSLATE_NOOP("PlanTable", "data parallelism only"),
}
# between two costs ("TP 2 inside a node; pipeline bubble 12%")
SEPARATOR = QT_TRANSLATE_NOOP("PlanTable", "; ")
_SHARDING = {Sharding.NONE: "—", Sharding.ZERO1: "1", Sharding.ZERO2: "2", Sharding.ZERO3: "3"}


def communication(row: PlanRow) -> str:
    """What the row's layout costs in communication, in the user's language."""
    return translate("PlanTable", SEPARATOR).join(translate("PlanTable", COSTS[kind]).format(v=v)
                                                  for kind, v in costs(row.estimate))


@dataclass(frozen=True, slots=True)
class Column:
    """One column: its header (source text), its sort key and its text for a row."""

    header: str
    key: Callable[[PlanRow], float | str]
    text: Callable[[PlanRow, Unit], str]
    numeric: bool = True


def _size(header: str, get: Callable[[TrainingSetup], int]) -> Column:
    return Column(header, lambda r: get(r.setup), lambda r, _u: str(get(r.setup)))


def _bytes(header: str, get: Callable[[PlanRow], int]) -> Column:
    return Column(header, get, lambda r, u: format_bytes(get(r), u, 1))


COLUMNS: tuple[Column, ...] = (
    _size(QT_TRANSLATE_NOOP("PlanTable", "GPUs"), lambda s: s.gpus),
    _size(QT_TRANSLATE_NOOP("PlanTable", "DP"), lambda s: s.dp),
    _size(QT_TRANSLATE_NOOP("PlanTable", "TP"), lambda s: s.parallel.tp),
    _size(QT_TRANSLATE_NOOP("PlanTable", "PP"), lambda s: s.parallel.pp),
    _size(QT_TRANSLATE_NOOP("PlanTable", "CP"), lambda s: s.parallel.cp),
    _size(QT_TRANSLATE_NOOP("PlanTable", "EP"), lambda s: s.parallel.ep),
    Column(QT_TRANSLATE_NOOP("PlanTable", "ZeRO"), lambda r: list(Sharding).index(r.setup.sharding),
           lambda r, _u: _SHARDING[r.setup.sharding]),
    Column(QT_TRANSLATE_NOOP("PlanTable", "SP"), lambda r: int(r.setup.parallel.sequence_parallel),
           lambda r, _u: "✓" if r.setup.parallel.sequence_parallel else "—"),
    Column(QT_TRANSLATE_NOOP("PlanTable", "Ckpt"), lambda r: int(r.setup.checkpointing is not Checkpointing.NONE),
           lambda r, _u: "✓" if r.setup.checkpointing is not Checkpointing.NONE else "—"),
    _size(QT_TRANSLATE_NOOP("PlanTable", "µB"), lambda s: s.parallel.micro_batches),
    _bytes(QT_TRANSLATE_NOOP("PlanTable", "Allocated"), lambda r: r.estimate.peak_allocated_bytes),
    _bytes(QT_TRANSLATE_NOOP("PlanTable", "Device"), lambda r: r.estimate.device_bytes),
    Column(QT_TRANSLATE_NOOP("PlanTable", "Communication"), communication, lambda r, _u: communication(r),
           numeric=False),
)
#: the time columns, after COLUMNS: they read the row's step time, which the model holds beside the rows
TOKENS_PER_SECOND = QT_TRANSLATE_NOOP("PlanTable", "Tokens/s")
RUN_HOURS = QT_TRANSLATE_NOOP("PlanTable", "Run hours")
TIME_HEADERS = (TOKENS_PER_SECOND, RUN_HOURS)
TIPS = {
    "Tokens/s": QT_TRANSLATE_NOOP("PlanTable", "the run's tokens per second over all its GPUs (the step-time model)"),
    "Run hours": QT_TRANSLATE_NOOP("PlanTable", "the dataset's tokens times the epochs at that speed (set the "
                                                "dataset's tokens on the Host RAM tab)"),
    "DP": QT_TRANSLATE_NOOP("PlanTable", "data-parallel replicas"),
    "TP": QT_TRANSLATE_NOOP("PlanTable", "tensor-parallel size"),
    "PP": QT_TRANSLATE_NOOP("PlanTable", "pipeline stages"),
    "CP": QT_TRANSLATE_NOOP("PlanTable", "context-parallel size"),
    "EP": QT_TRANSLATE_NOOP("PlanTable", "expert-parallel size"),
    "ZeRO": QT_TRANSLATE_NOOP("PlanTable", "ZeRO stage over the data-parallel ranks"),
    "SP": QT_TRANSLATE_NOOP("PlanTable", "sequence parallelism"),
    "Ckpt": QT_TRANSLATE_NOOP("PlanTable", "gradient checkpointing"),
    "µB": QT_TRANSLATE_NOOP("PlanTable", "micro-batches per step"),
    "Allocated": QT_TRANSLATE_NOOP("PlanTable", "allocated peak per GPU (the most loaded stage)"),
    "Device": QT_TRANSLATE_NOOP("PlanTable", "device total per GPU, what nvidia-smi shows (the most loaded stage)"),
}


#: the time columns sit before the communication column, which stays last (it stretches)
FIRST_TIME_COLUMN = len(COLUMNS) - 1


def _time_column(section: int) -> int | None:
    """Which time column a view column is (None: one of ``COLUMNS``)."""
    i = section - FIRST_TIME_COLUMN
    return i if 0 <= i < len(TIME_HEADERS) else None


def _column(section: int) -> Column:
    """The ``COLUMNS`` entry a view column shows (the time columns skipped)."""
    return COLUMNS[section if section < FIRST_TIME_COLUMN else section - len(TIME_HEADERS)]


class PlanTableModel(QAbstractTableModel):
    """The planner's rows, in the engine's order (fewest GPUs first, then the lowest device total).

    Signals: the model's own (``modelReset`` when rows are set).
    """

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._rows: list[PlanRow] = []
        self._unit = Unit.GB
        self._current: TrainingSetup | None = None
        self._times: dict[TrainingSetup, StepTime | str] = {}
        self._run_tokens = 0.0
        self._bold = QFont()
        self._bold.setBold(True)

    def set_rows(self, rows: Sequence[PlanRow], unit: Unit, current: TrainingSetup | None) -> None:
        """Show ``rows`` (the engine's, as they are) in ``unit``; the row whose setup is ``current`` in bold."""
        self.beginResetModel()
        self._rows, self._unit, self._current = list(rows), unit, current
        self.endResetModel()

    def set_times(self, times: dict[TrainingSetup, StepTime | str], run_tokens: float) -> None:
        """Each row's step time (by its setup), and the run's tokens (dataset x epochs; 0: no dataset)."""
        self.beginResetModel()
        self._times, self._run_tokens = dict(times), run_tokens
        self.endResetModel()

    def tokens_per_second(self, row: PlanRow) -> float:
        """The run's tokens/s over the row's GPUs (0 when not timed)."""
        t = self._times.get(row.setup)
        return t.tokens_per_second_per_gpu * row.setup.gpus if isinstance(t, StepTime) else 0.0

    def run_hours(self, row: PlanRow) -> float | None:
        """The run's hours on the row's layout (None: no dataset, or not timed)."""
        speed = self.tokens_per_second(row)
        return self._run_tokens / speed / 3600 if speed and self._run_tokens else None

    def _time_data(self, row: PlanRow, column: int, role: int) -> Any:
        header = TIME_HEADERS[column]
        t = self._times.get(row.setup)
        if role == Qt.ItemDataRole.ToolTipRole:
            return t if isinstance(t, str) else None
        if role == Qt.ItemDataRole.TextAlignmentRole:
            return int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        if header == TOKENS_PER_SECOND:
            speed = self.tokens_per_second(row)
            return speed if role == SORT_ROLE else (f"{speed:,.0f}" if speed else "—")
        hours = self.run_hours(row)
        if role == SORT_ROLE:
            return hours if hours is not None else float("inf")
        return f"{hours:,.1f}" if hours is not None else "—"

    def rows(self) -> list[PlanRow]:
        return list(self._rows)

    def row_at(self, row: int) -> PlanRow:
        return self._rows[row]

    def rowCount(self, parent: Index = QModelIndex()) -> int:  # noqa: B008 (Qt's signature)
        return 0 if parent.isValid() else len(self._rows)

    def columnCount(self, parent: Index = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else len(COLUMNS) + len(TIME_HEADERS)

    def data(self, index: Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid():
            return None
        timed = _time_column(index.column())
        if timed is not None:
            row = self._rows[index.row()]
            if role == Qt.ItemDataRole.FontRole and row.setup == self._current:
                return self._bold
            if role in (Qt.ItemDataRole.DisplayRole, SORT_ROLE, Qt.ItemDataRole.ToolTipRole,
                        Qt.ItemDataRole.TextAlignmentRole):
                return self._time_data(row, timed, role)
            return None
        row, col = self._rows[index.row()], _column(index.column())
        if role == Qt.ItemDataRole.DisplayRole:
            return col.text(row, self._unit)
        if role == SORT_ROLE:
            return col.key(row)
        if role == Qt.ItemDataRole.TextAlignmentRole:
            return int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter) if col.numeric else None
        if role == Qt.ItemDataRole.ToolTipRole:
            return communication(row)
        if role == Qt.ItemDataRole.FontRole and row.setup == self._current:
            return self._bold
        return None

    def headerData(self, section: int, orientation: Qt.Orientation, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if orientation != Qt.Orientation.Horizontal:
            return None
        timed = _time_column(section)
        header = TIME_HEADERS[timed] if timed is not None else _column(section).header
        if role == Qt.ItemDataRole.DisplayRole:
            return translate("PlanTable", header)
        if role == Qt.ItemDataRole.ToolTipRole and header in TIPS:
            return translate("PlanTable", TIPS[header])
        return None


class PlanTable(QTableView):
    """A sortable, single-selection view of a ``PlanTableModel`` (click a header to sort by its numbers).

    Signals: the view's own (``activated`` on a double-click or Enter).
    """

    def __init__(self, model: PlanTableModel, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.plan_model = model
        self.proxy = QSortFilterProxyModel(self)
        self.proxy.setSourceModel(model)
        self.proxy.setSortRole(SORT_ROLE)
        self.setModel(self.proxy)
        self.setSortingEnabled(True)
        self.sortByColumn(0, Qt.SortOrder.AscendingOrder)
        self.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.setAlternatingRowColors(True)
        self.verticalHeader().hide()
        self.verticalHeader().setDefaultSectionSize(self.fontMetrics().height() + 8)
        header = self.horizontalHeader()
        header.setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        header.setStretchLastSection(True)

    def source_row(self, index: QModelIndex) -> PlanRow:
        """The engine's row under a view index."""
        return self.plan_model.row_at(self.proxy.mapToSource(index).row())

    def selected(self) -> PlanRow | None:
        """The selected row, if any."""
        rows = self.selectionModel().selectedRows()
        return self.source_row(rows[0]) if rows else None

    def sort_fastest(self, fastest: bool) -> None:
        """Fastest first (the tokens/s column, descending) or the engine's order (GPUs, ascending)."""
        if fastest:
            self.sortByColumn(FIRST_TIME_COLUMN, Qt.SortOrder.DescendingOrder)
        else:
            self.sortByColumn(0, Qt.SortOrder.AscendingOrder)

    def shown(self) -> list[PlanRow]:
        """The rows in the order the view shows them (sorted)."""
        return [self.source_row(self.proxy.index(i, 0)) for i in range(self.proxy.rowCount())]
