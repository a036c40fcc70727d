"""The models one stage holds, as numbers per GPU: how each is held, what stays, what runs, and the totals.

Rows are ``StageMemory.roles``: resident bytes stay all step long (weights, optimizer states, a rollout engine's
share), the working set only while that role runs; the last rows are the stage's allocated peak and device total,
and, with a vLLM server for the rollout, what it needs on GPUs of its own (not in the device total).
"""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QAbstractItemView,
    QAbstractScrollArea,
    QHeaderView,
    QTableWidget,
    QTableWidgetItem,
    QWidget,
)

from engine.alignment import RoleCost, StageMemory
from engine.units import Unit, format_bytes
from gui.text.words import engine_text, held_as, role_name, term_name


class RoleTable(QTableWidget):
    """Read-only table of a stage's roles.

    Signals: none of its own.
    """

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(0, 4, parent)
        self.setHorizontalHeaderLabels([self.tr("Model"), self.tr("Held as"), self.tr("Stays"), self.tr("Runs")])
        for col, tip in ((2, self.tr("Bytes per GPU held all step long: weights, optimizer states, a rollout "
                                     "engine's share")),
                         (3, self.tr("Bytes per GPU only while this model runs: activations, gradients, logits, "
                                     "a forward pass"))):
            header_item = self.horizontalHeaderItem(col)
            if header_item is not None:
                header_item.setToolTip(tip)
        self.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.setSelectionMode(QAbstractItemView.SelectionMode.NoSelection)
        self.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        self.verticalHeader().setVisible(False)
        header = self.horizontalHeader()
        header.setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        header.setSectionResizeMode(1, QHeaderView.ResizeMode.Stretch)
        self.setWordWrap(True)
        self.setSizeAdjustPolicy(QAbstractScrollArea.SizeAdjustPolicy.AdjustToContents)
        self.setVerticalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)

    def show_stage(self, sm: StageMemory, unit: Unit) -> None:
        rows = [self._role_row(r, unit) for r in sm.roles]
        rows.append((self.tr("Allocated peak"), "", format_bytes(sm.allocated_bytes, unit), ""))
        rows.append((self.tr("Device total"), self.tr("of {gpu}").format(gpu=sm.gpu.name),
                     format_bytes(sm.device_bytes, unit), self.tr("fits") if sm.fits else self.tr("does not fit")))
        if sm.elsewhere_bytes:
            rows.append((self.tr("vLLM server"), self.tr("on GPUs of its own"), format_bytes(sm.elsewhere_bytes, unit),
                         ""))
        self.setRowCount(len(rows))
        for i, row in enumerate(rows):
            for j, text in enumerate(row):
                item = QTableWidgetItem(text)
                if j >= 2:
                    item.setTextAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
                if i < len(sm.roles):
                    item.setToolTip(self._parts(sm.roles[i], unit))
                else:
                    item.setToolTip(self._total_tip(i - len(sm.roles)))
                    font = item.font()
                    font.setBold(True)
                    item.setFont(font)
                self.setItem(i, j, item)
        self.resizeRowsToContents()

    def _role_row(self, r: RoleCost, unit: Unit) -> tuple[str, str, str, str]:
        held = held_as(r.role.value, r.mode.value, r.holding.value) + (" ⚠" if r.note else "")
        stays = format_bytes(r.resident_bytes, unit) if r.resident_bytes else "–"
        runs = format_bytes(r.transient_bytes, unit) if r.transient_bytes else "–"
        return role_name(r.role.value), held, stays, runs

    def _total_tip(self, which: int) -> str:
        if which == 0:
            return self.tr("What stays all step, plus the largest working set: the roles run one after another.")
        if which == 1:
            return self.tr("The allocated peak with the allocator's reserve, plus the rollout engine's share and "
                           "the CUDA context.")
        return self.tr("The rollout server's 16-bit weights and the KV cache of every training GPU's generation "
                       "batch, on GPUs of its own: not in the device total.")

    @staticmethod
    def _parts(r: RoleCost, unit: Unit) -> str:
        """The tooltip: what the bytes are made of."""
        parts = {**r.resident, **{f"~{k}": v for k, v in r.transient.items()}}
        lines = [f"{term_name(k.lstrip('~'))}: {format_bytes(v, unit)}" for k, v in parts.items() if v]
        return "\n".join([*lines, engine_text(r.note)] if r.note else lines)

    def cell(self, row: int, column: int) -> str:
        item = self.item(row, column)
        return item.text() if item is not None else ""
