"""engine.safe_io: special files, sizes, depth and non-finite numbers are refused with the file's name."""

from __future__ import annotations

import os
import threading
import time
from pathlib import Path

import pytest

from engine.safe_io import InputFileError, depth, file_size, loads_json, read_bytes, read_header, read_json, read_text


def test_reads_a_regular_file(tmp_path: Path) -> None:
    f = tmp_path / "config.json"
    f.write_text('\ufeff{"a": 1}', encoding="utf-8")
    assert read_text(f, 100) == '{"a": 1}'
    assert read_json(f, 100) == {"a": 1}
    assert file_size(f) == len('\ufeff{"a": 1}'.encode())


def test_fifo_is_refused_at_once(tmp_path: Path) -> None:
    fifo = tmp_path / "model.safetensors"
    os.mkfifo(fifo)
    start = time.monotonic()
    with pytest.raises(InputFileError, match=r"model\.safetensors: a FIFO"):
        read_bytes(fifo, 100)
    assert time.monotonic() - start < 1.0


def test_fifo_with_a_writer_is_refused(tmp_path: Path) -> None:
    fifo = tmp_path / "x.vramlab.json"
    os.mkfifo(fifo)
    opened = threading.Event()

    def writer() -> None:
        fd = os.open(fifo, os.O_RDWR)  # keeps the pipe open without blocking
        opened.set()
        time.sleep(0.5)
        os.close(fd)

    t = threading.Thread(target=writer)
    t.start()
    opened.wait(2)
    with pytest.raises(InputFileError, match="FIFO"):
        read_text(fifo, 100)
    t.join()


def test_folder_and_missing(tmp_path: Path) -> None:
    with pytest.raises(InputFileError, match="folder"):
        read_text(tmp_path, 100)
    with pytest.raises(InputFileError, match="no such file"):
        read_text(tmp_path / "nope.json", 100)


def test_device_is_refused() -> None:
    with pytest.raises(InputFileError, match="device"):
        read_bytes("/dev/zero", 100)


def test_size_limit_names_size_and_limit(tmp_path: Path) -> None:
    f = tmp_path / "big.json"
    f.write_bytes(b" " * 101)
    with pytest.raises(InputFileError, match=r"big\.json: too large for a config \(101 bytes; the limit is 100\)"):
        read_text(f, 100, "config")


def test_not_utf8(tmp_path: Path) -> None:
    f = tmp_path / "c.json"
    f.write_bytes(b'{"a": "\xff"}')
    with pytest.raises(InputFileError, match=r"c\.json: not UTF-8 text \(byte 7"):
        read_text(f, 100)


@pytest.mark.parametrize(
    ("text", "needle"),
    [
        ('{"hidden_size": NaN}', "NaN is not a number JSON allows"),
        ('{"hidden_size": Infinity}', "Infinity is not a number JSON allows"),
        ('{"hidden_size": -Infinity}', "-Infinity is not a number JSON allows"),
        ('{"hidden_size": 1e400}', "overflows to infinity"),
        ('{"hidden_size": ' + "9" * 5000 + "}", "a whole number of 5,000 digits (at most 4,300)"),
        ("[" * 100_000 + "]" * 100_000, "nested too deeply"),
        ("[" * 65 + "]" * 65, "nested too deeply"),
        ('{"a": ', "not valid JSON (line 1"),
    ],
)
def test_loads_json_refuses(text: str, needle: str) -> None:
    with pytest.raises(InputFileError, match=r"^cfg\.json: ") as err:
        loads_json(text, "cfg.json")
    assert needle in str(err.value)


def test_depth_limit_is_inclusive() -> None:
    assert loads_json("[" * 64 + "]" * 64, "x") is not None
    assert depth({"a": [1, {"b": []}]}) == 4
    assert depth(3) == 0


def test_read_header(tmp_path: Path) -> None:
    f = tmp_path / "m.safetensors"
    f.write_bytes(b"0123456789")
    assert read_header(f, 2, 3) == b"234"
    with pytest.raises(InputFileError, match="truncated"):
        read_header(f, 8, 5)


@pytest.mark.parametrize(
    ("text", "line"),
    [
        ('{"hidden_size": NaN}', "cfg.json: field 'hidden_size': NaN is not a number JSON allows"),
        ('{"text_config": {"hidden_size": Infinity}}',
         "cfg.json: field 'text_config.hidden_size': Infinity is not a number JSON allows"),
        ('{"a": 1, "shape": [1, 1e400]}',
         "cfg.json: field 'shape[1]': 1e400 overflows to infinity"),
        ('{"hidden_size": -' + "1" * 5000 + "}",
         "cfg.json: field 'hidden_size': a whole number of 5,000 digits (at most 4,300)"),
        ("NaN", "cfg.json: NaN is not a number JSON allows"),
    ],
)
def test_a_refused_number_is_named_by_its_field(text: str, line: str) -> None:
    """Issue 17: a config's hidden_size of NaN, Infinity, 1e400 or 5,000 digits is named, not only refused."""
    with pytest.raises(InputFileError) as err:
        loads_json(text, "cfg.json")
    assert str(err.value) == line
