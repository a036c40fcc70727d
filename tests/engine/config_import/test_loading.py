"""Reading configs safely: every refusal is one line naming the file, and comes at once (within REFUSAL_SECONDS)."""

from __future__ import annotations

import os
import pickle
import time
from pathlib import Path

import pytest

from engine.config_import.loading import MAX_BYTES, MAX_NODES, loads_yaml, read_config
from engine.config_import.report import ConfigRefusedError

#: the most a refusal may take on a loaded 2-core machine
REFUSAL_SECONDS = 5.0


def _refused(path: Path) -> str:
    start = time.perf_counter()
    with pytest.raises(ConfigRefusedError) as info:
        read_config(path)
    # a refusal stops at its cap: this catches a reader that parses on (a billion-laughs file takes minutes), not a
    # speed target (those are bench/'s); 1 s failed CI-like runs under load for the 200,000-node file (0.5 s alone)
    assert time.perf_counter() - start < REFUSAL_SECONDS
    text = str(info.value)
    assert "\n" not in text
    assert text.startswith(path.name + ": ")
    return text


def _write(tmp_path: Path, name: str, text: str) -> Path:
    p = tmp_path / name
    p.write_text(text, encoding="utf-8")
    return p


def test_training_args_bin_is_never_opened(tmp_path: Path) -> None:
    """Not even to look: a missing training_args.bin is refused for what it is, not for being missing."""
    text = _refused(tmp_path / "training_args.bin")
    assert "pickle" in text
    assert "to_json_string()" in text


def test_a_pickle_under_another_name_is_refused_unread(tmp_path: Path) -> None:
    p = tmp_path / "args.yaml"
    p.write_bytes(pickle.dumps({"per_device_train_batch_size": 4}))
    assert "pickle" in _refused(p)
    zipped = tmp_path / "args.json"
    zipped.write_bytes(b"PK\x03\x04" + b"\0" * 64)  # torch.save's zip archive
    assert "pickle" in _refused(zipped)


def test_files_over_a_megabyte_are_refused_with_their_size(tmp_path: Path) -> None:
    p = _write(tmp_path, "big.yaml", "# " + "x" * MAX_BYTES + "\n")
    text = _refused(p)
    assert "too large" in text
    assert "1,000,000" in text


def test_python_tags_never_build_objects(tmp_path: Path) -> None:
    marker = tmp_path / "ran"
    p = _write(tmp_path, "evil.yaml", f"a: !!python/object/apply:os.system ['touch {marker}']\n")
    assert "!!python/object/apply:os.system" in _refused(p)
    assert not marker.exists()
    assert "!foo" in _refused(_write(tmp_path, "custom.yaml", "a: !foo bar\n"))


def test_an_alias_bomb_is_refused_before_it_expands(tmp_path: Path) -> None:
    """Nine lists of nine aliases of the list before: 9**9 leaves once expanded, a few hundred nodes as written."""
    lines = ['a0: &a0 ["x", "x", "x", "x", "x", "x", "x", "x", "x"]']
    lines += [f"a{i}: &a{i} [" + ", ".join([f"*a{i - 1}"] * 9) + "]" for i in range(1, 9)]
    text = _refused(_write(tmp_path, "bomb.yaml", "\n".join(lines) + "\n"))
    assert "alias bomb" in text


def test_more_than_a_hundred_aliases_are_refused(tmp_path: Path) -> None:
    p = _write(tmp_path, "aliases.yaml", "a: &a 1\nb: [" + ", ".join(["*a"] * 101) + "]\n")
    assert "more than 100 YAML aliases" in _refused(p)


def test_a_recursive_alias_is_refused(tmp_path: Path) -> None:
    assert "inside the node it names" in _refused(_write(tmp_path, "cycle.yaml", "a: &a [1, *a]\n"))


@pytest.mark.parametrize("text", ["[" * 200_000 + "]" * 200_000,
                                  "".join(" " * i + f"k{i}:\n" for i in range(100)) + " " * 100 + "v: 1\n"])
def test_deep_nesting_is_refused(tmp_path: Path, text: str) -> None:
    assert "nest" in _refused(_write(tmp_path, "deep.yaml", text))


def test_deep_json_is_refused(tmp_path: Path) -> None:
    assert "nested too deeply" in _refused(_write(tmp_path, "deep.json", "[" * 100_000 + "]" * 100_000))


def test_a_file_of_many_tiny_nodes_stops_at_the_cap(tmp_path: Path) -> None:
    p = _write(tmp_path, "many.yaml", "\n".join(f"k{i}: {i}" for i in range(MAX_NODES)) + "\n")
    assert f"more than {MAX_NODES:,} YAML nodes" in _refused(p)


@pytest.mark.parametrize(("name", "text", "says"), [
    ("bad.yaml", "a: [1, 2\nb: 3\n", "not valid YAML (line 2"),
    ("two.yaml", "a: 1\n---\nb: 2\n", "not valid YAML"),
    ("bad.json", '{"a": NaN}', "NaN"),
    ("list.yaml", "- a\n- b\n", "top level is a list"),
    ("empty.yaml", "", "top level is empty"),
    ("latin1.yaml", "a: caf\xe9\n", "not UTF-8"),
])
def test_malformed_files_get_one_line(tmp_path: Path, name: str, text: str, says: str) -> None:
    p = tmp_path / name
    p.write_bytes(text.encode("latin-1") if "latin1" in name else text.encode())
    assert says in _refused(p)


def test_not_a_regular_file(tmp_path: Path) -> None:
    fifo = tmp_path / "config.yaml"
    os.mkfifo(fifo)
    assert "not a regular file" in _refused(fifo)
    assert "no such file" in _refused(tmp_path / "missing.yaml")
    assert "folder" in _refused(tmp_path)


def test_safe_yaml_keeps_plain_data() -> None:
    data = loads_yaml("base: &b {lr: 2.0e-5, bf16: true}\nrun:\n  <<: *b\n  seq: 2048\nwhen: 2024-05-01\n", "f.yaml")
    assert data["run"] == {"lr": 2e-5, "bf16": True, "seq": 2048}
    assert str(data["when"]) == "2024-05-01"


def test_comments_are_kept_for_launch_commands(tmp_path: Path) -> None:
    loaded = read_config(_write(tmp_path, "c.yaml", "# tune run lora_finetune_single_device --config x\na: 1\n"))
    assert "tune run" in loaded.text
    assert loaded.data == {"a": 1}
    assert not loaded.is_json
