"""Files dropped on the window: each is recognised (``gui.files.file_kind``) and handed to what opens its kind.

* training configs → File ▸ Import training config (all dropped together are imported together: a training YAML
  with its DeepSpeed JSON);
* a Hugging Face config.json or a model folder → the Memory page's model import;
* a saved scenario (``*.vramlab.json``) → File ▸ Open;
* a PyTorch memory snapshot → the Timeline page's opener,
  ``gui.actions.snapshot_open.open_snapshot(path, window)``, when the app has that page (``snapshot_opener``), or any
  opener registered for ``FileKind.SNAPSHOT``;
* anything else, or a kind nothing opens → one line saying what VRAM Lab opens, and why this is not it.

Openers are a registry by kind (``FileDrop.register``), so a page added later plugs in without touching this
module. The window accepts a drag of local files only; the drop is handled after the drag has ended (a message
box inside the drop event would hold the file manager's drag), and every file is read through ``engine.safe_io``,
so a FIFO, a folder or a huge file is refused at once.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Protocol

from PySide6.QtCore import QEvent, QMimeData, QObject, QTimer
from PySide6.QtGui import QDragEnterEvent, QDragMoveEvent, QDropEvent
from PySide6.QtWidgets import QMessageBox, QWidget

from gui.files.file_kind import FileKind, Sniffed, sniff

MAX_DROPPED = 16
SNAPSHOT_MODULE = "gui.actions.snapshot_open"

#: opens the paths of one kind (all of them for training configs, the first for the others)
Opener = Callable[[Sequence[Path]], object]


class SnapshotOpener(Protocol):
    """The Timeline page's entry point: open a PyTorch memory snapshot file in ``window``."""

    def __call__(self, path: Path, window: QWidget, /) -> object: ...


def snapshot_opener() -> SnapshotOpener | None:
    """``gui.actions.snapshot_open.open_snapshot`` when the app has the Timeline page, else None."""
    try:
        module = importlib.import_module(SNAPSHOT_MODULE)
    except ModuleNotFoundError as err:
        if err.name != SNAPSHOT_MODULE:  # the page is there, and broken: say so
            raise
        return None
    found = getattr(module, "open_snapshot", None)
    return found if callable(found) else None


def local_paths(mime: QMimeData) -> list[Path]:
    """The local files a drag carries (none for web links or text)."""
    return [Path(url.toLocalFile()) for url in mime.urls() if url.isLocalFile()][:MAX_DROPPED]


class FileDrop(QObject):
    """Accepts local files dropped on ``window`` and routes them by kind (module docstring).

    Signals: none (each opener reports for itself).
    """

    def __init__(self, window: QWidget, openers: Mapping[FileKind, Opener]) -> None:
        super().__init__(window)
        self._window = window
        self._openers: dict[FileKind, Opener] = dict(openers)
        window.setAcceptDrops(True)
        window.installEventFilter(self)

    def register(self, kind: FileKind, opener: Opener) -> None:
        """Open ``kind`` with ``opener`` from now on."""
        self._openers[kind] = opener

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if isinstance(event, QDragEnterEvent | QDragMoveEvent) and local_paths(event.mimeData()):
            event.acceptProposedAction()
            return True
        if isinstance(event, QDropEvent) and event.type() == QEvent.Type.Drop:
            paths = local_paths(event.mimeData())
            if paths:
                event.acceptProposedAction()
                QTimer.singleShot(0, self, lambda: self.route(paths))
                return True
        return super().eventFilter(watched, event)

    def route(self, paths: Sequence[Path]) -> list[FileKind]:
        """Open each dropped path with its kind's opener; returns the kinds, in the order they were handled."""
        groups: dict[FileKind, list[Sniffed]] = {}
        for found in (sniff(p) for p in paths[:MAX_DROPPED]):
            groups.setdefault(found.kind, []).append(found)
        for kind, found_of_kind in groups.items():
            opener = self._opener(kind)
            if opener is None:
                self._say(found_of_kind[0])
                continue
            chosen = found_of_kind if kind is FileKind.TRAINING_CONFIG else found_of_kind[:1]
            opener([f.path for f in chosen])
        return list(groups)

    def _opener(self, kind: FileKind) -> Opener | None:
        if kind in self._openers:
            return self._openers[kind]
        timeline = snapshot_opener() if kind is FileKind.SNAPSHOT else None
        if timeline is None:
            return None
        return lambda paths: timeline(paths[0], self._window)

    def _say(self, found: Sniffed) -> None:
        """One line: what VRAM Lab opens, and why this file is not one of them (or that nothing opens it here)."""
        if found.kind is FileKind.SNAPSHOT:
            line = self.tr("{name}: a PyTorch memory snapshot; this version of VRAM Lab has no Timeline page to "
                           "open it (python -m engine snapshot reads it).").format(name=found.path.name)
        else:
            from gui.text import config_import_texts as texts  # the importers' texts: loaded when needed

            why = texts.refusal_line(found.why) if found.why is not None else found.path.name
            line = self.tr("VRAM Lab opens training configs, model config.json files and folders, scenarios "
                           "(*.vramlab.json) and PyTorch memory snapshots; this is none of them: {why}").format(why=why)
        QMessageBox.warning(self._window, self.tr("Cannot open this file"), line)
