"""The menu bar, described as data: menus hold actions, each action names the handler it triggers.

``build_menus`` turns ``MENUS`` (plus one "go to page" action per registered page, Ctrl+1..5) into QActions;
the main window only supplies a handler per action id. Texts are source strings in context "menus".
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass

from PySide6.QtGui import QAction, QActionGroup, QKeySequence
from PySide6.QtWidgets import QMenuBar

from gui.pages import PAGE_IDS, page_title
from gui.tr import QT_TRANSLATE_NOOP, translate


@dataclass(frozen=True, slots=True)
class ActionSpec:
    """One menu entry: ``action_id`` keys the handler; ``group`` makes it one of exclusive checkable choices."""

    action_id: str
    text: str
    shortcut: str | QKeySequence.StandardKey = ""
    group: str = ""


SEPARATOR = ActionSpec("-", "")

MENUS: tuple[tuple[str, tuple[ActionSpec, ...]], ...] = (
    (QT_TRANSLATE_NOOP("menus", "&File"), (
        ActionSpec("quit", QT_TRANSLATE_NOOP("menus", "&Quit"), QKeySequence.StandardKey.Quit),
    )),
    (QT_TRANSLATE_NOOP("menus", "&View"), (
        ActionSpec("pages", ""),  # expanded into one action per page
        SEPARATOR,
        ActionSpec("theme:system", QT_TRANSLATE_NOOP("menus", "Theme: follow the &system"), group="theme"),
        ActionSpec("theme:light", QT_TRANSLATE_NOOP("menus", "Theme: &light"), group="theme"),
        ActionSpec("theme:dark", QT_TRANSLATE_NOOP("menus", "Theme: &dark"), group="theme"),
    )),
    (QT_TRANSLATE_NOOP("menus", "&Help"), (
        ActionSpec("about", QT_TRANSLATE_NOOP("menus", "&About VRAM Lab")),
    )),
)  # fmt: skip


def _tr(text: str) -> str:
    return translate("menus", text)


def page_actions() -> tuple[ActionSpec, ...]:
    """One action per page, Ctrl+1 for the first."""
    return tuple(ActionSpec(f"page:{p}", page_title(p), f"Ctrl+{i}") for i, p in enumerate(PAGE_IDS, 1))


def build_menus(bar: QMenuBar, handlers: Mapping[str, Callable[..., object]]) -> dict[str, QAction]:
    """Fill ``bar`` from ``MENUS``; ``handlers`` maps action ids to callables. Returns the actions by id."""
    actions: dict[str, QAction] = {}
    groups: dict[str, QActionGroup] = {}
    for title, specs in MENUS:
        menu = bar.addMenu(_tr(title))
        for spec in (s for item in specs for s in (page_actions() if item.action_id == "pages" else (item,))):
            if spec is SEPARATOR:
                menu.addSeparator()
                continue
            action = menu.addAction(_tr(spec.text) if not spec.action_id.startswith("page:") else spec.text)
            if spec.shortcut:
                action.setShortcut(QKeySequence(spec.shortcut))
            if spec.group:
                action.setCheckable(True)
                groups.setdefault(spec.group, QActionGroup(bar)).addAction(action)
            if spec.action_id in handlers:
                action.triggered.connect(handlers[spec.action_id])
            actions[spec.action_id] = action
    return actions
