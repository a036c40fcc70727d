"""The menu bar, described as data: menus hold actions and submenus, each action names the handler it triggers.

``build_menus`` turns ``MENUS`` into QActions; an item whose id is in ``EXPANDERS`` (the pages, the presentation
scales, the languages) becomes the actions that function lists. The main window only supplies a handler per
action id. Texts are source strings in context "menus"; generated texts (page titles, percentages, language
names written in their own language) are used as they are.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass

from PySide6.QtGui import QAction, QActionGroup, QKeySequence
from PySide6.QtWidgets import QMenu, QMenuBar

from gui.pages import PAGE_IDS, page_title
from gui.text.i18n import LANGUAGE_NAMES
from gui.text.tr import QT_TRANSLATE_NOOP, translate

PRESENTATION_SCALES = (100, 125, 150, 175, 200)


@dataclass(frozen=True, slots=True)
class ActionSpec:
    """One menu entry: ``action_id`` keys the handler; ``group`` makes it one of exclusive checkable choices."""

    action_id: str
    text: str
    shortcut: str | QKeySequence.StandardKey = ""
    group: str = ""
    translated: bool = True


@dataclass(frozen=True, slots=True)
class SubMenu:
    """A submenu; its QMenu is reachable as ``actions["menu:" + menu_id].menu()``."""

    menu_id: str
    title: str
    items: tuple[ActionSpec | SubMenu, ...]


SEPARATOR = ActionSpec("-", "")
Item = ActionSpec | SubMenu

MENUS: tuple[tuple[str, tuple[Item, ...]], ...] = (
    (QT_TRANSLATE_NOOP("menus", "&File"), (
        ActionSpec("open", QT_TRANSLATE_NOOP("menus", "&Open scenario…"), QKeySequence.StandardKey.Open),
        SubMenu("recent", QT_TRANSLATE_NOOP("menus", "Open &recent"), ()),
        ActionSpec("open_snapshot", QT_TRANSLATE_NOOP("menus", "Open &PyTorch snapshot…")),
        ActionSpec("save", QT_TRANSLATE_NOOP("menus", "&Save scenario"), QKeySequence.StandardKey.Save),
        ActionSpec("save_as", QT_TRANSLATE_NOOP("menus", "Save scenario &as…"), QKeySequence.StandardKey.SaveAs),
        ActionSpec("reset", QT_TRANSLATE_NOOP("menus", "Reset to &defaults")),
        SEPARATOR,
        ActionSpec("import_config", QT_TRANSLATE_NOOP("menus", "&Import training config…"), "Ctrl+I"),
        SEPARATOR,
        SubMenu("export_chart", QT_TRANSLATE_NOOP("menus", "&Export chart"), (
            ActionSpec("export:png1", QT_TRANSLATE_NOOP("menus", "PNG, actual size…")),
            ActionSpec("export:png2", QT_TRANSLATE_NOOP("menus", "PNG, 2× size…")),
            ActionSpec("export:png3", QT_TRANSLATE_NOOP("menus", "PNG, 3× size…")),
            ActionSpec("export:svg", QT_TRANSLATE_NOOP("menus", "SVG (vector)…")),
        )),
        SubMenu("export_table", QT_TRANSLATE_NOOP("menus", "Export &breakdown"), (
            ActionSpec("export:csv", QT_TRANSLATE_NOOP("menus", "CSV…")),
            ActionSpec("export:json", QT_TRANSLATE_NOOP("menus", "JSON…")),
            ActionSpec("export:md", QT_TRANSLATE_NOOP("menus", "Markdown table…")),
        )),
        ActionSpec("copy:chart", QT_TRANSLATE_NOOP("menus", "&Copy chart"), "Ctrl+Shift+C"),
        ActionSpec("copy:table", QT_TRANSLATE_NOOP("menus", "Copy breakdown &table"), "Ctrl+Shift+T"),
        SEPARATOR,
        ActionSpec("quit", QT_TRANSLATE_NOOP("menus", "&Quit"), QKeySequence.StandardKey.Quit),
    )),
    (QT_TRANSLATE_NOOP("menus", "&Edit"), (
        ActionSpec("undo", QT_TRANSLATE_NOOP("menus", "&Undo"), QKeySequence.StandardKey.Undo),
        ActionSpec("redo", QT_TRANSLATE_NOOP("menus", "&Redo"), QKeySequence.StandardKey.Redo),
    )),
    (QT_TRANSLATE_NOOP("menus", "&View"), (
        ActionSpec("pages", ""),  # expanded into one action per page
        ActionSpec("lessons", QT_TRANSLATE_NOOP("menus", "&Lessons"), "Ctrl+L"),
        SEPARATOR,
        ActionSpec("present", QT_TRANSLATE_NOOP("menus", "&Presentation mode"), "F5"),
        SubMenu("scale", QT_TRANSLATE_NOOP("menus", "Presentation s&cale"), (ActionSpec("scales", ""),)),
        SEPARATOR,
        ActionSpec("theme:system", QT_TRANSLATE_NOOP("menus", "Theme: follow the &system"), group="theme"),
        ActionSpec("theme:light", QT_TRANSLATE_NOOP("menus", "Theme: &light"), group="theme"),
        ActionSpec("theme:dark", QT_TRANSLATE_NOOP("menus", "Theme: &dark"), group="theme"),
        SubMenu("language", QT_TRANSLATE_NOOP("menus", "&Language"), (ActionSpec("languages", ""),)),
    )),
    (QT_TRANSLATE_NOOP("menus", "&Help"), (
        ActionSpec("about", QT_TRANSLATE_NOOP("menus", "&About VRAM Lab")),
    )),
)  # fmt: skip


def page_actions() -> tuple[ActionSpec, ...]:
    """One action per page, Ctrl+1 for the first."""
    return tuple(ActionSpec(f"page:{p}", page_title(p), f"Ctrl+{i}", translated=False)
                 for i, p in enumerate(PAGE_IDS, 1))


def scale_actions() -> tuple[ActionSpec, ...]:
    return tuple(ActionSpec(f"scale:{n}", f"{n}%", group="scale", translated=False) for n in PRESENTATION_SCALES)


def language_actions() -> tuple[ActionSpec, ...]:
    return tuple(ActionSpec(f"lang:{code}", name, group="language", translated=False)
                 for code, name in LANGUAGE_NAMES.items())


EXPANDERS: dict[str, Callable[[], tuple[ActionSpec, ...]]] = {
    "pages": page_actions, "scales": scale_actions, "languages": language_actions}


def _expanded(items: tuple[Item, ...]) -> Iterator[Item]:
    for item in items:
        if isinstance(item, ActionSpec) and item.action_id in EXPANDERS:
            yield from EXPANDERS[item.action_id]()
        else:
            yield item


def action_ids(items: tuple[Item, ...] | None = None) -> list[str]:
    """Every action id ``build_menus`` makes (submenus as ``menu:<id>``), in menu order."""
    found: list[str] = []
    for item in _expanded(items if items is not None else tuple(i for _, menu in MENUS for i in menu)):
        if isinstance(item, SubMenu):
            found += [f"menu:{item.menu_id}", *action_ids(item.items)]
        elif item is not SEPARATOR:
            found.append(item.action_id)
    return found


def _fill(menu: QMenu, items: tuple[Item, ...], handlers: Mapping[str, Callable[..., object]],
          actions: dict[str, QAction], groups: dict[str, QActionGroup]) -> None:
    for spec in _expanded(items):
        if isinstance(spec, SubMenu):
            sub = menu.addMenu(translate("menus", spec.title))
            actions[f"menu:{spec.menu_id}"] = sub.menuAction()
            _fill(sub, spec.items, handlers, actions, groups)
        elif spec is SEPARATOR:
            menu.addSeparator()
        else:
            action = menu.addAction(translate("menus", spec.text) if spec.translated else spec.text)
            if spec.shortcut:
                action.setShortcut(QKeySequence(spec.shortcut))
            if spec.group:
                action.setCheckable(True)
                groups.setdefault(spec.group, QActionGroup(menu.parent() or menu)).addAction(action)
            if spec.action_id in handlers:
                action.triggered.connect(handlers[spec.action_id])
            actions[spec.action_id] = action


def build_menus(bar: QMenuBar, handlers: Mapping[str, Callable[..., object]]) -> dict[str, QAction]:
    """Fill ``bar`` from ``MENUS``; ``handlers`` maps action ids to callables. Returns the actions by id."""
    actions: dict[str, QAction] = {}
    groups: dict[str, QActionGroup] = {}
    for title, items in MENUS:
        _fill(bar.addMenu(translate("menus", title)), items, handlers, actions, groups)
    return actions
