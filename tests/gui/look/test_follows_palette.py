"""gui.look.follows_palette: one palette-change handler for every widget that draws in the theme's colours."""

from __future__ import annotations

import importlib
import pkgutil
import re
from collections.abc import Callable
from pathlib import Path

import pytest
from PySide6.QtWidgets import QWidget
from pytestqt.qtbot import QtBot

import gui
from gui.look.follows_palette import FollowsPalette
from gui.look.theme import dark_palette

REPO = Path(__file__).resolve().parents[3]


class Swatch(FollowsPalette, QWidget):
    def __init__(self, follow: bool) -> None:
        super().__init__()
        self.redrawn = 0
        if follow:
            self.follow_palette()

    def palette_changed(self) -> None:
        self.redrawn += 1


def test_a_palette_change_redraws_once_the_widget_follows(qtbot: QtBot) -> None:
    followed, not_yet = Swatch(follow=True), Swatch(follow=False)
    for w in (followed, not_yet):
        qtbot.addWidget(w)
        w.setPalette(dark_palette())
    assert (followed.redrawn, not_yet.redrawn) == (1, 0)
    followed.setToolTip("a change that is not the palette's")
    followed.setEnabled(False)  # an EnabledChange: the base class still handles it, no redraw
    assert followed.redrawn == 1
    assert not followed.isEnabled()


def _subclasses(cls: type) -> set[type]:
    found: set[type] = set(cls.__subclasses__())
    return found.union(*(_subclasses(c) for c in found)) if found else found


def test_every_widget_drawn_in_the_themes_colours_shares_the_handler() -> None:
    """No module of gui/ checks for a palette change but follows_palette.py; the widgets that used to (issue 24:
    nineteen copies of the handler) are its subclasses."""
    for info in pkgutil.walk_packages(gui.__path__, "gui."):
        if not info.name.startswith(("gui.visual_audit", "gui.__main__")):
            importlib.import_module(info.name)
    names = {c.__name__ for c in _subclasses(FollowsPalette)} - {"Swatch"}
    assert {"BlockMap", "BreakdownChart", "BytesCurvePlot", "CapacityChart", "CurvePlot", "HeatLegend", "LeverCard",
            "MatrixView", "_Bar", "ModelPicker", "ReasonNote", "SentenceBox", "StageBars", "StageDiagram",
            "TermBars", "TimelineChart", "ServingPage", "TimelinePage", "LessonView"} <= names
    own = [p.relative_to(REPO).as_posix() for p in (REPO / "gui").rglob("*.py")
           if re.search(r"Type\.PaletteChange\b", p.read_text(encoding="utf-8"))]
    assert own == ["gui/look/follows_palette.py"]


@pytest.mark.parametrize("name", ["BlockMap", "HeatLegend", "ReasonNote", "CurvePlot", "TermBars"])
def test_a_built_widget_redraws_on_a_theme_change(qtbot: QtBot, monkeypatch: pytest.MonkeyPatch, name: str) -> None:
    from gui.widgets.block_map import BlockMap
    from gui.widgets.curve_plot import CurvePlot
    from gui.widgets.heat_legend import HeatLegend
    from gui.widgets.reason_note import ReasonNote
    from gui.widgets.term_bars import TermBars

    build: dict[str, Callable[[], QWidget]] = {
        "BlockMap": lambda: BlockMap(64), "HeatLegend": HeatLegend, "ReasonNote": ReasonNote,
        "CurvePlot": lambda: CurvePlot("x"), "TermBars": TermBars}
    widget = build[name]()
    qtbot.addWidget(widget)
    calls: list[int] = []
    monkeypatch.setattr(type(widget), "palette_changed", lambda _self: calls.append(1))
    widget.setPalette(dark_palette())
    assert calls == [1]
