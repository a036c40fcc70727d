"""A searchable model picker grouped by family, with parameter counts; imported models join an "Imported" group,
and the models already in this computer's Hugging Face cache (engine.catalog.local) an "On this computer" group.

Family headings are disabled items drawn in the text colour (bold), so the picker maps rows to models itself
(:meth:`model_at`); typing filters the list (a case-insensitive "contains" completer), as in a search box.
"""

from __future__ import annotations

from collections.abc import Iterable

from PySide6.QtCore import Qt
from PySide6.QtGui import QBrush, QFont, QPalette, QStandardItem, QStandardItemModel
from PySide6.QtWidgets import QComboBox, QCompleter, QWidget

from engine.params import count_params
from engine.specs import ModelSpec
from engine.units import format_count
from gui.look.follows_palette import FollowsPalette

_MODEL_ROLE = Qt.ItemDataRole.UserRole + 1


class ModelPicker(FollowsPalette, QComboBox):
    """Catalog and imported models, grouped.

    Signals: inherits ``QComboBox.activated`` / ``currentIndexChanged``; read the choice with :meth:`current_model`.
    """

    def __init__(
        self, models: Iterable[ModelSpec], parent: QWidget | None = None, local: Iterable[ModelSpec] = ()
    ) -> None:
        super().__init__(parent)
        self._items = QStandardItemModel(self)
        self.setModel(self._items)
        self.setEditable(True)
        self.setInsertPolicy(QComboBox.InsertPolicy.NoInsert)
        self.setMaxVisibleItems(24)
        completer = QCompleter(self._items, self)
        completer.setFilterMode(Qt.MatchFlag.MatchContains)
        completer.setCaseSensitivity(Qt.CaseSensitivity.CaseInsensitive)
        completer.setCompletionMode(QCompleter.CompletionMode.PopupCompletion)
        self.setCompleter(completer)
        family = None
        for m in models:
            if m.family != family:
                family = m.family
                self._heading(family)
            self._add(m)
        self.add_local(local)
        self.follow_palette()

    def add_local(self, models: Iterable[ModelSpec]) -> None:
        """List models found in the local Hugging Face cache under an "On this computer" heading."""
        heading = self.tr("On this computer")
        for m in models:
            if any(self.model_at(r) == m for r in range(self._items.rowCount())):
                continue
            if not self._items.findItems(heading):
                self._heading(heading)
            self._add(m)

    def _heading(self, text: str) -> None:
        """A family heading: not selectable, bold, in the text colour (a disabled item's grey is hard to read
        between 80 models)."""
        item = QStandardItem(text)
        item.setFlags(Qt.ItemFlag.NoItemFlags)
        font = QFont(self.font())
        font.setBold(True)
        item.setFont(font)
        item.setForeground(self._heading_brush())
        self._items.appendRow(item)

    def _heading_brush(self) -> QBrush:
        return self.palette().brush(QPalette.ColorGroup.Active, QPalette.ColorRole.WindowText)

    def palette_changed(self) -> None:
        """A theme change (light, dark, high contrast) repaints the headings in the new text colour."""
        for row in range(self._items.rowCount()):
            item = self._items.item(row)
            if item is not None and self.model_at(row) is None:
                item.setForeground(self._heading_brush())

    def _add(self, m: ModelSpec) -> int:
        item = QStandardItem(f"{m.label} — {format_count(count_params(m).total)}")
        item.setData(m, _MODEL_ROLE)
        self._items.appendRow(item)
        return item.row()

    def add_imported(self, m: ModelSpec) -> None:
        """Add (or replace, by id) an imported model under the "Imported" heading."""
        for row in range(self._items.rowCount()):
            existing = self.model_at(row)
            if existing is not None and existing.id == m.id and existing != m:
                self._items.item(row).setData(m, _MODEL_ROLE)
                return
            if existing == m:
                return
        if not self._items.findItems(self.tr("Imported")):
            self._heading(self.tr("Imported"))
        self._add(m)

    def model_at(self, row: int) -> ModelSpec | None:
        if row < 0:
            return None
        item = self._items.item(row)
        value = item.data(_MODEL_ROLE) if item is not None else None
        return value if isinstance(value, ModelSpec) else None

    def current_model(self) -> ModelSpec | None:
        return self.model_at(self.currentIndex())

    def show_model(self, m: ModelSpec) -> None:
        """Select ``m``, adding it under "Imported" first if it is not listed."""
        rows = [r for r in range(self._items.rowCount()) if self.model_at(r) == m]
        if not rows:
            self.add_imported(m)
            rows = [r for r in range(self._items.rowCount()) if self.model_at(r) == m]
        self.setCurrentIndex(rows[0])


def cached_models() -> list[ModelSpec]:
    """The models of the local Hugging Face cache that import (engine.catalog.local); a broken one is left out
    here (``python -m engine models --local`` lists it with its error)."""
    from engine.catalog.local import local_models

    return [m.spec for m in local_models() if m.spec is not None]
