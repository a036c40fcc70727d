"""tools/venv.sh and .ci/run: what a new user or CI sees before anything is installed."""

from __future__ import annotations

import os
import stat
import subprocess
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]

# A python3 without ensurepip (Debian without python3-venv): answers the version check, fails the import.
FAKE_PYTHON = """#!/bin/sh
case "$*" in
  *ensurepip*) exit 1 ;;
  *version_info\\[0\\]*) echo 3.11 ;;
  *) exit 0 ;;
esac
"""


def run_venv_script(tmp_path: Path, python: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["sh", str(REPO / "tools" / "venv.sh"), str(tmp_path / "venv")],
        cwd=REPO,
        env={**os.environ, "PYTHON": python},
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


def test_missing_venv_module_says_what_to_install(tmp_path: Path) -> None:
    fake = tmp_path / "python3"
    fake.write_text(FAKE_PYTHON)
    fake.chmod(fake.stat().st_mode | stat.S_IEXEC)
    result = run_venv_script(tmp_path, str(fake))
    assert result.returncode == 1
    assert "apt-get install python3-venv" in result.stderr
    assert not (tmp_path / "venv").exists()


def test_missing_python_says_so(tmp_path: Path) -> None:
    result = run_venv_script(tmp_path, str(tmp_path / "no-such-python"))
    assert result.returncode == 1
    assert "not found" in result.stderr


def test_ci_script_is_executable_and_runs_the_readme_command() -> None:
    ci = REPO / ".ci" / "run"
    assert os.access(ci, os.X_OK)
    commands = [line.strip() for line in ci.read_text().splitlines()]
    assert commands.index("make bundle-check || status=1") < commands.index("make test || status=1")
    assert commands[-1] == "exit $status"
    assert "make test" in (REPO / "README.md").read_text()
