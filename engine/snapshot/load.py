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

Also accepted: the same dictionary as JSON, and either one gzip-compressed (``gzip snap.pickle``), with the
decompressed size capped as well.
"""

from __future__ import annotations

import gc
import io
import pickle
import zlib
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, NoReturn

from engine.safe_io import InputFileError, loads_json, read_bytes

#: files (and decompressed contents) larger than this are refused: 100,000 recorded events, the recipe in
#: docs/snapshot.md, make a few tens of MB; a 1,000,000-event snapshot about 100 MB and 1 GB of memory once read
MAX_SNAPSHOT_BYTES = 512 * 1024 * 1024

_GZIP_MAGIC = b"\x1f\x8b"


class SnapshotError(InputFileError):
    """A snapshot that cannot be read or does not have the documented shape; the message names file and field."""


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


def loads_pickle(data: bytes, name: str) -> Any:
    """The plain data in a pickle, or ``SnapshotError``; nothing in ``data`` is ever imported or called."""
    try:
        with paused_gc():
            return _NoGlobals(io.BytesIO(data)).load()
    except pickle.UnpicklingError as err:
        raise SnapshotError(f"{name}: refused: not a plain-data pickle ({_one_line(err)})") from None
    except Exception as err:  # a truncated or crafted stream: EOFError, TypeError, AttributeError, ValueError...
        why = f"{type(err).__name__}: {_one_line(err)}"
        raise SnapshotError(f"{name}: refused: not a plain-data pickle ({why})") from None


def _one_line(err: Exception) -> str:
    return " ".join(str(err).split())


def _gunzip(data: bytes, name: str, limit: int) -> bytes:
    """Decompress every gzip member of ``data``, refusing more than ``limit`` bytes of output."""
    out: list[bytes] = []
    total = 0
    rest = data
    try:
        while rest[:2] == _GZIP_MAGIC:
            d = zlib.decompressobj(wbits=31)
            chunk = d.decompress(rest, limit + 1 - total)
            total += len(chunk)
            out.append(chunk)
            if total > limit:
                raise SnapshotError(f"{name}: too large once decompressed (over {limit:,} bytes)")
            if not d.eof:
                raise SnapshotError(f"{name}: the gzip stream is truncated")
            rest = d.unused_data
    except zlib.error as err:
        raise SnapshotError(f"{name}: not a valid gzip file ({err})") from None
    return b"".join(out)


def parse_snapshot_bytes(data: bytes, name: str, limit: int = MAX_SNAPSHOT_BYTES) -> Any:
    """A snapshot's plain data from a file's bytes: pickle or JSON, optionally gzip-compressed."""
    if data[:2] == _GZIP_MAGIC:
        data = _gunzip(data, name, limit)
    if not data:
        raise SnapshotError(f"{name}: empty file")
    if data.lstrip()[:1] == b"{":
        return loads_json(data, name)
    return loads_pickle(data, name)


def read_snapshot_file(path: str | Path, limit: int = MAX_SNAPSHOT_BYTES) -> Any:
    """The plain data of the snapshot file at ``path`` (regular files only, at most ``limit`` bytes)."""
    data = read_bytes(path, limit, "memory snapshot")
    return parse_snapshot_bytes(data, Path(path).name, limit)
