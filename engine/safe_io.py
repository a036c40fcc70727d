"""Reading a user's file without letting it hang, exhaust or fool the program.

Every file the app or the command line opens on a user's behalf (a config.json, a safetensors header, a training
config, a saved scenario, a PyTorch memory snapshot) goes through here:

* only a **regular file** is read: a FIFO, a device, a socket or a folder is refused before anything blocks on it
  (the file is opened with ``O_NONBLOCK`` and checked with ``fstat`` on the open descriptor, so a FIFO named
  ``config.json`` cannot make ``open`` wait for a writer, and the check and the read see the same file);
* at most ``limit`` bytes are read, with a message that says how large the file is and what the limit is;
* JSON is parsed with its **depth** capped (100,000 nested arrays would otherwise raise ``RecursionError``) and
  with ``NaN``, ``Infinity`` and numbers that overflow to infinity (``1e400``) refused, as JSON itself does
  (RFC 8259, section 6: "Numeric values that cannot be represented ... such as Infinity and NaN ... are not
  permitted"); Python's cap on the digits of an integer it parses (4,300 digits since 3.11: CVE-2020-10735,
  python/cpython gh-95778) is reported as a message too; each names the field that held the number. A Hugging Face
  config.json is read as transformers reads it (``non_finite=True``): ``NaN``, ``Infinity`` and ``-Infinity`` become
  floats, as Python's ``json.loads`` makes them by default and transformers 5.24's
  ``PretrainedConfig._dict_from_json_file`` (``configuration_utils.py``: ``json.loads(text)``) takes them
  (Nemotron-H's ``time_step_limit: [0.0, Infinity]``); the fields the engine reads then refuse a non-finite number
  by name (``engine.hf_config.Reader``).

Every refusal is an :class:`InputFileError` (a ``ValueError``) whose message starts with the file's name.
"""

from __future__ import annotations

import errno
import json
import math
import os
import stat
from collections.abc import Callable
from pathlib import Path
from typing import Any

#: nesting deeper than this is refused (real configs, headers and scenarios nest fewer than 10 levels)
MAX_JSON_DEPTH = 64
#: ``read_bytes`` with a ``progress`` callback reads this much at a time
READ_CHUNK = 8 * 1024 * 1024


class InputFileError(ValueError):
    """A file that cannot be read as asked; the message starts with the file's name."""


def _kind(mode: int) -> str:
    if stat.S_ISDIR(mode):
        return "a folder"
    if stat.S_ISFIFO(mode):
        return "a FIFO (named pipe)"
    if stat.S_ISSOCK(mode):
        return "a socket"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    return "not a regular file"


def _fd(path: Path) -> int:
    """An open read-only descriptor of ``path``, which must be a regular file."""
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0))
    except FileNotFoundError:
        raise InputFileError(f"{path}: no such file") from None
    except IsADirectoryError:
        raise InputFileError(f"{path}: is a folder, not a file") from None
    except PermissionError:
        raise InputFileError(f"{path}: permission denied") from None
    except OSError as err:
        if err.errno == errno.ENXIO:  # a FIFO opened for writing elsewhere, or a socket
            raise InputFileError(f"{path}: not a regular file") from None
        raise InputFileError(f"{path}: cannot be opened ({err.strerror or err})") from None
    mode = os.fstat(fd).st_mode
    if not stat.S_ISREG(mode):
        os.close(fd)
        raise InputFileError(f"{path}: {_kind(mode)}, not a regular file")
    return fd


def file_size(path: str | Path) -> int:
    """The size in bytes of a regular file (``InputFileError`` for anything else)."""
    fd = _fd(Path(path))
    try:
        return os.fstat(fd).st_size
    finally:
        os.close(fd)


def read_bytes(
    path: str | Path, limit: int, what: str = "file", progress: Callable[[float], None] | None = None
) -> bytes:
    """At most ``limit`` bytes of a regular file; a larger file is refused with its size and the limit.

    With ``progress``, the file is read ``READ_CHUNK`` bytes at a time and ``progress`` is called after each
    with the fraction read (of the size the file had when opened); whatever it raises propagates (a cancel)."""
    p = Path(path)
    fd = _fd(p)
    try:
        size = os.fstat(fd).st_size
        if size > limit:
            raise InputFileError(f"{p.name}: too large for a {what} ({size:,} bytes; the limit is {limit:,})")
        os.set_blocking(fd, True)
        with os.fdopen(fd, "rb", closefd=False) as fh:
            data = fh.read(limit + 1) if progress is None else _read_chunks(fh, size, limit, progress)
    finally:
        os.close(fd)
    if len(data) > limit:  # grew while being read
        raise InputFileError(f"{p.name}: too large for a {what} (over {limit:,} bytes)")
    return data


def _read_chunks(fh: Any, size: int, limit: int, progress: Callable[[float], None]) -> bytes:
    """Up to ``limit + 1`` bytes of ``fh``, a chunk at a time, reporting the fraction of ``size`` read."""
    chunks: list[bytes] = []
    total = 0
    while total <= limit:
        chunk = fh.read(min(READ_CHUNK, limit + 1 - total))
        if not chunk:
            break
        chunks.append(chunk)
        total += len(chunk)
        progress(min(1.0, total / size) if size else 1.0)
    return b"".join(chunks)


