"""File ▸ Import training config…: the setup of an Axolotl, LLaMA-Factory, torchtune, TRL, DeepSpeed or accelerate
file (or several: a training YAML with its DeepSpeed JSON) becomes the scenario, as one undoable step.

The engine does the work (``engine.config_import.import_configs``): the files give the setup and the model; a
field no file sets and no tool defaults takes the engine's default, as ``python -m engine estimate
--from-config`` does, so the same files give the same setup in the window and on the command line. The GPU and
the unit stay. When the files name no model, the current one is kept; when they name one VRAM Lab does not
know, the current one is kept too and the panel says so (the command line asks for ``--model`` instead).

Then the Memory page shows the setup, or the Alignment page with the stage of a DPO / PPO / GRPO (and KTO, IPO,
RLOO) file selected (``gui.text.config_import_texts.STAGES``), and the report panel
(``gui.widgets.import_report``) lists what was read, ignored and assumed. A refused file gets one line naming
the file, the key and why, and changes nothing.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import QObject, Signal
from PySide6.QtGui import QKeySequence
from PySide6.QtWidgets import QFileDialog, QMessageBox, QWidget

from gui.pages import page_title
from gui.pages.contract import ImportsModel, ShowsStage
from gui.settings import IMPORT_FOLDER_KEY, settings
from gui.state.scenario import Scenario
from gui.state.scenario_data import ScenarioData
from gui.state.scenario_history import ScenarioHistory, Step

if TYPE_CHECKING:  # the importers and the report panel load on the first import, not at start-up
    from engine.config_import import ConfigRefusedError, ImportedConfig
    from gui.widgets.import_report import ImportReportPanel

#: shows a page by its id and returns it (built if need be)
ShowPage = Callable[[str], QWidget]


class ConfigImports(QObject):
    """Import training configs into the shared scenario; also the way in for a dropped model config.

    Signals:
        imported(object): an ``ImportedConfig`` became the scenario.
    """

    imported = Signal(object)

    def __init__(self, window: QWidget, scenario: Scenario, history: ScenarioHistory, show_page: ShowPage) -> None:
        super().__init__(window)
        self._window, self._scenario, self._history, self._show_page = window, scenario, history, show_page
        self.panel: ImportReportPanel | None = None

    def handlers(self) -> dict[str, Callable[..., object]]:
        return {"import_config": lambda _c=False: self.choose()}

    def choose(self) -> bool:
        """Ask for the files (several at once: a training config and the DeepSpeed or accelerate file it uses)."""
        folder = str(settings().value(IMPORT_FOLDER_KEY, str(Path.home())))
        names, _ = QFileDialog.getOpenFileNames(
            self._window, self.tr("Import training config"), folder,
            self.tr("Training configs (*.yaml *.yml *.json *.toml);;All files (*)"))
        if not names:
            return False
        settings().setValue(IMPORT_FOLDER_KEY, str(Path(names[0]).parent))
        return self.import_paths([Path(n) for n in names])

    def import_paths(self, paths: Sequence[Path]) -> bool:
        """Import ``paths`` together (module docstring); False, with one line said, when they are refused."""
        from gui.text import config_import_texts as texts

        try:
            result, unknown_model = self._import(paths)
        except (ValueError, OSError) as err:  # ConfigRefusedError, or a local model folder's config.json
            self._refused(texts.refusal_line(err))
            return False
        sc = self._scenario
        data = ScenarioData(model=result.model, setup=result.setup, gpu=sc.gpu, unit=sc.unit)
        self._history.replace(data, Step.IMPORT, ", ".join(p.name for p in paths))
        stage = texts.stage_for(result.alignment)
        page_id = "alignment" if stage is not None else "memory"
        page = self._show_page(page_id)
        if stage is not None and isinstance(page, ShowsStage):
            page.select(stage)
        self._show_report(result, page_id, unknown_model)
        self.imported.emit(result)
        return True

    def _import(self, paths: Sequence[Path]) -> tuple[ImportedConfig, ConfigRefusedError | None]:
        """The import, and the refusal of the files' model when it is unknown (or a path on another machine) and the
        current one is kept."""
        from engine.config_import import ConfigRefusedError, import_configs
        from engine.config_import import models as import_models

        sc = self._scenario
        try:
            return import_configs(paths, default_model=sc.model), None
        except ConfigRefusedError as err:
            if err.message.template not in (import_models.UNKNOWN, import_models.ELSEWHERE):
                raise
            return import_configs(paths, model=sc.model), err

    def import_model(self, paths: Sequence[Path]) -> bool:
        """A dropped config.json or model folder: the Memory page's own import, as one undoable step."""
        path = paths[0]
        page = self._show_page("memory")
        if not isinstance(page, ImportsModel):
            return False
        with self._history.recording(Step.MODEL, path.name):
            return page.import_model(str(path))

    def _show_report(self, result: ImportedConfig, page_id: str, unknown_model: ConfigRefusedError | None) -> None:
        from gui.text import config_import_texts as texts
        from gui.widgets.import_report import ImportReportPanel

        if self.panel is None:
            self.panel = ImportReportPanel(self._window)
        keys = QKeySequence(QKeySequence.StandardKey.Undo).toString(QKeySequence.SequenceFormat.NativeText)
        label = result.model.label

        def view() -> texts.ReportView:  # in the language of the moment (the panel redraws on a switch)
            notes = (texts.model_kept_note(unknown_model, label),) if unknown_model is not None else ()
            return texts.report_view(result, page_title(page_id), keys, notes)

        self.panel.show_report(view)

    def _refused(self, line: str) -> None:
        QMessageBox.warning(self._window, self.tr("Could not import the training config"),
                            line + "\n\n" + self.tr("Nothing was changed."))
