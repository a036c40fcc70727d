"""engine.snapshot.load: snapshots read as pickle, JSON or gzip; a pickle that tries to run code is refused and
nothing in it runs; sizes are capped."""

from __future__ import annotations

import copyreg
import gzip
import io
import json
import os
import pickle
from pathlib import Path
from typing import Any

import pytest

from engine.safe_io import InputFileError
from engine.snapshot import Cancelled, read_measurement, read_report
from engine.snapshot.load import SnapshotError, loads_pickle, parse_snapshot_bytes, read_snapshot_file
from tools.snapshot_fixtures import training


@pytest.fixture(scope="module")
def snapshot() -> dict[str, Any]:
    return training(stacks="all").snapshot()


@pytest.mark.parametrize("protocol", [0, 2, 4, 5])
def test_what_dump_snapshot_writes_reads_back_equal(snapshot: dict[str, Any], protocol: int) -> None:
    data = pickle.dumps(snapshot, protocol=protocol)
    loaded = parse_snapshot_bytes(data, "snap.pickle")
    assert loaded["device_traces"] == snapshot["device_traces"]
    assert loaded["segments"][0]["segment_pool_id"] == (0, 0)  # a tuple comes through as a tuple


def test_json_and_gzip_are_accepted(tmp_path: Path, snapshot: dict[str, Any]) -> None:
    as_json = json.dumps(snapshot).encode()
    files = {"snap.json": as_json, "snap.json.gz": gzip.compress(as_json, mtime=0),
             "snap.pickle.gz": gzip.compress(pickle.dumps(snapshot), mtime=0)}
    for name, data in files.items():
        (tmp_path / name).write_bytes(data)
        loaded = read_snapshot_file(tmp_path / name)
        assert loaded["device_traces"] == json.loads(as_json)["device_traces"], name


def _payloads(marker: Path) -> dict[str, bytes]:
    """Pickles that would create ``marker`` (or call something) if anything in them ran."""
    cmd = f"touch {marker}".encode()

    class Evil:
        def __reduce__(self) -> tuple[Any, ...]:
            return (os.system, (cmd.decode(),))

    return {
        "GLOBAL+REDUCE": b"cos\nsystem\n(S'" + cmd + b"'\ntR.",
        "STACK_GLOBAL+REDUCE": pickle.dumps(Evil(), protocol=4),
        "INST": b"(S'" + cmd + b"'\nios\nsystem\n.",
        "OBJ": b"(cos\nsystem\nS'" + cmd + b"'\no.",
        "builtins.exec": b"cbuiltins\nexec\n(S'open(" + repr(str(marker)).encode() + b", \"w\")'\ntR.",
        "REDUCE on data": b"]S'x'\n\x85R.",
        "OBJ on data": b"(]S'x'\no.",
        "NEWOBJ on data": b"\x80\x02])\x81.",
        "BUILD on a dict": b"}}b.",
        "PERSID": b"Pfoo\n.",
        "EXT1": b"\x80\x02\x82\xf0(S'" + cmd + b"'\ntR.",
    }


def test_hostile_pickles_are_refused_and_nothing_runs(tmp_path: Path) -> None:
    marker = tmp_path / "pwned"
    copyreg.add_extension("os", "system", 0xF0)  # so that EXT1 0xF0 names os.system
    try:
        for what, data in _payloads(marker).items():
            with pytest.raises(SnapshotError) as info:
                loads_pickle(data, "evil.pickle")
            message = str(info.value)
            assert message.startswith("evil.pickle: refused: not a plain-data pickle"), (what, message)
            assert "\n" not in message, what
            assert not marker.exists(), what
    finally:
        copyreg.remove_extension("os", "system", 0xF0)


class _Recording(pickle.Unpickler):
    """An unpickler that hands out a harmless recorder for every name the stream asks for."""

    calls: list[tuple[str, tuple[Any, ...]]]

    def find_class(self, module: str, name: str) -> Any:
        return lambda *args: self.calls.append((f"{module}.{name}", args))


def test_the_payloads_would_call_code_if_allowed(tmp_path: Path) -> None:
    """The refusals above are not vacuous: with lookups allowed, each code payload calls what it names."""
    copyreg.add_extension("os", "system", 0xF0)
    try:
        for what in ("GLOBAL+REDUCE", "STACK_GLOBAL+REDUCE", "INST", "OBJ", "builtins.exec", "EXT1"):
            u = _Recording(io.BytesIO(_payloads(tmp_path / "m")[what]))
            u.calls = []
            u.load()
            assert u.calls, what
            assert u.calls[0][0] in ("os.system", "posix.system", "builtins.exec"), what
    finally:
        copyreg.remove_extension("os", "system", 0xF0)


def test_naming_code_is_reported_by_name() -> None:
    with pytest.raises(SnapshotError, match=r"it asks to load os\.system \(code\)"):
        loads_pickle(b"cos\nsystem\n(S'true'\ntR.", "evil.pickle")


