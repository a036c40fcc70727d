"""What a page is, and what the main window may ask of one: typed protocols, checked with ``isinstance``.

Every page is a ``QWidget`` that is a ``Page`` (a ``page_id``, a translated ``title()`` and ``flush()``, which
runs its pending recompute now: ``gui.state.recompute``), built from the shared ``Scenario``
(``gui.pages.create_page``). What else it can do it says by having the methods of one of
the optional protocols below; the window's controllers ask ``isinstance(page, ExportsChart)`` and so on, so
they need no page-specific code and no ``getattr``, and mypy checks each method's signature where it is called.

- ``ExportsChart``: File > Export as an image, copy the chart (``gui.actions.exports``);
- ``ExportsBreakdown``: File > Export the memory terms as a table (``gui.actions.exports``);
- ``PresentsSteps``: a clicker's keys go through the page's own steps first (``gui.shell.presentation``);
- ``KeepsViewState``: the page's own state survives a rebuild of the window (``gui.pages.page_stack``);
- ``ImportsModel``: a dropped config.json or model folder is imported there (``gui.actions.config_imports``);
- ``OpensSnapshot``: File > Open PyTorch snapshot… and a dropped snapshot are read there
  (``gui.actions.snapshot_open``);
- ``ShowsStage``: an imported DPO / PPO / GRPO config selects its stage there (``gui.actions.config_imports``);
- ``HoldsLessonPart``: the page's own settings are part of a lesson's situation (``gui.lessons.panel``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

if TYPE_CHECKING:
    from pathlib import Path

    from PySide6.QtCore import SignalInstance
    from PySide6.QtWidgets import QWidget

    from engine.alignment import Stage
    from engine.lessons import Situation
    from gui.files.breakdown_table import Breakdown


@runtime_checkable
class Page(Protocol):
    """Every page: its registry id (``--page``, file names), its title in the user's language, and ``flush``."""

    page_id: str

    def title(self) -> str: ...

    def flush(self) -> None: ...


@runtime_checkable
class ExportsChart(Protocol):
    """A page with a main chart to export or copy."""

    def export_chart(self) -> QWidget: ...


@runtime_checkable
class ExportsBreakdown(Protocol):
    """A page that shows memory terms (the engine's, unchanged) to export as a table."""

    def export_breakdown(self) -> Breakdown: ...


@runtime_checkable
class PresentsSteps(Protocol):
    """A page with steps of its own: ``present_step`` goes one forward (back), ``False`` at the last (first)."""

    def present_step(self, forward: bool) -> bool: ...


@runtime_checkable
class KeepsViewState(Protocol):
    """A page with state of its own (a step, a page-local setting) kept across a rebuild of the window."""

    def view_state(self) -> dict[str, Any]: ...

    def restore_view_state(self, state: dict[str, Any]) -> None: ...


@runtime_checkable
class ImportsModel(Protocol):
    """A page with a model import (a Hugging Face config.json, a folder holding one): True when it was imported;
    otherwise the page has said why, and nothing changed."""

    def import_model(self, path: str) -> bool: ...


@runtime_checkable
class OpensSnapshot(Protocol):
    """A page that reads a PyTorch memory snapshot (``torch.cuda.memory._dump_snapshot``): ``open_snapshot`` starts
    reading ``path`` in a worker thread and returns at once; a file the engine refuses gets its reason there."""

    def open_snapshot(self, path: Path) -> None: ...


@runtime_checkable
class ShowsStage(Protocol):
    """A page that draws one alignment stage at a time: ``select`` draws ``stage``."""

    def select(self, stage: Stage) -> None: ...


@runtime_checkable
class HoldsLessonPart(Protocol):
    """A page whose own settings are part of a lesson's situation (``engine.lessons.Situation``): the serving
    page's ``ServingSetup``, the alignment page's ``AlignmentOptions``, the attention page's step. The Lessons
    panel reads them to check a lesson's goal, sets them to a lesson's start, and checks again when
    ``lesson_part_changed()`` fires (``gui.state.recompute``'s policy: batched, only while the panel is shown)."""

    def lesson_part(self, situation: Situation) -> Situation: ...  # ``situation`` with this page's part as now

    def set_lesson_part(self, situation: Situation) -> None: ...  # set this page's part to ``situation``'s

    def lesson_part_changed(self) -> SignalInstance: ...  # fires when the part may have changed
