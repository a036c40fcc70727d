"""gui.settings: INI files in one folder, moved by ``VRAMLAB_SETTINGS_DIR`` (tests never touch a user's)."""

from __future__ import annotations

from pathlib import Path

import pytest

from gui import settings


def test_settings_live_in_the_redirected_folder(isolated_settings: Path) -> None:
    store = settings.settings()
    store.setValue(settings.THEME_KEY, "dark")
    store.sync()
    assert Path(store.fileName()).is_relative_to(isolated_settings)
    assert Path(store.fileName()).suffix == ".ini"
    assert settings.settings().value(settings.THEME_KEY) == "dark"


def test_the_environment_variable_moves_them(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(settings.SETTINGS_DIR_ENV, str(tmp_path))
    settings.redirect_from_env()
    assert Path(settings.settings().fileName()).is_relative_to(tmp_path)
