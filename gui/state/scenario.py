"""The one observable scenario shared by every page: which model, how it is trained, on which GPU, in which unit.

A ``PageState`` (``gui.state.page_state``) over ``ScenarioData`` (``gui.state.scenario_data``): pages read
``scenario.model``, ``.setup``, ``.gpu`` and ``.unit``, declare which of them they read, and recompute when
``changed`` names one of those fields. Controls write through ``update`` (usually via ``gui.state.binding``),
validated by the engine's pydantic models, so the GUI never holds a state the engine would reject.

Field names accepted by ``update`` and ``get``:
- ``model`` (``ModelSpec``), ``gpu`` (``GpuSpec``), ``unit`` (``Unit``), ``setup`` (``TrainingSetup``);
- any ``TrainingSetup`` field, short (``method``) or in full (``setup.method``);
- a nested setup field as a dotted path: ``update(**{"lora.rank": 32, "quant.quant_type": QuantType.FP4})``.

``changed`` names fields in full: ``{"setup.lora.rank"}``, ``{"model"}``, ``{"gpu", "unit"}``.
"""

from __future__ import annotations

from PySide6.QtCore import QObject

from engine.catalog import DEFAULT_GPU, DEFAULT_MODEL, get_gpu, get_model
from engine.specs import GpuSpec, ModelSpec, TrainingSetup
from engine.units import Unit
from gui.state.page_state import Fields, PageState, StateError
from gui.state.scenario_data import ScenarioData

#: a rejected scenario update (the page states' ``StateError``)
ScenarioError = StateError

#: every field of the scenario, for a page that reads all of it
EVERYTHING: Fields = frozenset(ScenarioData.model_fields)


class Scenario(PageState[ScenarioData]):
    """The shared, validated scenario state.

    Signals:
        changed(frozenset[str]): the full paths of the fields that really changed (see ``PageState``).
    """

    atomic = frozenset({"model", "gpu"})

    def __init__(
        self,
        model: ModelSpec | None = None,
        setup: TrainingSetup | None = None,
        gpu: GpuSpec | None = None,
        unit: Unit = Unit.GB,
        parent: QObject | None = None,
    ) -> None:
        data = ScenarioData(model=model or get_model(DEFAULT_MODEL), setup=setup or TrainingSetup(),
                            gpu=gpu or get_gpu(DEFAULT_GPU), unit=unit)
        super().__init__(data, parent)

    def path(self, field: str) -> str:
        """A training setup field may be named without its ``setup.`` prefix."""
        return field if field.partition(".")[0] in ScenarioData.model_fields else f"setup.{field}"

    @property
    def model(self) -> ModelSpec:
        return self.value.model

    @property
    def setup(self) -> TrainingSetup:
        return self.value.setup

    @property
    def gpu(self) -> GpuSpec:
        return self.value.gpu

    @property
    def unit(self) -> Unit:
        return self.value.unit
