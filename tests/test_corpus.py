"""The corpus of malformed inputs (issue 17): every file a user can hand the command line gets one line naming the
file and the field, exit 2, no traceback, and no wait.

``tests/corpus/cases.json`` lists the stored files (Hugging Face configs, safetensors headers, saved scenarios,
training configs, memory snapshots), each with the words its message must hold and why the file is bad. The
special files are made here, at test time: FIFOs, folders and links where files belong, link loops, links to a
device, Hugging Face cache folders with broken links, files too large or nested 100,000 deep. The saved scenarios
are the GUI's: ``tests/gui/test_corpus_gui.py`` opens each in the window; here the app's own command line reads
them (``vramlab FILE --smoke-test``).

A hang would block the suite: each case runs under an alarm (``TIMEOUT_S``) that turns a blocked read into a
failure, and must use less than ``CPU_S`` of processor time (measured as CPU time, so that a machine shared with
other work does not make it flaky).
"""

from __future__ import annotations

import json
import os
import signal
import struct
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import pytest

CORPUS = Path(__file__).parent / "corpus"
CASES: dict[str, dict[str, dict[str, str]]] = json.loads((CORPUS / "cases.json").read_text(encoding="utf-8"))
TIMEOUT_S = 5
CPU_S = 1.0
#: a valid config, beside which the header cases put their model.safetensors
CONFIG = {"model_type": "llama", "vocab_size": 32000, "hidden_size": 512, "num_hidden_layers": 4,
          "num_attention_heads": 8, "num_key_value_heads": 8, "intermediate_size": 1376}
DEEP = "[" * 100_000 + "]" * 100_000
#: a valid saved scenario (GPT-2 on an H100), which the scenario cases change one field of
SCENARIO = {"format": "vramlab-scenario", "version": 1, "model": {"catalog": "gpt2"}, "setup": {},
            "gpu": {"catalog": "h100-80gb"}, "unit": "GB"}


@dataclass(frozen=True)
class Made:
    """A case made at test time: the command's arguments, the file the message must name, the words it must hold."""

    argv: list[str]
    name: str
    expect: str


Maker = Callable[[Path], Made]


def _config_folder(folder: Path) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "config.json").write_text(json.dumps(CONFIG), encoding="utf-8")
    return folder


def _header_file(header: bytes) -> bytes:
    return struct.pack("<Q", len(header)) + header


def _estimate(path: Path) -> list[str]:
    return ["estimate", "--config", str(path)]


def _with_safetensors(tmp: Path, make: Callable[[Path], object], expect: str) -> Made:
    folder = _config_folder(tmp / "model")
    make(folder / "model.safetensors")
    return Made(_estimate(folder), "model.safetensors", expect)


def _hf_cache(tmp: Path, make: Callable[[Path], object], expect: str, name: str = "config.json") -> Made:
    snapshot = tmp / "models--org--tiny" / "snapshots" / "abc123"
    snapshot.mkdir(parents=True)
    make(snapshot)
    return Made(_estimate(tmp / "models--org--tiny"), name, expect)


def _loop(path: Path) -> Path:
    path.symlink_to(path.name)
    return path


def _fifo(path: Path) -> Path:
    os.mkfifo(path)
    return path


def _written(path: Path, text: str, expect: str) -> Made:
    path.write_text(text)
    return Made(_estimate(path.parent), path.name, expect)


def _big_config(tmp: Path) -> Made:
    path = tmp / "config.json"
    path.write_bytes(b" " * 4_000_001 + b"{}")
    return Made(_estimate(path), "config.json", "too large")


def _shards(tmp: Path) -> Made:
    folder = _config_folder(tmp / "model")
    for i in range(4_097):
        (folder / f"model-{i:05}.safetensors").touch()
    return Made(_estimate(folder), "model", "more than 4,096 safetensors files")


def _blob_link(snapshot: Path) -> None:
    blobs = snapshot.parent.parent / "blobs"
    blobs.mkdir()
    (blobs / "5f1e").write_text(json.dumps(CONFIG).replace('"hidden_size": 512', '"hidden_size": NaN'))
    (snapshot / "config.json").symlink_to(Path("..") / ".." / "blobs" / "5f1e")


def _snapshot(tmp: Path, name: str, make: Callable[[Path], object], expect: str) -> Made:
    path = tmp / name
    make(path)
    return Made(["snapshot", str(path)], name, expect)


