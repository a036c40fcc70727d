"""Edit ▸ Undo and Redo: the scenarios that whole replacements put aside, newest last.

What is undoable: each step that replaces the scenario as a whole, or its model from a file: importing a training
config, opening a scenario file (File ▸ Open, Open recent, a dropped file), Reset to defaults, a dropped config.json
or model folder, a lesson's Start (``gui.lessons.panel``). Each keeps a snapshot of the scenario before it (model,
training setup, GPU and unit: ``ScenarioData``, a frozen pydantic model, so a snapshot is the value itself, never a
copy that drifts). A slider, a picker or a switch is not a step: its change is one click away already. Undo puts
back the snapshot and keeps the scenario it replaces for Redo, with whatever was changed since the step, so nothing
is lost; a new step clears Redo. At most ``MAX_STEPS`` are kept. Page-own settings (the Alignment page's stage, the
serving setup) are not part of the scenario, and stay as they are.

Usage::

    history = ScenarioHistory(scenario)
    history.replace(scenario_data.defaults(), Step.RESET)     # Reset to defaults, undoable
    with history.recording(Step.MODEL, "config.json"):         # any change in the block is one step
        scenario.update(model=spec)
    history.undo()
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from enum import StrEnum

from PySide6.QtCore import QObject, Signal
from PySide6.QtGui import QAction

from gui.state.scenario import Scenario
from gui.state.scenario_data import ScenarioData
from gui.text.tr import QT_TRANSLATE_NOOP, translate

MAX_STEPS = 20


class Step(StrEnum):
    """What replaced the scenario (it names the step in the Edit menu)."""

    IMPORT = "import"
    OPEN = "open"
    RESET = "reset"
    MODEL = "model"
    LESSON = "lesson"


# the Edit menu's texts while a step can be undone or redone
_UNDO = {
    Step.IMPORT: QT_TRANSLATE_NOOP("ScenarioHistory", "&Undo import of {name}"),
    Step.OPEN: QT_TRANSLATE_NOOP("ScenarioHistory", "&Undo opening {name}"),
    Step.RESET: QT_TRANSLATE_NOOP("ScenarioHistory", "&Undo reset to defaults"),
    Step.MODEL: QT_TRANSLATE_NOOP("ScenarioHistory", "&Undo model from {name}"),
    Step.LESSON: QT_TRANSLATE_NOOP("ScenarioHistory", "&Undo the start of lesson {name}"),
}
_REDO = {
    Step.IMPORT: QT_TRANSLATE_NOOP("ScenarioHistory", "&Redo import of {name}"),
    Step.OPEN: QT_TRANSLATE_NOOP("ScenarioHistory", "&Redo opening {name}"),
    Step.RESET: QT_TRANSLATE_NOOP("ScenarioHistory", "&Redo reset to defaults"),
    Step.MODEL: QT_TRANSLATE_NOOP("ScenarioHistory", "&Redo model from {name}"),
    Step.LESSON: QT_TRANSLATE_NOOP("ScenarioHistory", "&Redo the start of lesson {name}"),
}
_PLAIN_UNDO = QT_TRANSLATE_NOOP("ScenarioHistory", "&Undo")
_PLAIN_REDO = QT_TRANSLATE_NOOP("ScenarioHistory", "&Redo")


@dataclass(frozen=True)
class Entry:
    """A scenario put aside by a step, and the step (with the file it names, if any)."""

    value: ScenarioData
    step: Step
    name: str = ""


class ScenarioHistory(QObject):
    """The undo and redo stacks of whole-scenario steps (module docstring).

    Signals:
        changed(): what can be undone or redone changed.
    """

    changed = Signal()

    def __init__(self, scenario: Scenario, parent: QObject | None = None, limit: int = MAX_STEPS) -> None:
        super().__init__(parent)
        self._scenario = scenario
        self._limit = limit
        self._undo: list[Entry] = []
        self._redo: list[Entry] = []
        self._actions: tuple[QAction, QAction] | None = None
        self.changed.connect(self._show_actions)

    def replace(self, value: ScenarioData, step: Step, name: str = "") -> bool:
        """Put ``value`` into the scenario as one undoable step; returns whether anything changed."""
        with self.recording(step, name):
            return self._scenario.replace(value)

    @contextmanager
    def recording(self, step: Step, name: str = "") -> Iterator[None]:
        """Whatever the block changes in the scenario is one undoable step (none if it changes nothing)."""
        before = self._scenario.value
        try:
            yield
        finally:
            if self._scenario.value != before:
                self._undo = [*self._undo, Entry(before, step, name)][-self._limit:]
                self._redo = []
                self.changed.emit()

    def handlers(self) -> dict[str, Callable[..., object]]:
        """The Edit menu's actions."""
        return {"undo": lambda _c=False: self.undo(), "redo": lambda _c=False: self.redo()}

    def can_undo(self) -> bool:
        return bool(self._undo)

    def can_redo(self) -> bool:
        return bool(self._redo)

    def undo(self) -> bool:
        """Put back the scenario before the last step (kept for Redo); False when there is none."""
        return self._move(self._undo, self._redo)

    def redo(self) -> bool:
        """Put back the scenario the last Undo replaced; False when there is none."""
        return self._move(self._redo, self._undo)

    def _move(self, source: list[Entry], target: list[Entry]) -> bool:
        if not source:
            return False
        entry = source.pop()
        target.append(Entry(self._scenario.value, entry.step, entry.name))
        self._scenario.replace(entry.value)
        self.changed.emit()
        return True

    def undo_text(self) -> str:
        """The Edit menu's Undo entry: the step it undoes, translated."""
        return _text(self._undo, _UNDO, _PLAIN_UNDO)

    def redo_text(self) -> str:
        return _text(self._redo, _REDO, _PLAIN_REDO)

    def attach(self, undo: QAction, redo: QAction) -> None:
        """Keep these menu actions' enabled state and text current (the menus are rebuilt on a language switch:
        the newest pair is kept)."""
        self._actions = (undo, redo)
        self._show_actions()

    def _show_actions(self) -> None:
        if self._actions is None:
            return
        undo, redo = self._actions
        undo.setEnabled(self.can_undo())
        undo.setText(self.undo_text())
        redo.setEnabled(self.can_redo())
        redo.setText(self.redo_text())


def _text(stack: list[Entry], texts: dict[Step, str], plain: str) -> str:
    if not stack:
        return translate("ScenarioHistory", plain)
    entry = stack[-1]
    return translate("ScenarioHistory", texts[entry.step]).format(name=entry.name.replace("&", "&&"))
