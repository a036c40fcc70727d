"""gui.files.file_kind: each kind of dropped file is told by its name, first bytes and keys; special files never
block."""

from __future__ import annotations

import gzip
import json
import os
import pickle
import time
from pathlib import Path

import pytest

from gui.files import scenario_file
from gui.files.file_kind import HEAD_BYTES, FileKind, sniff
from gui.state import scenario_data

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "training_configs"
LLAMA = {"model_type": "llama", "vocab_size": 32000, "hidden_size": 2048, "intermediate_size": 5632,
         "num_hidden_layers": 22, "num_attention_heads": 32, "num_key_value_heads": 4}
SNAPSHOT: dict[str, list[object]] = {"segments": [], "device_traces": [[]]}


def write(path: Path, data: bytes | str) -> Path:
    if isinstance(data, str):
        path.write_text(data, encoding="utf-8")
    else:
        path.write_bytes(data)
    return path


@pytest.mark.parametrize("name", ["axolotl/qlora-1b.yml", "deepspeed/zero_stage2_config.json",
                                  "accelerate/fsdp.yaml", "transformers/training_args.json",
                                  "torchtune/8B_full.yaml"])
def test_training_configs(name: str) -> None:
    assert sniff(FIXTURES / name).kind is FileKind.TRAINING_CONFIG


def test_training_args_bin_goes_to_the_import_which_explains(tmp_path: Path) -> None:
    assert sniff(write(tmp_path / "training_args.bin", b"PK\x03\x04...")).kind is FileKind.TRAINING_CONFIG


def test_models(tmp_path: Path) -> None:
    folder = tmp_path / "TinyLlama"
    folder.mkdir()
    config = write(folder / "config.json", json.dumps(LLAMA))
    assert sniff(config).kind is FileKind.MODEL
    assert sniff(folder).kind is FileKind.MODEL
    cache = tmp_path / "models--org--name" / "snapshots" / "abc"
    cache.mkdir(parents=True)
    write(cache / "config.json", json.dumps(LLAMA))
    assert sniff(tmp_path / "models--org--name").kind is FileKind.MODEL


def test_scenarios(tmp_path: Path) -> None:
    text = scenario_file.to_json(scenario_data.defaults())
    assert sniff(write(tmp_path / "mine.vramlab.json", text)).kind is FileKind.SCENARIO
    assert sniff(write(tmp_path / "renamed.json", text)).kind is FileKind.SCENARIO


def test_snapshots(tmp_path: Path) -> None:
    assert sniff(write(tmp_path / "snap.pickle", pickle.dumps(SNAPSHOT, protocol=4))).kind is FileKind.SNAPSHOT
    assert sniff(write(tmp_path / "snap.json", json.dumps(SNAPSHOT))).kind is FileKind.SNAPSHOT
    assert sniff(write(tmp_path / "snap.gz", gzip.compress(pickle.dumps(SNAPSHOT), mtime=0))).kind is FileKind.SNAPSHOT
    big = json.dumps({"segments": [{"device": 0, "frames": ["x" * 100] * 20_000}], "device_traces": []})
    assert len(big) > 1_000_000
    assert sniff(write(tmp_path / "big.json", big)).kind is FileKind.SNAPSHOT


@pytest.mark.parametrize(
    ("name", "data", "why"),
    [("notes.txt", "just some words\n", "not a training config (its top level is a single value"),
     ("list.yaml", "- a\n- b\n", "its top level is a list"),
     ("other.yaml", "colour: blue\nsize: 3\n", "none of their keys is in it"),
     ("bad.yaml", "a: [1, 2\n", "not valid YAML"),
     ("image.png", b"\x89PNG\r\n\x1a\n" + bytes(100), "not UTF-8 text"),
     ("archive.zip", b"PK\x03\x04" + bytes(100), "a zip archive"),
     ("huge.yaml", "a: 1\n" * 300_000, "too large for a training config")],
)
def test_anything_else_says_why(tmp_path: Path, name: str, data: str | bytes, why: str) -> None:
    found = sniff(write(tmp_path / name, data))
    assert found.kind is FileKind.OTHER
    assert why in str(found.why)


def test_special_files_are_refused_at_once(tmp_path: Path) -> None:
    fifo = tmp_path / "config.yaml"
    os.mkfifo(fifo)
    empty = tmp_path / "empty-folder"
    empty.mkdir()
    start = time.monotonic()
    assert "not a regular file" in str(sniff(fifo).why)
    assert "no config.json" in str(sniff(empty).why)
    assert "no such file" in str(sniff(tmp_path / "gone.yaml").why)
    assert time.monotonic() - start < 1.0


def test_only_the_head_of_a_large_file_is_read(tmp_path: Path) -> None:
    path = write(tmp_path / "big.bin", b"\x80" + bytes(HEAD_BYTES * 8))
    assert sniff(path).kind is FileKind.SNAPSHOT