def _training(tmp: Path, name: str, make: Callable[[Path], object], expect: str) -> Made:
    path = tmp / name
    make(path)
    return Made(["estimate", "--from-config", str(path)], name, expect)


def _write(data: bytes | str) -> Callable[[Path], object]:
    return lambda p: p.write_bytes(data if isinstance(data, bytes) else data.encode())


def _folder(path: Path) -> Path:
    path.mkdir()
    return path


def _link(target: str) -> Callable[[Path], Path]:
    def make(path: Path) -> Path:
        path.symlink_to(target)
        return path

    return make


MADE: dict[str, Maker] = {
    # a config.json that is not a regular file, or is too large, too deep, missing
    "config_fifo": lambda t: Made(_estimate(_fifo(t / "config.json")), "config.json", "FIFO"),
    "config_folder": lambda t: Made(_estimate(_folder(t / "config.json")), "config.json",
                                    "no config.json in this folder"),
    "config_link_loop": lambda t: Made(_estimate(_loop(t / "config.json").parent), "config.json", "symbolic links"),
    "config_link_to_device": lambda t: Made(_estimate(_link("/dev/zero")(t / "config.json")), "config.json",
                                            "a device"),
    "config_missing": lambda t: Made(_estimate(t / "config.json"), "config.json", "no such file"),
    "config_too_large": _big_config,
    "config_nested_100000": lambda t: _written(t / "config.json", DEEP, "nested too deeply"),
    "config_hidden_size_nested_100000": lambda t: _written(t / "config.json", '{"hidden_size": ' + DEEP + "}",
                                                           "nested too deeply"),
    "folder_without_config": lambda t: Made(_estimate(t), t.name, "no config.json"),
    # a model.safetensors that is not a regular file, or whose header is cut, huge or nested 100,000 deep
    "safetensors_fifo": lambda t: _with_safetensors(t, _fifo, "FIFO"),
    "safetensors_folder": lambda t: _with_safetensors(t, _folder, "a folder"),
    "safetensors_link_to_device": lambda t: _with_safetensors(t, _link("/dev/zero"), "a device"),
    "safetensors_link_loop": lambda t: _with_safetensors(t, _loop, "symbolic links"),
    "safetensors_broken_link": lambda t: _with_safetensors(t, _link("gone"), "no such file"),
    "safetensors_empty": lambda t: _with_safetensors(t, _write(b""), "truncated"),
    "safetensors_seven_bytes": lambda t: _with_safetensors(t, _write(b"\x10\x00\x00\x00\x00\x00\x00"), "truncated"),
    "safetensors_length_past_the_end": lambda t: _with_safetensors(t, _write(struct.pack("<Q", 1_000) + b"{}"),
                                                                   "truncated"),
    "safetensors_length_2_to_the_63": lambda t: _with_safetensors(t, _write(struct.pack("<Q", 2**63)), "too large"),
    "safetensors_nested_100000": lambda t: _with_safetensors(t, _write(_header_file(DEEP.encode())),
                                                             "nested too deeply"),
    "safetensors_4097_shards": _shards,
    # Hugging Face cache folders: models--org--name/snapshots/<revision>/, files linked to ../../blobs/<hash>
    "hf_cache_no_snapshot": lambda t: _hf_cache(t, lambda s: None, "no config.json", "models--org--tiny"),
    "hf_cache_broken_link": lambda t: _hf_cache(t, lambda s: _link("../../blobs/gone")(s / "config.json"),
                                                "no such file"),
    "hf_cache_link_loop": lambda t: _hf_cache(t, lambda s: _loop(s / "config.json"), "symbolic links"),
    "hf_cache_fifo": lambda t: _hf_cache(t, lambda s: _fifo(s / "config.json"), "FIFO"),
    "hf_cache_config_folder": lambda t: _hf_cache(t, lambda s: _folder(s / "config.json"), "a folder"),
    "hf_cache_blob_with_nan": lambda t: _hf_cache(t, _blob_link, "field 'hidden_size': expected a whole number, "
                                                                 "found the number NaN"),
    "hf_cache_safetensors_fifo": lambda t: _hf_cache(
        t, lambda s: _fifo(_config_folder(s) / "model.safetensors"), "FIFO", "model.safetensors"),
    # training configs
    "training_fifo": lambda t: _training(t, "axolotl.yaml", _fifo, "FIFO"),
    "training_folder": lambda t: _training(t, "axolotl.yaml", _folder, "a folder"),
    "training_link_loop": lambda t: _training(t, "axolotl.yaml", _loop, "symbolic links"),
    "training_too_large": lambda t: _training(t, "axolotl.yaml", _write(b"#" * 2_000_000), "too large"),
    "training_nested_100000": lambda t: _training(t, "ds.json", _write('{"zero_optimization": ' + DEEP + "}"),
                                                  "nested too deeply"),
    # memory snapshots
    "snapshot_fifo": lambda t: _snapshot(t, "snap.pickle", _fifo, "FIFO"),
    "snapshot_folder": lambda t: _snapshot(t, "snap.pickle", _folder, "a folder"),
    "snapshot_link_to_device": lambda t: _snapshot(t, "snap.pickle", _link("/dev/zero"), "a device"),
    "snapshot_nested_100000": lambda t: _snapshot(t, "snap.json", _write('{"segments": ' + DEEP + "}"),
                                                  "nested too deeply"),
}
def special_scenarios(tmp: Path) -> dict[Path, str]:
    """Saved scenarios that are not regular files, or too deep, too large, or with a GPU named in 100,000
    characters, each with the words its refusal must hold. A FIFO named
    ``x.vramlab.json`` blocked the command line and the window forever; 100,000 nested arrays raised
    RecursionError; the long name raised in ``gui/state/binding.py``."""
    from engine.catalog import get_gpu

    fifo, folder, loop = tmp / "fifo.vramlab.json", tmp / "folder.vramlab.json", tmp / "loop.vramlab.json"
    os.mkfifo(fifo)
    folder.mkdir()
    loop.symlink_to(loop.name)
    device = tmp / "device.vramlab.json"
    device.symlink_to("/dev/zero")
    deep = tmp / "deep.vramlab.json"
    deep.write_text(DEEP)
    big = tmp / "big.vramlab.json"
    big.write_bytes(b" " * 4_000_001)
    name = tmp / "gpu_name.vramlab.json"
    gpu = get_gpu("h100-80gb").model_dump(mode="json")
    name.write_text(json.dumps({**SCENARIO, "gpu": {"spec": {**gpu, "id": "n", "name": "N" * 100_000}}}))
    return {fifo: "FIFO", folder: "a folder", loop: "symbolic links", device: "a device", deep: "nested too deeply",
            big: "too large", name: "gpu.spec.name", tmp / "missing.vramlab.json": "no such file"}


