"""``python -m engine snapshot``: the JSON contract, --compare, and one-line errors with exit 2."""

from __future__ import annotations

import gzip
import json
import pickle
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from engine.cli import main
from tools.snapshot_fixtures import training

KEYS = {"file", "device", "devices", "events", "peak_allocated_bytes", "peak_event", "peak_reserved_bytes",
        "before_recording_bytes", "stacks", "ooms", "timeline", "steps", "by_term", "attribution", "peak_blocks",
        "allocator_check"}
CHECK = {"checked", "reason", "settings", "recorded_peak_reserved_bytes", "simulated_peak_reserved_bytes", "peak_error",
         "recorded_final_reserved_bytes", "simulated_final_reserved_bytes", "final_error", "recorded_segment_allocs",
         "simulated_segment_allocs", "mirrored_releases", "unmatched_releases", "largest_difference_bytes"}
COMPARE = {"estimated_peak_allocated_bytes", "measured_peak_allocated_bytes", "ratio", "by_phase"}


@pytest.fixture(scope="module")
def snap_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("snap") / "snapshot.pickle.gz"
    path.write_bytes(gzip.compress(pickle.dumps(training(stacks="all").snapshot()), mtime=0))
    return path


def run_json(capsys: pytest.CaptureFixture[str], *argv: str) -> dict[str, Any]:
    assert main(["snapshot", *argv, "--json"]) == 0
    data: dict[str, Any] = json.loads(capsys.readouterr().out)
    return data


def test_json_contract(capsys: pytest.CaptureFixture[str], snap_file: Path) -> None:
    d = run_json(capsys, str(snap_file))
    assert d.keys() >= KEYS
    assert "compare" not in d
    assert d["devices"] == [0]
    assert d["device"] == 0
    assert sum(d["by_term"].values()) == d["peak_allocated_bytes"]
    assert set(d["by_term"]) == {"weights", "gradients", "optimizer_states", "activations", "logits",
                                 "sharding_buffers", "temporaries", "parallel_buffers", "unattributed"}
    assert [s["step"] for s in d["steps"]] == [1, 2]
    assert max(p["allocated_bytes"] for p in d["timeline"]) == d["peak_allocated_bytes"]
    assert d["ooms"][0]["requested_bytes"] == 1 << 40
    check = d["allocator_check"]
    assert check.keys() == CHECK
    assert check["checked"]
    assert check["simulated_peak_reserved_bytes"] == check["recorded_peak_reserved_bytes"] == d["peak_reserved_bytes"]


def test_compare_takes_the_estimate_flags(capsys: pytest.CaptureFixture[str], snap_file: Path) -> None:
    d = run_json(capsys, str(snap_file), "--compare", "--model", "llama-3.2-1b", "--method", "lora",
                 "--seq-len", "1024", "--device", "0")
    assert d["compare"].keys() >= COMPARE
    main(["estimate", "--model", "llama-3.2-1b", "--method", "lora", "--seq-len", "1024", "--json"])
    estimated = json.loads(capsys.readouterr().out)["peak_allocated_bytes"]
    assert d["compare"]["estimated_peak_allocated_bytes"] == estimated


def test_text_output(capsys: pytest.CaptureFixture[str], snap_file: Path) -> None:
    assert main(["snapshot", str(snap_file)]) == 0
    out = capsys.readouterr().out
    assert "allocated peak" in out
    assert "(step 2, backward)" in out
    assert "steps found: 2" in out
    assert "allocator model: reserved peak 0.20 GB simulated from the trace, 0.20 GB recorded (+0.00%)" in out


def _evil(tmp_path: Path) -> tuple[Path, Path]:
    marker = tmp_path / "pwned"
    evil = tmp_path / "evil.pickle"
    evil.write_bytes(b"cos\nsystem\n(S'touch " + str(marker).encode() + b"'\ntR.")
    return evil, marker


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["/does/not/exist.pickle"], "exist.pickle: no such file"),
        (["{evil}"], "evil.pickle: refused: not a plain-data pickle (it asks to load os.system (code)"),
        (["{snap}", "--device", "1"], "device 1 has no events or segments (devices: [0])"),
        (["{json}"], "bad.json: device_traces[0][0].size: expected an integer, found float"),
        (["{snap}", "--compare", "--model", "nope"], "nope"),
    ],
)
def test_errors_are_one_line_exit_2(tmp_path: Path, snap_file: Path, argv: list[str], message: str) -> None:
    evil, marker = _evil(tmp_path)
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({"segments": [], "device_traces": [[{"action": "alloc", "addr": 1, "size": 1.5}]]}))
    args = [a.format(evil=evil, snap=snap_file, json=bad) for a in argv]
    r = subprocess.run([sys.executable, "-m", "engine", "snapshot", *args], capture_output=True, text=True,
                       check=False, timeout=60)
    assert r.returncode == 2, r.stderr
    assert "Traceback" not in r.stderr
    assert len(r.stderr.strip().splitlines()) == 1, r.stderr
    assert message in r.stderr
    assert not marker.exists()
