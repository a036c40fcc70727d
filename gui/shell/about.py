"""The About dialog: what VRAM Lab is, its version, and the licences of everything it bundles."""

from __future__ import annotations

from importlib import metadata

from PySide6 import __version__ as pyside_version
from PySide6.QtCore import Qt, qVersion
from PySide6.QtWidgets import QDialog, QDialogButtonBox, QLabel, QVBoxLayout, QWidget

import engine

#: (component, licence) for everything shipped with the app; versions are looked up when installed.
BUNDLED = (
    ("Qt", "LGPLv3"),
    ("PySide6", "LGPLv3"),
    ("pyqtgraph", "MIT"),
    ("numpy", "BSD-3-Clause"),
    ("pydantic", "MIT"),
    ("PyYAML", "MIT"),
)
BUNDLED_DATA = (("Noto Sans CJK TC (subset, assets/fonts)", "2.004", "SIL OFL 1.1"),)  # (name, version, licence)


def app_version() -> str:
    """The package's version (pyproject.toml, the one place it is written), as the engine reads it."""
    return engine.__version__


def component_version(name: str) -> str:
    if name == "Qt":
        return qVersion()
    if name == "PySide6":
        return pyside_version
    try:
        return metadata.version(name)
    except metadata.PackageNotFoundError:
        return "?"


class AboutDialog(QDialog):
    """Version, purpose and licences, as selectable rich text."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle(self.tr("About VRAM Lab"))
        rows = "".join(
            f"<tr><td>{name}</td><td>&nbsp;{component_version(name)}&nbsp;</td><td>{lic}</td></tr>"
            for name, lic in BUNDLED
        ) + "".join(
            f"<tr><td>{name}</td><td>&nbsp;{ver}&nbsp;</td><td>{lic}</td></tr>" for name, ver, lic in BUNDLED_DATA
        )
        text = QLabel(self)
        text.setTextFormat(Qt.TextFormat.RichText)
        text.setTextInteractionFlags(Qt.TextInteractionFlag.TextBrowserInteraction)
        text.setOpenExternalLinks(True)
        purpose = self.tr("Does it fit in this GPU, and why? GPU memory in LLM fine-tuning, explained.")
        bundles = self.tr("VRAM Lab is MIT-licensed. It bundles:")
        lgpl = self.tr("Qt and PySide6 are used under the LGPLv3; their source is at qt.io.")
        text.setText(
            f"<h2>VRAM Lab {app_version()}</h2><p>{purpose}</p><p>{bundles}</p>"
            f'<table cellspacing="0" cellpadding="3">{rows}</table><p>{lgpl}</p>'
        )
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close, self)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(text)
        layout.addWidget(buttons)
