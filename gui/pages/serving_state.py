"""The serving page's own settings (context length, concurrency, dtypes, tensor parallelism), observable.

Model, GPU and unit live in the shared ``Scenario``; these serving-only fields live here, in an
``engine.serving.ServingSetup``, behind the same ``get`` / ``update`` / ``changed`` interface, so that the one
binding helper (``gui.binding.Binder``) binds the page's sliders and pickers to it as it does to the scenario.
"""

from __future__ import annotations

from typing import Any

from pydantic import ValidationError
from PySide6.QtCore import QObject, Signal

from engine.serving import ServingSetup
from gui.scenario import ScenarioError


class ServingState(QObject):
    """A validated ``ServingSetup``.

    Signals:
        changed(): the setup really changed (once per ``update`` call).
    """

    changed = Signal()

    def __init__(self, setup: ServingSetup | None = None, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._setup = setup or ServingSetup()

    @property
    def setup(self) -> ServingSetup:
        return self._setup

    def get(self, field: str) -> Any:
        if field not in ServingSetup.model_fields:
            raise ScenarioError(f"{field}: no such serving field")
        return getattr(self._setup, field)

    def update(self, **fields: Any) -> bool:
        """Set fields at once, validated by the engine; emit ``changed`` once if anything changed."""
        unknown = set(fields) - set(ServingSetup.model_fields)
        if unknown:
            raise ScenarioError(f"{sorted(unknown)[0]}: no such serving field")
        try:
            new = self._setup.with_(**fields)
        except ValidationError as err:
            first = err.errors()[0]
            raise ScenarioError(f"{'.'.join(str(x) for x in first['loc'])}: {first['msg']}") from None
        if new == self._setup:
            return False
        self._setup = new
        self.changed.emit()
        return True
