"""Reading a PyTorch memory snapshot file without running anything in it.

``torch.cuda.memory._dump_snapshot("snap.pickle")`` writes the dictionary that ``torch.cuda.memory._snapshot()``
returns (schema: the ``_snapshot`` docstring in PyTorch's ``torch/cuda/memory.py``) with ``pickle.dump``. A pickle
is a program: ``pickle.load`` or ``torch.load`` of a hostile file can import any module and call any function
(Python docs, ``pickle``: "Warning: The pickle module is not secure"). This module never calls either.

It uses the fast C unpickler with ``find_class`` refusing every name (the Python docs' "Restricting Globals"
recipe with nothing allowed). Every opcode that reaches code (GLOBAL, STACK_GLOBAL, INST, EXT1/2/4) goes through
``find_class``, so it fails; REDUCE, OBJ, NEWOBJ and BUILD then have no callable or class to apply and fail too;
PERSID and out-of-band buffers fail without ``persistent_load`` and ``buffers``. The opcodes left can build only
dict, list, tuple, str, int, float, bool and None, plus bytes, bytearray, set and frozenset (inert data, with
built-in hashing): nothing in the file is imported or called. The engine then reads only the documented fields
and checks each one's type where it reads it (``engine.snapshot.schema``, ``engine.snapshot.replay``); a wrong
type is refused with the field's name, and fields it does not read are never used or printed. (Walking every
object to refuse bytes and sets anywhere would cost about 3.4 s of CPU per million events, more than loading
and replaying together: ``bench/snapshot_load.py``.)

Unpickling a million events creates millions of containers; the cyclic garbage collector is paused meanwhile
(``paused_gc``), which makes loading about five times faster.

The unpickler reads the bytes through ``_Chunks``, a stream whose methods are Python (``read``, ``readline``,
``peek``): the C unpickler then returns to Python every 64 to 128 KiB, which lets another thread run (a GUI
loading a snapshot in a worker: one ``load()`` over a ``BytesIO`` keeps the GIL for its whole second) and lets
a ``progress`` callback report the fraction read and cancel by raising ``Cancelled``. JSON's parser calls an
``object_hook`` for every object instead, for the same purposes.

Also accepted: the same dictionary as JSON, and either one gzip-compressed (``gzip snap.pickle``), with the
decompressed size capped as well.
"""

from __future__ import annotations

import gc
import pickle
import zlib
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, NoReturn

from engine.safe_io import InputFileError, loads_json, read_bytes

#: files (and decompressed contents) larger than this are refused: 100,000 recorded events, the recipe in
#: docs/snapshot.md, make a few tens of MB; a 1,000,000-event snapshot about 100 MB and 1 GB of memory once read
MAX_SNAPSHOT_BYTES = 512 * 1024 * 1024

_GZIP_MAGIC = b"\x1f\x8b"
#: compressed bytes inflated per call (with a ``progress`` callback)
_GZIP_CHUNK = 4 * 1024 * 1024
#: JSON objects parsed between two calls of a ``progress`` callback
_JSON_OBJECTS_PER_CALL = 4096

#: called now and then with the fraction of the work done (0 to 1); it may raise ``Cancelled`` to stop the work
Progress = Callable[[float], None]


class SnapshotError(InputFileError):
    """A snapshot that cannot be read or does not have the documented shape; the message names file and field."""


class Cancelled(Exception):  # noqa: N818 (not an error: the user's own request)
    """Raised by a ``Progress`` callback to stop reading (a GUI's Cancel button); passes through unchanged."""


def scaled(progress: Progress | None, lo: float, hi: float) -> Progress | None:
    """``progress`` for one part of the work: the part's fraction ``f`` is reported as ``lo + f * (hi - lo)``."""
    if progress is None:
        return None
    outer = progress

    def part(f: float) -> None:
        outer(lo + min(max(f, 0.0), 1.0) * (hi - lo))

    return part


class _Chunks:
    """A pickle's bytes as a stream with Python methods, so that the unpickler calls back into Python every
    chunk (module docstring); ``progress`` gets the fraction consumed."""

    def __init__(self, data: bytes, progress: Progress | None) -> None:
        self._data, self._pos, self._progress = data, 0, progress

    def _advance(self, end: int) -> bytes:
        start, self._pos = self._pos, end
        if self._progress is not None and self._data:
            self._progress(end / len(self._data))
        return self._data[start:end]

    def read(self, n: int = -1) -> bytes:
        size = len(self._data)
        return self._advance(size if n is None or n < 0 else min(size, self._pos + n))

    def readline(self, limit: int = -1) -> bytes:
        newline = self._data.find(b"\n", self._pos)
        end = len(self._data) if newline < 0 else newline + 1
        return self._advance(end if limit is None or limit < 0 else min(end, self._pos + limit))

    def peek(self, n: int = 0) -> bytes:
        return self._data[self._pos:self._pos + max(n, 1)]


class _NoGlobals(pickle.Unpickler):
    """The C unpickler, allowed no module, class or function at all."""

    def find_class(self, module: str, name: str) -> NoReturn:
        raise pickle.UnpicklingError(f"it asks to load {module}.{name} (code), which is never allowed")