def test_inert_non_plain_values_in_unread_fields_are_tolerated() -> None:
    # bytes and sets can be built without find_class; nothing reads or prints an unknown field
    data = pickle.dumps({"segments": [], "device_traces": [], "extra": {b"x", frozenset()}})
    assert parse_snapshot_bytes(data, "s.pickle")["segments"] == []


def test_size_caps(tmp_path: Path) -> None:
    big = tmp_path / "big.pickle"
    big.write_bytes(pickle.dumps({"segments": [], "device_traces": [], "pad": "x" * 5000}))
    with pytest.raises(InputFileError, match=r"big\.pickle: too large for a memory snapshot \(5,0\d\d bytes; "
                                            r"the limit is 1,000\)"):
        read_snapshot_file(big, limit=1000)
    bomb = gzip.compress(b"\0" * 10_000_000, mtime=0)  # about 10 KB that inflate to 10 MB
    with pytest.raises(SnapshotError, match=r"bomb\.gz: too large once decompressed \(over 1,000,000 bytes\)"):
        parse_snapshot_bytes(bomb, "bomb.gz", limit=1_000_000)


@pytest.mark.parametrize(
    ("data", "message"),
    [
        (b"", "s: empty file"),
        (gzip.compress(pickle.dumps({}), mtime=0)[:-10], "s: the gzip stream is truncated"),
        (b"\x1f\x8bnot gzip at all", "s: not a valid gzip file"),
        (pickle.dumps({"a": 1})[:-3], "s: refused: not a plain-data pickle"),
        (b"hello", "s: refused: not a plain-data pickle"),
        (b'{"segments": [], "device_traces": [NaN]}', "s: field 'device_traces[0]': NaN is not a number JSON allows"),
        (b'{"segments": ', "s: not valid JSON"),
    ],
)
def test_broken_files_get_one_line(data: bytes, message: str) -> None:
    with pytest.raises(SnapshotError if not message.endswith(("allows", "JSON")) else ValueError) as info:
        parse_snapshot_bytes(data, "s")
    assert str(info.value).startswith(message)
    assert "\n" not in str(info.value)


def _files(tmp_path: Path, snapshot: dict[str, Any]) -> list[Path]:
    as_pickle, as_json = pickle.dumps(snapshot, protocol=4), json.dumps(snapshot).encode()
    files = {"snap.pickle": as_pickle, "snap.json": as_json, "snap.pickle.gz": gzip.compress(as_pickle, mtime=0),
             "snap.p2": pickle.dumps(snapshot, protocol=2), "snap.p0": pickle.dumps(snapshot, protocol=0)}
    for name, data in files.items():
        (tmp_path / name).write_bytes(data)
    return [tmp_path / name for name in files]


def test_progress_rises_to_one_and_the_curves_match_the_report(tmp_path: Path, snapshot: dict[str, Any]) -> None:
    for path in _files(tmp_path, snapshot):
        seen: list[float] = []
        m = read_measurement(path, progress=seen.append)
        assert seen == sorted(seen), path.name
        assert seen[0] >= 0.0, path.name
        assert seen[-1] == 1.0, path.name
        assert len(seen) >= 4, path.name  # reading, parsing (chunks), replaying, the phases
        report = read_report(path)
        assert m.report == report, path.name
        assert int(m.allocated.max()) == report.peak_allocated_bytes or report.peak_event == -1
        assert len(m.allocated) == len(m.reserved) == report.events


@pytest.mark.parametrize("after", [0, 3])
def test_a_cancel_raised_by_progress_stops_reading_and_passes_through(
    tmp_path: Path, snapshot: dict[str, Any], after: int
) -> None:
    for path in _files(tmp_path, snapshot):
        calls = 0

        def cancel_at(_f: float) -> None:
            nonlocal calls
            calls += 1
            if calls > after:
                raise Cancelled

        with pytest.raises(Cancelled):
            read_measurement(path, progress=cancel_at)
        assert calls == after + 1, path.name


def test_a_large_pickle_is_read_in_chunks(snapshot: dict[str, Any]) -> None:
    """The unpickler comes back to Python (here: to ``progress``) many times over a file of a few MB."""
    data = pickle.dumps({**snapshot, "pad": [f"{i:0100d}" for i in range(50_000)]}, protocol=4)
    seen: list[float] = []
    loads_pickle(data, "big.pickle", seen.append)
    assert len(data) > 5_000_000
    assert len(seen) > len(data) // 200_000
    assert seen[-1] == 1.0


def test_hostile_pickles_are_refused_with_progress_too(tmp_path: Path) -> None:
    marker = tmp_path / "pwned"
    for what, data in _payloads(marker).items():
        if what == "EXT1":
            continue  # needs a registered extension (above)
        path = tmp_path / "evil.pickle"
        path.write_bytes(data)
        with pytest.raises(SnapshotError, match=r"^evil\.pickle: refused: not a plain-data pickle"):
            read_measurement(path, progress=lambda _f: None)
        assert not marker.exists(), what
