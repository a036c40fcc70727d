"""The one state pattern of every page: a validated pydantic model, observable field by field.

A page's state is a frozen pydantic model held by a ``PageState``: the shared ``Scenario`` (model, training
setup, GPU, unit), the serving page's ``ServingSetup``, the alignment page's options, the levers page's choices.
Controls write through ``update`` (usually via ``gui.state.binding.Binder``); the engine's own model validates every
write, so a state is never one the engine would reject, and a rejected write raises ``StateError`` naming the
field and changes nothing.

``changed`` carries the dotted paths of the fields whose value changed (``frozenset({"setup.lora.rank"})``):
a view re-reads only when a path it reads is touched (``touches``), and a page recomputes only then
(``gui.state.recompute``). Paths name leaves, except under the state's ``atomic`` fields, which are replaced whole
(the scenario's ``model`` and ``gpu``: one path each, whatever inside them differs).

Usage::

    state = PageState(ServingSetup())
    state.changed.connect(lambda fields: print(sorted(fields)))
    state.update(tokens=8192, tp=2)              # prints ['tokens', 'tp'], once
    with state.batch():                          # several updates, one ``changed`` at the end
        state.update(tokens=4096)
        state.update(sequences=8)
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from contextlib import contextmanager
from typing import Any, ClassVar, Generic, TypeVar

from pydantic import BaseModel, ValidationError
from PySide6.QtCore import QObject, Signal

from engine.errors import one_line

M = TypeVar("M", bound=BaseModel)
Fields = frozenset[str]


class StateError(ValueError):
    """A rejected write: the message starts with the field at fault; the state is left unchanged."""


def touches(changed: Iterable[str], reads: Iterable[str]) -> bool:
    """Whether a change of the ``changed`` paths concerns a reader of the ``reads`` paths: a reader of
    ``setup`` is touched by ``setup.lora.rank``, a reader of ``setup.lora.rank`` by a new ``setup``."""
    return any(_related(c, r) for c in changed for r in reads)


def _related(a: str, b: str) -> bool:
    return a == b or a.startswith(b + ".") or b.startswith(a + ".")


class PageState(QObject, Generic[M]):
    """A validated, observable pydantic model.

    Signals:
        changed(frozenset[str]): the dotted paths whose values really changed; once per ``update`` call (or per
            ``batch()`` block), never when an update leaves every value as it was.
    """

    changed = Signal(object)
    #: paths reported whole when they change (their own fields are not listed one by one)
    atomic: ClassVar[Fields] = frozenset()

    def __init__(self, value: M, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._value = value
        self._batch_depth = 0
        self._pending: set[str] = set()

    @property
    def value(self) -> M:
        """The whole state, as the engine takes it."""
        return self._value

    def path(self, field: str) -> str:
        """The canonical dotted path of ``field`` (a state may accept shorter names; see ``Scenario``)."""
        return field

    def get(self, field: str) -> Any:
        """The current value of a field (a dotted path reaches into nested models)."""
        return _walk(self._value, self.path(field))

    def update(self, **fields: Any) -> bool:
        """Set several fields at once (dotted paths allowed: ``update(**{"lora.rank": 32})``), validated together,
        so that a rule across fields passes when they change together. Emits ``changed`` once if anything
        changed; returns whether it did. Raises ``StateError`` naming the field when the engine rejects it."""
        changes = {self.path(name): value for name, value in fields.items()}
        for path in changes:
            _walk(self._value, path)
        try:
            new = type(self._value).model_validate(_with(self._value, changes))
        except ValidationError as err:
            raise StateError(one_line(err, fallback=", ".join(changes))) from None
        return self._set(new)

    def replace(self, value: M) -> bool:
        """Put a whole new value (already validated: it is a model); ``changed`` names what differs."""
        return self._set(value)

    @contextmanager
    def batch(self) -> Iterator[None]:
        """Group several ``update`` calls (a preset, a loaded file) into one ``changed`` at the end."""
        self._batch_depth += 1
        try:
            yield
        finally:
            self._batch_depth -= 1
            if self._batch_depth == 0 and self._pending:
                fields, self._pending = frozenset(self._pending), set()
                self.changed.emit(fields)

    def _set(self, new: M) -> bool:
        fields = diff(self._value, new, self.atomic)
        if not fields:
            return False
        self._value = new
        if self._batch_depth:
            self._pending |= fields
        else:
            self.changed.emit(fields)
        return True


def diff(old: BaseModel, new: BaseModel, atomic: Fields = frozenset(), prefix: str = "") -> Fields:
    """The dotted paths whose values differ between two models of the same kind (leaves, or ``atomic`` paths)."""
    found: set[str] = set()
    for name in type(old).model_fields:
        a, b = getattr(old, name), getattr(new, name)
        if a is b or a == b:
            continue
        path = prefix + name
        if isinstance(a, BaseModel) and type(a) is type(b) and path not in atomic:
            found |= diff(a, b, atomic, path + ".")
        else:
            found.add(path)
    return frozenset(found)


def _walk(value: Any, path: str) -> Any:
    for part in path.split("."):
        if not isinstance(value, BaseModel) or part not in type(value).model_fields:
            raise StateError(f"{path}: no such field")
        value = getattr(value, part)
    return value


def _with(model: BaseModel, changes: Mapping[str, Any]) -> dict[str, Any]:
    """The model's fields with ``changes`` applied, as the input of one validation: nested models that a change
    reaches become dicts, the others stay instances (kept as they are, not validated again)."""
    data = dict(model)
    nested: dict[str, dict[str, Any]] = {}
    for path, value in changes.items():
        head, _, tail = path.partition(".")
        if tail:
            nested.setdefault(head, {})[tail] = value
        else:
            data[head] = value
    for head, sub in nested.items():
        data[head] = _with(data[head], sub)
    return data
