"""bench/run_all.py (make bench): every benchmark runs, and the run fails when any of them misses or breaks."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from bench import run_all


def _script(folder: Path, name: str, status: int) -> list[str]:
    path = folder / name
    path.write_text(f"import sys\nprint('{name} ran')\nsys.exit({status})\n", encoding="utf-8")
    return [sys.executable, str(path), "--check"]


def test_every_benchmark_runs_and_the_misses_are_named(tmp_path: Path, capfd: pytest.CaptureFixture[str]) -> None:
    commands = [_script(tmp_path, "fast.py", 0), _script(tmp_path, "slow.py", 1), _script(tmp_path, "after.py", 0)]
    assert run_all.run(commands) == ["slow.py"]
    ran = [line for line in capfd.readouterr().out.splitlines() if line.endswith(" ran")]
    assert ran == ["fast.py ran", "slow.py ran", "after.py ran"]  # a miss does not stop the others


def test_the_run_fails_when_a_benchmark_misses(monkeypatch: pytest.MonkeyPatch,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setattr(run_all, "run", lambda commands: ["startup.py"])
    assert run_all.main() == 1
    assert "missed a target: startup.py" in capsys.readouterr().out
    monkeypatch.setattr(run_all, "run", lambda commands: [])
    assert run_all.main() == 0


def test_make_bench_runs_every_benchmark_with_its_check() -> None:
    """Every bench/*.py with targets is in the list (dist.py apart: it needs a bundle), each asked to --check."""
    benches = {p.name for p in (run_all.REPO / "bench").glob("*.py")
               if "--check" in p.read_text(encoding="utf-8") and p.name not in ("run_all.py", "dist.py")}
    assert benches == set(run_all.BENCHES)
    makefile = (run_all.REPO / "Makefile").read_text(encoding="utf-8")
    assert "bench/run_all.py" in makefile
