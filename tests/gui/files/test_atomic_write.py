"""gui.files.atomic_write: the whole new text or the whole old one, never half, and no temporary file left."""

from __future__ import annotations

from pathlib import Path

import pytest

from gui.files.atomic_write import write_text_atomic


def test_writes_and_replaces(tmp_path: Path) -> None:
    tmp_path = tmp_path / "out"
    tmp_path.mkdir()
    path = tmp_path / "a.json"
    write_text_atomic(path, "first")
    write_text_atomic(path, "二")
    assert path.read_text(encoding="utf-8") == "二"
    assert [p.name for p in tmp_path.iterdir()] == ["a.json"]


def test_a_failed_write_keeps_the_old_file_and_leaves_no_temporary(tmp_path: Path,
                                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    tmp_path = tmp_path / "out"
    tmp_path.mkdir()
    path = tmp_path / "a.json"
    path.write_text("old", encoding="utf-8")

    def refuse(*_args: object) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr("gui.files.atomic_write.os.replace", refuse)
    with pytest.raises(OSError, match="No space left"):
        write_text_atomic(path, "new")
    assert path.read_text(encoding="utf-8") == "old"
    assert [p.name for p in tmp_path.iterdir()] == ["a.json"]


def test_a_missing_folder_is_an_oserror(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError, match="nope"):
        write_text_atomic(tmp_path / "nope" / "a.json", "x")
