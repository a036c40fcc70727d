"""The golden grid (``golden.py``): every command's JSON is byte-identical to the recorded one."""

from __future__ import annotations

import difflib

from tests.engine.training.golden import commands, load, run


def test_the_grid_is_large_enough() -> None:
    grid = load()
    assert len(grid) >= 300
    assert sorted(grid) == sorted(" ".join(argv) for argv in commands())


def test_every_command_prints_what_was_recorded() -> None:
    grid = load()
    moved = []
    for argv in commands():
        key = " ".join(argv)
        now = run(argv)
        if now != grid[key]:
            diff = difflib.unified_diff(grid[key].splitlines(), now.splitlines(), lineterm="", n=1)
            moved.append(f"{key}\n" + "\n".join(list(diff)[2:14]))
    assert not moved, f"{len(moved)} commands moved; the first:\n" + "\n\n".join(moved[:3])
