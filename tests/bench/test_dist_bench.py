"""bench/dist.py: installer sizes and the budgets they are held to (the figures need make dist; not run here)."""

from __future__ import annotations

import tomllib
from pathlib import Path

from bench import dist

REPO = Path(__file__).resolve().parents[2]


def test_artifact_names_carry_the_pyproject_version() -> None:
    version = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]["version"]
    names = {key: path.relative_to(REPO).as_posix() for key, path in dist.artifacts().items()}
    assert names == {
        "onedir_mb": "dist/vramlab",
        "tar_gz_mb": f"dist/vramlab-{version}-linux-x86_64.tar.gz",
        "deb_mb": f"dist/vramlab_{version}_amd64.deb",
    }


def test_folder_size_counts_files_once_and_not_links(tmp_path: Path) -> None:
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "lib.so").write_bytes(b"x" * 1_500_000)
    (tmp_path / "lib.so").symlink_to(tmp_path / "sub" / "lib.so")
    assert dist.size_mb(tmp_path) == 1.5


def test_budgets_of_the_issue() -> None:
    assert dist.over_budget(
        {"deb_mb": 79.9, "onedir_mb": 200.0, "frozen_startup_median_s": 1.5, "frozen_cold_startup_median_s": 0.9}
    ) == []  # fmt: skip
    problems = dist.over_budget({"deb_mb": 80.1, "onedir_mb": 150.0, "frozen_startup_median_s": 0.5})
    assert problems == ["deb_mb: 80.1 > 80.0"]  # cold start-up needs root, so its absence is not a problem
    assert dist.over_budget({}) == [
        "deb_mb: not measured (run make dist first)",
        "onedir_mb: not measured (run make dist first)",
        "frozen_startup_median_s: not measured (run make dist first)",
    ]
