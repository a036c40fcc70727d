"""Maps a ``QSlider``'s integer positions to a field's real domain: linear, logarithmic or powers of two.

Ranges come from the engine's bounds (``engine.specs.field_bounds``), narrowed to the window the GUI offers
(``gui.state.ranges``), so that no slider repeats a number the engine already defines.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from enum import StrEnum

from pydantic import BaseModel

from engine.specs import TrainingSetup, field_bounds


class ScaleKind(StrEnum):
    LINEAR = "linear"
    LOG = "log"
    POW2 = "pow2"  # positions are exponents: 128, 256, 512, ...


@dataclass(frozen=True, slots=True)
class SliderScale:
    """``lo``..``hi`` over ``steps`` slider positions (POW2: one position per power of two)."""

    lo: float
    hi: float
    kind: ScaleKind = ScaleKind.LINEAR
    integer: bool = True
    steps: int = 1000

    @property
    def positions(self) -> int:
        """The slider's maximum (its minimum is 0)."""
        if self.kind is ScaleKind.POW2:
            return round(math.log2(self.hi / self.lo))
        if self.kind is ScaleKind.LINEAR and self.integer:
            return min(self.steps, int(self.hi - self.lo))
        return self.steps

    def to_value(self, position: int) -> float:
        """The field value at a slider position."""
        t = min(max(position, 0), self.positions) / self.positions
        if self.kind is ScaleKind.POW2:
            value = self.lo * 2.0 ** round(t * self.positions)
        elif self.kind is ScaleKind.LOG:
            value = self.lo * (self.hi / self.lo) ** t
        else:
            value = self.lo + t * (self.hi - self.lo)
        return float(round(value)) if self.integer else value

    def to_position(self, value: float) -> int:
        """The slider position nearest to a field value (clamped to the range)."""
        v = min(max(value, self.lo), self.hi)
        if self.kind is ScaleKind.LINEAR:
            t = (v - self.lo) / (self.hi - self.lo)
        else:
            t = math.log(v / self.lo) / math.log(self.hi / self.lo)
        return round(t * self.positions)

    @classmethod
    def for_field(
        cls,
        field: str,
        kind: ScaleKind,
        ui: tuple[float, float] | None = None,
        steps: int = 1000,
        model: type[BaseModel] = TrainingSetup,
    ) -> SliderScale:
        """A scale for a field of ``model`` (default the training setup; dotted paths allowed), bounded by the
        engine and by ``ui``."""
        owner, name = owner_of(field, model)
        lo, hi = field_bounds(owner, name)
        if ui is not None:
            lo = ui[0] if lo is None else max(lo, ui[0])
            hi = ui[1] if hi is None else min(hi, ui[1])
        if lo is None or hi is None:
            raise ValueError(f"{field}: unbounded; give a ui=(lo, hi) range")
        integer = owner.model_fields[name].annotation is int
        return cls(lo, hi, kind, integer, steps)


def owner_of(field: str, model: type[BaseModel] = TrainingSetup) -> tuple[type[BaseModel], str]:
    """The pydantic model class that declares a (possibly dotted) field of ``model``, and the field's own name."""
    owner = model
    *heads, name = field.split(".")
    for head in heads:
        annotation = owner.model_fields[head].annotation
        assert isinstance(annotation, type)
        assert issubclass(annotation, BaseModel)
        owner = annotation
    if name not in owner.model_fields:
        raise ValueError(f"{field}: no such field of {model.__name__}")
    return owner, name