def read_text(path: str | Path, limit: int, what: str = "file") -> str:
    """A regular file's UTF-8 text (a byte-order mark is dropped), at most ``limit`` bytes."""
    data = read_bytes(path, limit, what)
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as err:
        raise InputFileError(f"{Path(path).name}: not UTF-8 text (byte {err.start:,}: {err.reason})") from None


def read_header(path: str | Path, offset: int, length: int) -> bytes:
    """``length`` bytes at ``offset`` of a regular file (a safetensors header), exactly, or an error."""
    p = Path(path)
    fd = _fd(p)
    try:
        os.set_blocking(fd, True)
        data = os.pread(fd, length, offset)
    finally:
        os.close(fd)
    if len(data) != length:
        raise InputFileError(f"{p.name}: truncated ({len(data):,} of {length:,} bytes at offset {offset:,})")
    return data


#: Python's cap on the digits of an integer it converts from text (``sys.get_int_max_str_digits``, 3.11+)
MAX_INT_DIGITS = 4_300


class _Refused:
    """Stands in, while parsing, for a number JSON does not allow; the parse then names where it stood."""

    __slots__ = ("why",)

    def __init__(self, why: str) -> None:
        self.why = why


def _constant(name: str) -> _Refused:
    return _Refused(f"{name} is not a number JSON allows")


def _float(text: str) -> float | _Refused:
    value = float(text)
    if not math.isfinite(value):
        return _Refused(f"{text[:20]} overflows to infinity")
    return value


def _int(text: str) -> int | _Refused:
    digits = len(text.lstrip("-"))
    if digits > MAX_INT_DIGITS:
        return _Refused(f"a whole number of {digits:,} digits (at most {MAX_INT_DIGITS:,})")
    return int(text)


def depth(value: Any, limit: int = MAX_JSON_DEPTH) -> int:
    """How deeply ``value`` nests lists and dicts, counting up to ``limit + 1`` (iterative: no recursion)."""
    deepest = 0
    stack: list[tuple[Any, int]] = [(value, 1)]
    while stack:
        item, level = stack.pop()
        if isinstance(item, dict | list):
            deepest = max(deepest, level)
            if deepest > limit:
                return deepest
            children = item.values() if isinstance(item, dict) else item
            stack.extend((c, level + 1) for c in children if isinstance(c, dict | list))
    return deepest


def json_kind(value: Any) -> str:
    """What a parsed JSON value is, in JSON's words (``an array``), for messages."""
    if isinstance(value, bool):
        return "true or false"
    kinds = ((dict, "an object"), (list, "an array"), (str, "a string"), (int | float, "a number"))
    return next((word for kind, word in kinds if isinstance(value, kind)), "null")


def _first_refused(value: Any) -> tuple[str, _Refused] | None:
    """The dotted path (``text_config.hidden_size``, ``layers[3]``) of the first refused number, in file order."""
    stack: list[tuple[str, Any]] = [("", value)]
    while stack:
        path, item = stack.pop()
        if isinstance(item, _Refused):
            return path, item
        if isinstance(item, dict):
            stack.extend((f"{path}.{k}" if path else str(k), v) for k, v in reversed(item.items()))
        elif isinstance(item, list):
            stack.extend((f"{path}[{i}]", v) for i, v in reversed(list(enumerate(item))))
    return None


def loads_json(
    text: str | bytes,
    name: str,
    max_depth: int = MAX_JSON_DEPTH,
    object_hook: Callable[[dict[str, Any]], Any] | None = None,
    non_finite: bool = False,
) -> Any:
    """Parse JSON strictly: no NaN or Infinity, no number overflowing to infinity or longer than Python converts,
    at most ``max_depth`` levels.

    ``name`` (usually the file's name) starts every error message; a refused number is named by its field
    (``config.json: field 'hidden_size': NaN is not a number JSON allows``). ``object_hook`` (``json.loads``'s)
    is called with every object parsed and must return it; whatever it raises, other than ``ValueError``,
    propagates (a cancel). ``non_finite``: NaN and the infinities are floats, as ``json.loads`` makes them (module
    docstring).
    """
    on_constant: Callable[[str], Any] = float if non_finite else _constant
    on_float: Callable[[str], Any] = float if non_finite else _float
    try:
        value = json.loads(text, parse_constant=on_constant, parse_float=on_float, parse_int=_int,
                           object_hook=object_hook)
    except RecursionError:
        raise InputFileError(f"{name}: nested too deeply (more than {max_depth} levels)") from None
    except json.JSONDecodeError as err:
        raise InputFileError(f"{name}: not valid JSON (line {err.lineno}, column {err.colno}: {err.msg})") from None
    except UnicodeDecodeError as err:
        raise InputFileError(f"{name}: not UTF-8 text ({err.reason})") from None
    if depth(value, max_depth) > max_depth:
        raise InputFileError(f"{name}: nested too deeply (more than {max_depth} levels)")
    refused = _first_refused(value)
    if refused is not None:
        path, number = refused
        raise InputFileError(f"{name}: field {path!r}: {number.why}" if path else f"{name}: {number.why}")
    return value


def read_json(path: str | Path, limit: int, what: str = "file", max_depth: int = MAX_JSON_DEPTH,
              non_finite: bool = False) -> Any:
    """A regular file's JSON, read with :func:`read_text`'s and :func:`loads_json`'s limits."""
    return loads_json(read_text(path, limit, what), Path(path).name, max_depth, non_finite=non_finite)
