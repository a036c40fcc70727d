"""Where VRAM Lab keeps its settings (window geometry, theme, language, presentation scale, recent files, the
Lessons drawer and the learner's progress), and how tests keep away from the real ones.

Settings are INI files under the user's configuration folder (``~/.config/VRAM Lab/vramlab.ini`` on Linux).
Setting the environment variable ``VRAMLAB_SETTINGS_DIR`` moves them elsewhere: the test suite and the
subprocess tests use it so that no test reads or writes a user's real settings.
"""

from __future__ import annotations

import os

from PySide6.QtCore import QSettings

ORGANIZATION = "VRAM Lab"
APPLICATION = "vramlab"
SETTINGS_DIR_ENV = "VRAMLAB_SETTINGS_DIR"

GEOMETRY_KEY = "window/geometry"
THEME_KEY = "view/theme"
LANGUAGE_KEY = "view/language"
PRESENTATION_SCALE_KEY = "view/presentation_scale"
RECENT_KEY = "files/recent"
LAST_FOLDER_KEY = "files/last_folder"
IMPORT_FOLDER_KEY = "files/import_folder"
LESSONS_OPEN_KEY = "view/lessons"
#: the group of the learner's progress (``gui.lessons.progress``): reset removes it whole
LESSONS_GROUP = "lessons"


def redirect_from_env() -> None:
    """Honour ``VRAMLAB_SETTINGS_DIR`` (call once, before the first ``settings()``)."""
    folder = os.environ.get(SETTINGS_DIR_ENV)
    if folder:
        redirect(folder)


def redirect(folder: str) -> None:
    """Keep every user-scope settings file under ``folder`` from now on."""
    QSettings.setPath(QSettings.Format.IniFormat, QSettings.Scope.UserScope, folder)
    QSettings.setPath(QSettings.Format.IniFormat, QSettings.Scope.SystemScope, folder)


def settings() -> QSettings:
    """VRAM Lab's settings store (INI format on every platform)."""
    return QSettings(QSettings.Format.IniFormat, QSettings.Scope.UserScope, ORGANIZATION, APPLICATION)
