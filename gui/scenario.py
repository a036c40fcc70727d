"""The one observable scenario shared by every page: which model, how it is trained, on which GPU, in which unit.

Pages read ``scenario.model``, ``.setup``, ``.gpu`` and ``.unit``, ask the engine for results and redraw on
``changed``. Controls write through ``update`` (usually via ``gui.binding``), which validates with the engine's
pydantic models, so the GUI never holds a state the engine would reject.

Field names accepted by ``update`` and ``get``:
- ``model`` (``ModelSpec``), ``gpu`` (``GpuSpec``), ``unit`` (``Unit``), ``setup`` (``TrainingSetup``);
- any ``TrainingSetup`` field (``method``, ``seq_len``, ``batch``, ...);
- a nested setup field as a dotted path: ``update(**{"lora.rank": 32, "quant.quant_type": QuantType.FP4})``.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from pydantic import BaseModel, ValidationError
from PySide6.QtCore import QObject, Signal

from engine.catalog import get_gpu, get_model
from engine.specs import GpuSpec, ModelSpec, TrainingSetup
from engine.units import Unit
from gui.scenario_file import DEFAULT_GPU, DEFAULT_MODEL

_TOP = {"model": ModelSpec, "gpu": GpuSpec, "unit": Unit, "setup": TrainingSetup}


class ScenarioError(ValueError):
    """A rejected update: the message starts with the field at fault; the scenario is left unchanged."""


def _setup_with(setup: TrainingSetup, changes: dict[str, Any]) -> TrainingSetup:
    data = setup.model_dump()
    for path, value in changes.items():
        head, _, tail = path.partition(".")
        if head not in TrainingSetup.model_fields or (tail and tail not in _sub_fields(head)):
            raise ScenarioError(f"{path}: no such scenario field")
        if tail:
            data[head] = {**data[head], tail: value}
        else:
            data[head] = value
    try:
        return TrainingSetup.model_validate(data)
    except ValidationError as err:
        first = err.errors()[0]
        where = ".".join(str(x) for x in first["loc"]) or ", ".join(changes)
        raise ScenarioError(f"{where}: {first['msg']}") from None


def _sub_fields(head: str) -> dict[str, Any]:
    annotation = TrainingSetup.model_fields[head].annotation
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return dict(annotation.model_fields)
    return {}


class Scenario(QObject):
    """The shared, validated scenario state.

    Signals:
        changed(): the scenario really changed; emitted once per ``update`` call (or once per ``batch()``
            block), never when an update leaves every value as it was.
    """

    changed = Signal()

    def __init__(
        self,
        model: ModelSpec | None = None,
        setup: TrainingSetup | None = None,
        gpu: GpuSpec | None = None,
        unit: Unit = Unit.GB,
        parent: QObject | None = None,
    ) -> None:
        super().__init__(parent)
        self._state: dict[str, Any] = {
            "model": model or get_model(DEFAULT_MODEL),
            "setup": setup or TrainingSetup(),
            "gpu": gpu or get_gpu(DEFAULT_GPU),
            "unit": unit,
        }
        self._batch_depth = 0
        self._dirty = False

    @property
    def model(self) -> ModelSpec:
        return self._state["model"]

    @property
    def setup(self) -> TrainingSetup:
        return self._state["setup"]

    @property
    def gpu(self) -> GpuSpec:
        return self._state["gpu"]

    @property
    def unit(self) -> Unit:
        return self._state["unit"]

    def get(self, field: str) -> Any:
        """The current value of a field (top-level, setup field or dotted nested path)."""
        if field in _TOP:
            return self._state[field]
        value: Any = self.setup
        for part in field.split("."):
            if not isinstance(value, BaseModel) or part not in type(value).model_fields:
                raise ScenarioError(f"{field}: no such scenario field")
            value = getattr(value, part)
        return value

    def update(self, **fields: Any) -> bool:
        """Set several fields at once; emit ``changed`` once if anything changed. Returns whether it did.

        Raises ``ScenarioError`` (a ``ValueError``) naming the field when a value is rejected.
        """
        new = dict(self._state)
        for name in ("model", "gpu", "unit", "setup"):
            if name in fields:
                new[name] = self._checked(name, fields.pop(name))
        if fields:
            new["setup"] = _setup_with(new["setup"], fields)
        if new == self._state:
            return False
        self._state = new
        self._notify()
        return True

    @contextmanager
    def batch(self) -> Iterator[None]:
        """Group several ``update`` calls (e.g. a preset) into one ``changed`` emission at the end."""
        self._batch_depth += 1
        try:
            yield
        finally:
            self._batch_depth -= 1
            if self._batch_depth == 0 and self._dirty:
                self._dirty = False
                self.changed.emit()

    def _notify(self) -> None:
        if self._batch_depth:
            self._dirty = True
        else:
            self.changed.emit()

    @staticmethod
    def _checked(name: str, value: Any) -> Any:
        kind = _TOP[name]
        if kind is Unit:
            try:
                return Unit(value)
            except ValueError:
                raise ScenarioError(f"unit: {value!r} is not one of {[u.value for u in Unit]}") from None
        if not isinstance(value, kind):
            raise ScenarioError(f"{name}: expected a {kind.__name__}, got {type(value).__name__}")
        return value
