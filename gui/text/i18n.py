"""Language plumbing: installs the app's translation (``assets/translations/vramlab_<lang>.qm``) and Qt's own.

Every user-visible string goes through ``self.tr`` / ``QCoreApplication.translate``; ``pyside6-lupdate`` extracts
them into ``.ts`` files and ``pyside6-lrelease`` compiles the ``.qm`` files loaded here. A language without a
``.qm`` file falls back to the English source texts.

``set_language`` switches at run time: it swaps the translators and sets the font families that draw the
language (``gui.text.fonts``); ``MainWindow.set_language`` then rebuilds the pages and menus, which read their texts
when they are built. The choice is remembered in the settings; the default is the OS's.
"""

from __future__ import annotations

from PySide6.QtCore import QLibraryInfo, QLocale, QTranslator
from PySide6.QtWidgets import QApplication

from gui.resources import find_asset
from gui.settings import LANGUAGE_KEY, settings
from gui.text.fonts import apply_language_font

LANGUAGES = ("en", "zh_TW")
#: each language named in itself, as a language menu shows it
LANGUAGE_NAMES = {"en": "English", "zh_TW": "繁體中文"}
_TRANSLATORS, _LANGUAGE = "translators", "language"  # application properties


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


def saved_language() -> str:
    """The language chosen last time, else the OS's."""
    saved = settings().value(LANGUAGE_KEY)
    return saved if isinstance(saved, str) and saved in LANGUAGES else system_language()


def current_language(app: QApplication) -> str:
    """The language in force (``en`` before any ``set_language``)."""
    language = app.property(_LANGUAGE)
    return language if isinstance(language, str) and language in LANGUAGES else "en"


def set_language(app: QApplication, language: str, remember: bool = False) -> None:
    """Use ``language`` from now on: replace the installed translators and set the fonts that draw it."""
    if language not in LANGUAGES:
        raise ValueError(f"unknown language {language!r}; known: {', '.join(LANGUAGES)}")
    old = app.property(_TRANSLATORS)
    for translator in old if isinstance(old, list) else []:
        app.removeTranslator(translator)
    app.setProperty(_TRANSLATORS, install_translators(app, language))
    app.setProperty(_LANGUAGE, language)
    apply_language_font(app, language)
    if remember:
        settings().setValue(LANGUAGE_KEY, language)
