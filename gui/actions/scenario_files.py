"""The File menu's scenario entries: open, save, save as, recent files, reset to defaults.

The file format and its checks are ``gui.files.scenario_file`` (no Qt); this module asks for paths, shows problems
and applies a loaded scenario to the shared ``Scenario`` in one update (one redraw), as one undoable step when
the window keeps a ``ScenarioHistory`` (Edit ▸ Undo). A file that cannot be used gets a message naming the
problem and changes nothing.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from PySide6.QtCore import QObject, Signal
from PySide6.QtWidgets import QFileDialog, QMenu, QMessageBox, QWidget

from gui.files import scenario_file
from gui.files.scenario_file import SUFFIX, ScenarioFileError
from gui.settings import LAST_FOLDER_KEY, RECENT_KEY, settings
from gui.state.scenario import Scenario
from gui.state.scenario_data import ScenarioData, defaults
from gui.state.scenario_history import ScenarioHistory, Step
from gui.text.tr import QT_TRANSLATE_NOOP, translate

MAX_RECENT = 8
#: the first line of the message for each kind of unusable file (``ScenarioFileError.kind``)
PROBLEMS = {
    "unreadable": QT_TRANSLATE_NOOP("ScenarioFiles", "The file cannot be read."),
    "corrupt": QT_TRANSLATE_NOOP("ScenarioFiles", "The file is damaged: it is not valid JSON text."),
    "format": QT_TRANSLATE_NOOP("ScenarioFiles", "This is not a VRAM Lab scenario file."),
    "newer": QT_TRANSLATE_NOOP("ScenarioFiles", "This scenario was saved by a newer version of VRAM Lab."),
    "invalid": QT_TRANSLATE_NOOP("ScenarioFiles", "The file holds a value VRAM Lab cannot use."),
}


def recent_files() -> list[str]:
    """The scenario files opened or saved lately, newest first (remembered in the settings)."""
    value = settings().value(RECENT_KEY, [])
    items = [value] if isinstance(value, str) else value if isinstance(value, list) else []
    return [str(p) for p in items if p][:MAX_RECENT]


def remember(path: Path) -> None:
    """Put ``path`` first in the recent files."""
    full = Path(path).resolve()
    settings().setValue(RECENT_KEY, [str(full), *(p for p in recent_files() if p != str(full))][:MAX_RECENT])
    settings().setValue(LAST_FOLDER_KEY, str(full.parent))


def scenario_data(sc: Scenario) -> ScenarioData:
    return sc.value


def apply(sc: Scenario, data: ScenarioData) -> None:
    """Put a loaded scenario into the shared one (a single ``changed``, naming what differs)."""
    sc.replace(data)


class ScenarioFiles(QObject):
    """Open, save and reset the shared scenario; fills the "Open recent" menu.

    Signals:
        path_changed(str): the file the scenario now belongs to (after open or save).
    """

    path_changed = Signal(str)

    def __init__(self, window: QWidget, scenario: Scenario, path: Path | None = None,
                 history: ScenarioHistory | None = None) -> None:
        super().__init__(window)
        self._window, self._scenario, self._history = window, scenario, history
        self.path = path

    def handlers(self) -> dict[str, Callable[..., object]]:
        return {"open": lambda _c=False: self.open(), "save": lambda _c=False: self.save(),
                "save_as": lambda _c=False: self.save_as(), "reset": lambda _c=False: self.reset()}

    def attach_recent_menu(self, menu: QMenu) -> None:
        """Fill ``menu`` with the recent files each time it opens."""
        menu.aboutToShow.connect(lambda: self._fill_recent(menu))
        self._fill_recent(menu)

    def _fill_recent(self, menu: QMenu) -> None:
        menu.clear()
        for path in recent_files():
            action = menu.addAction(Path(path).name)
            action.setToolTip(path)
            action.triggered.connect(lambda _c=False, p=path: self.open_path(Path(p)))
        menu.setEnabled(bool(recent_files()))

    def open(self) -> bool:
        folder = str(settings().value(LAST_FOLDER_KEY, str(Path.home())))
        name, _ = QFileDialog.getOpenFileName(self._window, self.tr("Open scenario"), folder, self._filter())
        return self.open_path(Path(name)) if name else False

    def open_path(self, path: Path) -> bool:
        """Load ``path`` into the scenario; on a problem, say which and change nothing."""
        try:
            data = scenario_file.load(path)
        except ScenarioFileError as err:
            problem = translate("ScenarioFiles", PROBLEMS.get(err.kind, PROBLEMS["invalid"]))
            unchanged = self.tr("Nothing was changed.")
            self._warn(self.tr("Could not open the scenario"), f"{problem}\n\n{path.name}: {err}\n\n{unchanged}")
            return False
        self._put(data, Step.OPEN, path.name)
        self._set_path(path)
        return True

    def save(self) -> bool:
        return self.save_path(self.path) if self.path is not None else self.save_as()

    def save_as(self) -> bool:
        suggested = self.path or Path(str(settings().value(LAST_FOLDER_KEY, str(Path.home())))) / f"scenario{SUFFIX}"
        name, _ = QFileDialog.getSaveFileName(self._window, self.tr("Save scenario"), str(suggested), self._filter())
        if not name:
            return False
        path = Path(name) if name.endswith(".json") else Path(name + SUFFIX)
        return self.save_path(path)

    def save_path(self, path: Path) -> bool:
        """Write the scenario to ``path`` atomically."""
        try:
            scenario_file.save(path, scenario_data(self._scenario))
        except OSError as err:
            self._warn(self.tr("Could not save the scenario"), f"{path}: {err.strerror or err}")
            return False
        self._set_path(path)
        return True

    def reset(self) -> None:
        """Back to the seed's defaults (model, setup, GPU, unit)."""
        self._put(defaults(), Step.RESET)

    def _put(self, data: ScenarioData, step: Step, name: str = "") -> None:
        """Replace the scenario: one undoable step when there is a history."""
        if self._history is not None:
            self._history.replace(data, step, name)
        else:
            apply(self._scenario, data)

    def _set_path(self, path: Path) -> None:
        self.path = path
        remember(path)
        self.path_changed.emit(str(path))

    def _filter(self) -> str:
        return self.tr("VRAM Lab scenario (*{suffix});;JSON (*.json)").format(suffix=SUFFIX)

    def _warn(self, title: str, text: str) -> None:
        QMessageBox.warning(self._window, title, text)
