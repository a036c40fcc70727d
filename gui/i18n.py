"""Language plumbing: installs the app's translation (``assets/translations/vramlab_<lang>.qm``) and Qt's own.

Every user-visible string goes through ``self.tr`` / ``QCoreApplication.translate``; ``pyside6-lupdate`` extracts
them into ``.ts`` files and ``pyside6-lrelease`` compiles the ``.qm`` files loaded here. A language without a
``.qm`` file falls back to the English source texts.
"""

from __future__ import annotations

from PySide6.QtCore import QLibraryInfo, QLocale, QTranslator
from PySide6.QtWidgets import QApplication

from gui.resources import find_asset

LANGUAGES = ("en", "zh_TW")


def system_language() -> str:
    """The first supported language matching the OS locale (``en`` otherwise)."""
    name = QLocale.system().name()  # e.g. "zh_TW", "en_US"
    return name if name in LANGUAGES else "en"


def install_translators(app: QApplication, language: str) -> list[QTranslator]:
    """Install the app's and Qt's translators for ``language``; returns those that loaded (kept alive by
    the caller). English needs none."""
    loaded: list[QTranslator] = []
    if language == "en":
        return loaded
    app_qm = find_asset(f"translations/vramlab_{language}.qm")
    candidates = [(str(app_qm.parent), f"vramlab_{language}")] if app_qm is not None else []
    candidates.append((QLibraryInfo.path(QLibraryInfo.LibraryPath.TranslationsPath), f"qtbase_{language}"))
    for folder, name in candidates:
        translator = QTranslator(app)
        if translator.load(name, folder):
            app.installTranslator(translator)
            loaded.append(translator)
    return loaded
