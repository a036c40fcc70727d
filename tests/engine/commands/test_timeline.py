"""``python -m engine timeline``: the JSON contract, --memory-viz, and one-line errors with exit 2."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from engine.cli import main

POINT = {"index", "step", "phase", "layer", "allocated_bytes", "terms"}


def run_json(capsys: pytest.CaptureFixture[str], command: str, *argv: str) -> dict[str, Any]:
    assert main([command, *argv, "--json"]) == 0
    data: dict[str, Any] = json.loads(capsys.readouterr().out)
    return data


def test_points_and_peak_match_the_estimate(capsys: pytest.CaptureFixture[str]) -> None:
    flags = ["--model", "qwen2.5-0.5b", "--method", "lora", "--seq-len", "2048", "--checkpointing", "full"]
    t = run_json(capsys, "timeline", *flags)
    e = run_json(capsys, "estimate", *flags)
    assert all(p.keys() >= POINT for p in t["points"])
    assert max(p["allocated_bytes"] for p in t["points"]) == e["peak_allocated_bytes"]
    peak = t["points"][t["peak_index"]]
    assert peak["allocated_bytes"] == e["peak_allocated_bytes"]
    assert (peak["phase"], peak["step"]) == (e["peak_phase"], e["peak_step"])
    assert peak["terms"] == e["terms"]
    assert {p["step"] for p in t["points"]} == {1, 2}
    assert "memory_viz" not in t


def test_memory_viz_export_reads_back(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    out = tmp_path / "prediction.json"
    t = run_json(capsys, "timeline", "--model", "llama-3.2-1b", "--seq-len", "1024", "--memory-viz", str(out))
    assert t["memory_viz"] == str(out)
    s = run_json(capsys, "snapshot", str(out))
    assert s["peak_allocated_bytes"] == t["peak_allocated_bytes"]


def test_text_output(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["timeline", "--model", "llama-3.2-1b"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("Llama 3.2 1B: full")
    assert "allocated peak" in out


@pytest.mark.parametrize(
    ("argv", "message"),
    [(["--seq-len", "0"], "--seq-len:"), (["--model", "nope"], "nope"),
     (["--memory-viz", "/does/not/exist/p.json"], "/does/not/exist/p.json")],
)
def test_errors_are_one_line_exit_2(argv: list[str], message: str) -> None:
    r = subprocess.run([sys.executable, "-m", "engine", "timeline", *argv], capture_output=True, text=True,
                       check=False, timeout=60)
    assert r.returncode == 2, r.stderr
    assert "Traceback" not in r.stderr
    assert len(r.stderr.strip().splitlines()) == 1, r.stderr
    assert message in r.stderr