@contextmanager
def paused_gc() -> Iterator[None]:
    """The cyclic garbage collector off for the block (a snapshot holds no cycles worth collecting)."""
    was = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was:
            gc.enable()


def release(snapshot: Any, piece: int = 20_000) -> None:
    """Empty a snapshot's event and segment lists a piece at a time, while the collector is still paused.

    Freeing a million events is one long C call when the last reference goes (it holds the GIL throughout); a
    thread reading for a window frees them in pieces instead, and leaves the collector nothing to walk when
    ``paused_gc`` turns it back on."""
    if not isinstance(snapshot, dict):
        return
    lists = [t for t in snapshot.get("device_traces", ()) if isinstance(t, list)]
    lists += [x for x in (snapshot.get("segments"), snapshot.get("device_traces")) if isinstance(x, list)]
    for items in lists:
        while items:
            del items[-piece:]


def loads_pickle(data: bytes, name: str, progress: Progress | None = None) -> Any:
    """The plain data in a pickle, or ``SnapshotError``; nothing in ``data`` is ever imported or called."""
    try:
        with paused_gc():
            return _NoGlobals(_Chunks(data, progress)).load()
    except Cancelled:
        raise
    except pickle.UnpicklingError as err:
        raise SnapshotError(f"{name}: refused: not a plain-data pickle ({_one_line(err)})") from None
    except Exception as err:  # a truncated or crafted stream: EOFError, TypeError, AttributeError, ValueError...
        why = f"{type(err).__name__}: {_one_line(err)}"
        raise SnapshotError(f"{name}: refused: not a plain-data pickle ({why})") from None


def _one_line(err: Exception) -> str:
    return " ".join(str(err).split())


def _gunzip(data: bytes, name: str, limit: int, progress: Progress | None = None) -> bytes:
    """Decompress every gzip member of ``data``, refusing more than ``limit`` bytes of output; with
    ``progress``, ``_GZIP_CHUNK`` compressed bytes at a time (zlib releases the GIL while it inflates)."""
    out: list[bytes] = []
    total = 0
    view = memoryview(data)
    pos = 0
    step = _GZIP_CHUNK if progress is not None else len(data)
    try:
        while bytes(view[pos:pos + 2]) == _GZIP_MAGIC:
            d = zlib.decompressobj(wbits=31)
            while not d.eof and pos < len(view):
                chunk = d.decompress(view[pos:pos + step], limit + 1 - total)
                pos = min(pos + step, len(view))
                total += len(chunk)
                out.append(chunk)
                if total > limit:
                    raise SnapshotError(f"{name}: too large once decompressed (over {limit:,} bytes)")
                if progress is not None:
                    progress(pos / len(view))
            if not d.eof:
                raise SnapshotError(f"{name}: the gzip stream is truncated")
            pos -= len(d.unused_data)  # the next member starts where this one's data ended
    except zlib.error as err:
        raise SnapshotError(f"{name}: not a valid gzip file ({err})") from None
    return b"".join(out)


def _json_ticks(progress: Progress | None, at: float) -> Callable[[dict[str, Any]], Any] | None:
    """An ``object_hook`` that calls ``progress(at)`` every ``_JSON_OBJECTS_PER_CALL`` objects (a cancel point:
    the parser reports no position, so the fraction stays where the parsing began)."""
    if progress is None:
        return None
    tick = progress
    count = 0

    def hook(obj: dict[str, Any]) -> dict[str, Any]:
        nonlocal count
        count += 1
        if count % _JSON_OBJECTS_PER_CALL == 0:
            tick(at)
        return obj

    return hook


def parse_snapshot_bytes(
    data: bytes, name: str, limit: int = MAX_SNAPSHOT_BYTES, progress: Progress | None = None
) -> Any:
    """A snapshot's plain data from a file's bytes: pickle or JSON, optionally gzip-compressed. ``progress``
    gets the fraction done (decompressing is the first quarter of a compressed file's work)."""
    parse = progress
    if data[:2] == _GZIP_MAGIC:
        data = _gunzip(data, name, limit, scaled(progress, 0.0, 0.25))
        parse = scaled(progress, 0.25, 1.0)
    if not data:
        raise SnapshotError(f"{name}: empty file")
    if data.lstrip()[:1] == b"{":
        with paused_gc():
            return loads_json(data, name, object_hook=_json_ticks(parse, 0.0))
    return loads_pickle(data, name, parse)


def read_snapshot_file(path: str | Path, limit: int = MAX_SNAPSHOT_BYTES, progress: Progress | None = None) -> Any:
    """The plain data of the snapshot file at ``path`` (regular files only, at most ``limit`` bytes). ``progress``
    gets the fraction done: reading the file is its first tenth."""
    data = read_bytes(path, limit, "memory snapshot", scaled(progress, 0.0, 0.1))
    return parse_snapshot_bytes(data, Path(path).name, limit, scaled(progress, 0.1, 1.0))