#: the stored files and the command that reads each group
COMMANDS: dict[str, Callable[[Path, Path], list[str]]] = {
    "configs": lambda p, _t: _estimate(p),
    "training": lambda p, _t: ["estimate", "--from-config", str(p)],
    "snapshots": lambda p, _t: ["snapshot", str(p)],
}


class HungError(Exception):
    """A case that did not finish within ``TIMEOUT_S``."""


@contextmanager
def alarm(seconds: int) -> Iterator[None]:
    def ring(_signum: int, _frame: object) -> None:
        raise HungError(f"no answer within {seconds} s")

    previous = signal.signal(signal.SIGALRM, ring)
    signal.alarm(seconds)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)


def run_cli(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, float]:
    """``python -m engine ARGV`` in process: (exit status, stderr, CPU seconds)."""
    from engine.cli import main

    start = time.process_time()
    with alarm(TIMEOUT_S):
        try:
            status = main(argv)
        except SystemExit as exit_:
            status = int(exit_.code or 0)
    return status, capsys.readouterr().err, time.process_time() - start


def check_one_line(status: int, err: str, cpu: float, name: str, expect: str) -> None:
    assert status == 2, err
    assert "Traceback" not in err
    assert err.count("\n") == 1, err
    assert err.startswith("error: "), err
    assert name in err, f"the message does not name {name}: {err}"
    assert expect in err, f"the message does not say {expect!r}: {err}"
    assert cpu < CPU_S, f"{cpu:.2f} s of CPU"


@pytest.fixture(scope="module", autouse=True)
def warm() -> None:
    """Import what the commands import, so that a case's time is its own."""
    from engine.cli import main

    main(["estimate", "--model", "gpt2"])
    import engine.config_import
    import engine.hf_import
    import engine.snapshot  # noqa: F401


def _stored() -> list[tuple[str, str]]:
    return [(group, name) for group in COMMANDS for name in CASES.get(group, {})]


@pytest.mark.parametrize(("group", "name"), _stored(), ids=[f"{g}/{n}" for g, n in _stored()])
def test_a_stored_case_gets_one_line_naming_the_file_and_the_field(
    group: str, name: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    case = CASES[group][name]
    status, err, cpu = run_cli(COMMANDS[group](CORPUS / group / name, tmp_path), capsys)
    check_one_line(status, err, cpu, name, case["expect"])


@pytest.mark.parametrize("name", sorted(CASES["headers"]))
def test_a_safetensors_header_is_named_as_the_headers_fault(
    name: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Beside a valid config.json, a model.safetensors with this header: the header is at fault, never a field of
    the config (it was once reported as ``config.json: field 'published_params'``)."""
    made = _with_safetensors(tmp_path, _write(_header_file((CORPUS / "headers" / name).read_bytes())),
                             CASES["headers"][name]["expect"])
    status, err, cpu = run_cli(made.argv, capsys)
    check_one_line(status, err, cpu, "model.safetensors: safetensors header: ", made.expect)
    assert "config.json" not in err


@pytest.mark.parametrize("name", sorted(MADE))
def test_a_special_file_gets_one_line_at_once(name: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    made = MADE[name](tmp_path)
    status, err, cpu = run_cli(made.argv, capsys)
    check_one_line(status, err, cpu, made.name, made.expect)


@pytest.mark.skipif(os.geteuid() == 0, reason="root reads a file whatever its permissions")
def test_an_unreadable_config_is_said(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "config.json"
    path.write_text(json.dumps(CONFIG))
    path.chmod(0)
    status, err, cpu = run_cli(_estimate(path), capsys)
    check_one_line(status, err, cpu, "config.json", "permission denied")


@pytest.mark.parametrize("name", sorted(CASES["scenarios"]))
def test_a_scenario_the_app_cannot_use_exits_2_on_its_command_line(
    name: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """``vramlab FILE --smoke-test`` reads the file before it builds a window: one line, exit 2."""
    from gui.app import main

    path = CORPUS / "scenarios" / name
    start = time.process_time()
    with alarm(TIMEOUT_S):
        status = main([str(path), "--smoke-test"])
    err = capsys.readouterr().err
    assert status == 2, err
    assert err.count("\n") == 1, err
    assert err.startswith(f"vramlab: error: {path}: "), err
    assert CASES["scenarios"][name]["expect"] in err, err
    assert time.process_time() - start < CPU_S


def test_a_special_scenario_exits_2_on_the_apps_command_line(tmp_path: Path,
                                                            capsys: pytest.CaptureFixture[str]) -> None:
    """``vramlab FILE --smoke-test`` with a FIFO, a folder, a link loop, a device, 100,000 nested arrays, a huge
    file, a GPU named in 100,000 characters: one line each, at once."""
    from gui.app import main

    failures = []
    for path, expect in special_scenarios(tmp_path).items():
        start = time.process_time()
        with alarm(TIMEOUT_S):
            status = main([str(path), "--smoke-test"])
        err = capsys.readouterr().err
        cpu = time.process_time() - start
        if status != 2 or err.count("\n") != 1 or not err.startswith(f"vramlab: error: {path}: ") \
                or expect not in err or cpu >= CPU_S:
            failures.append(f"{path.name}: exit {status}, {cpu:.2f} s of CPU: {err[:300]!r}")
    assert not failures, "\n".join(failures)


def test_the_corpus_holds_at_least_100_cases() -> None:
    stored = sum(len(group) for group in CASES.values())
    assert stored + len(MADE) >= 100
    for group, entries in CASES.items():
        assert {p.name for p in (CORPUS / group).iterdir()} == set(entries), f"{group}: files and cases.json differ"
        assert all(case["why"] and case["expect"] for case in entries.values())


def test_a_folder_named_with_255_characters_imports(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The model takes its folder's name, cut to the 200 characters of a model id."""
    folder = _config_folder(tmp_path / ("m" * 255))
    status, err, _cpu = run_cli(["estimate", "--config", str(folder), "--json"], capsys)
    assert status == 0, err
