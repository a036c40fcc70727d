"""Reading a ``PYTORCH_CUDA_ALLOC_CONF`` string the way PyTorch does, into an ``engine.specs.AllocConf``.

The grammar is PyTorch's (``ConfigTokenizer`` and ``AcceleratorAllocatorConfig::parseArgs`` in torch 2.13.0's
``c10/core/AllocatorConfig.h``/``.cpp``, with ``CUDAAllocatorConfig::parseArgs`` for the CUDA-only keys): comma-
separated ``key:value`` pairs, a list value in brackets (``roundup_power2_divisions:[64:8,256:4,>:1]``), spaces
ignored, a later key overriding an earlier one, booleans spelled ``True`` or ``False``. Keys:

* read, because they change what the allocator reserves: ``expandable_segments``, ``max_split_size_mb``,
  ``max_non_split_rounding_mb``, ``garbage_collection_threshold``, ``roundup_power2_divisions``,
  ``per_process_memory_fraction``;
* accepted and left out, because they change nothing on the device (host pinned memory, locking, CUDA graphs'
  reuse, when an OOM is raised): ``backend:native``, ``release_lock_on_cudamalloc``, ``pinned_*``,
  ``graph_capture_record_stream_reuse``, ``throw_on_cudamalloc_oom``;
* refused by name: ``backend:cudaMallocAsync`` (CUDA's own stream-ordered allocator, another model) and
  ``large_segment_size_mb`` (not modelled); any other key, as PyTorch refuses it ("Unrecognized ... option").

A bad string raises ``AllocConfError``: one line naming the option.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from pydantic import ValidationError

from engine.allocator.rules import MIB, POWER2_INTERVALS, UNLIMITED, Settings
from engine.errors import one_line
from engine.specs import AllocConf

#: keys that change nothing the engine costs on the device (module docstring); their values are checked as PyTorch
#: checks them: a boolean, or a whole number
_IGNORED_BOOLEANS = frozenset({
    "release_lock_on_cudamalloc", "release_lock_on_hipmalloc", "pinned_use_cuda_host_register",
    "pinned_use_hip_host_register", "pinned_use_background_threads", "graph_capture_record_stream_reuse",
    "pinned_free_catch_all", "throw_on_cudamalloc_oom",
})
_IGNORED_NUMBERS = frozenset({"pinned_num_register_threads", "pinned_reserve_segment_size_mb"})
_REFUSED = {
    "large_segment_size_mb": "changes the 20 MiB segments of 1-10 MiB requests, which the engine does not model",
}


class AllocConfError(ValueError):
    """A ``PYTORCH_CUDA_ALLOC_CONF`` string that PyTorch would refuse, or that the engine cannot cost."""


def _tokens(text: str) -> list[str]:
    """``ConfigTokenizer``: keys and values, with ``,`` ``:`` ``[`` ``]`` as tokens of their own; spaces dropped."""
    return [t for t in re.split(r"([,:\[\]])", "".join(text.split())) if t]


class _Reader:
    def __init__(self, text: str) -> None:
        self.toks = _tokens(text)
        self.i = 0

    def take(self, what: str) -> str:
        if self.i >= len(self.toks):
            raise AllocConfError(f"{what}: missing at the end")
        tok = self.toks[self.i]
        self.i += 1
        return tok

    def expect(self, key: str, tok: str) -> None:
        got = self.take(key)
        if got != tok:
            raise AllocConfError(f"{key}: expected '{tok}', found '{got}'")

    def value(self, key: str) -> str:
        self.expect(key, ":")
        v = self.take(key)
        if v in ",:]":
            raise AllocConfError(f"{key}: a value is missing")
        return v


def _whole(key: str, v: str) -> int:
    if not v.isdigit():
        raise AllocConfError(f"{key}: expected a whole number, found '{v}'")
    return int(v)


def _boolean(key: str, v: str) -> bool:
    if v not in ("True", "False"):
        raise AllocConfError(f"{key}: expected True or False, found '{v}'")
    return v == "True"


def _fraction(key: str, v: str, hi_open: bool) -> float:
    try:
        f = float(v)
    except ValueError:
        raise AllocConfError(f"{key}: expected a number, found '{v}'") from None
    if not (0.0 < f < 1.0 or (not hi_open and f == 1.0)):
        raise AllocConfError(f"{key}: {v} is outside (0.0, 1.0{')' if hi_open else ']'}")
    return f


def _power_of_two(key: str, v: int) -> int:
    if v & (v - 1):
        raise AllocConfError(f"{key}: the divisions have to be a power of 2 (or 0), found {v}")
    return v


def _divisions(r: _Reader, key: str) -> tuple[int, ...]:
    """``parseRoundUpPower2Divisions``: one number for every interval, or ``[MB:divisions, ..., >:divisions]``
    (intervals before the first given take its value; ``>`` sets those after the last given; others stay 0;
    as torch 2.13's ``AllocatorConfig_test.cpp`` expects)."""
    r.expect(key, ":")
    first = r.take(key)
    if first != "[":
        return (_power_of_two(key, _whole(key, first)),) * POWER2_INTERVALS
    out = [0] * POWER2_INTERVALS
    last = -1
    while True:
        tok = r.take(key)
        if tok == "]":
            return tuple(out)
        if tok == ",":
            continue
        val = _power_of_two(key, _whole(key, r.value(key)))
        if tok == ">":
            out[last + 1:] = [val] * (POWER2_INTERVALS - last - 1)
            continue
        mb = _whole(key, tok)
        if mb == 0 or mb & (mb - 1):
            raise AllocConfError(f"{key}: the intervals have to be a power of 2 (in MB), found {tok}")
        index = min(mb.bit_length() - 1, POWER2_INTERVALS - 1)
        if last < 0:
            out[:index] = [val] * index
        out[index] = val
        last = index


def _megabytes(r: _Reader, key: str) -> int:
    mb = _whole(key, r.value(key))
    if mb < 20:
        raise AllocConfError(f"{key}: {mb} is too small, must be >= 20 (kLargeBuffer, 20 MiB)")
    return mb


def _backend(r: _Reader, key: str) -> None:
    v = r.value(key)
    if v == "cudaMallocAsync":
        raise AllocConfError("backend: cudaMallocAsync hands memory to CUDA's own stream-ordered allocator, which "
                             "the engine does not model (use backend:native)")
    if v != "native":
        raise AllocConfError(f"backend: unknown allocator backend '{v}' (native or cudaMallocAsync)")


#: the keys the engine reads, each with its value's reader
_READ: dict[str, Callable[[_Reader, str], object]] = {
    "expandable_segments": lambda r, k: _boolean(k, r.value(k)),
    "max_split_size_mb": _megabytes,
    "max_non_split_rounding_mb": _megabytes,
    "garbage_collection_threshold": lambda r, k: _fraction(k, r.value(k), hi_open=True),
    "per_process_memory_fraction": lambda r, k: _fraction(k, r.value(k), hi_open=False),
    "roundup_power2_divisions": _divisions,
}


def _skip(r: _Reader, key: str) -> None:
    """An option that changes nothing on the device (its value checked), or one refused by name."""
    if key == "backend":
        _backend(r, key)
    elif key in _IGNORED_BOOLEANS:
        _boolean(key, r.value(key))
    elif key in _IGNORED_NUMBERS:
        _whole(key, r.value(key))
    elif key in _REFUSED:
        raise AllocConfError(f"{key}: {_REFUSED[key]}")
    else:
        raise AllocConfError(f"{key}: unrecognized option (known: {', '.join((*_READ, 'backend'))})")


def parse(text: str) -> AllocConf:
    """The ``AllocConf`` a ``PYTORCH_CUDA_ALLOC_CONF`` string sets (module docstring); ``AllocConfError`` names the
    first option at fault."""
    r = _Reader(text)
    got: dict[str, object] = {}
    while r.i < len(r.toks):
        key = r.take("option")
        if key in _READ:
            got[key] = _READ[key](r, key)
        else:
            _skip(r, key)
        if r.i < len(r.toks):
            r.expect(key, ",")
    try:
        return AllocConf.model_validate(got)
    except ValidationError as err:
        raise AllocConfError(one_line(err)) from None


def to_text(conf: AllocConf) -> str:
    """The ``PYTORCH_CUDA_ALLOC_CONF`` string of ``conf`` (its options away from PyTorch's defaults, in a fixed
    order); ``parse(to_text(c)) == c``."""
    parts = []
    if conf.expandable_segments:
        parts.append("expandable_segments:True")
    for key in ("max_split_size_mb", "max_non_split_rounding_mb", "garbage_collection_threshold",
                "per_process_memory_fraction"):
        v = getattr(conf, key)
        if v is not None:
            parts.append(f"{key}:{v}")
    d = conf.roundup_power2_divisions
    if d:
        same = len(set(d)) == 1
        parts.append("roundup_power2_divisions:" + (
            str(d[0]) if same else "[" + ",".join(f"{1 << i}:{v}" for i, v in enumerate(d)) + "]"))
    return ",".join(parts)


def settings(conf: AllocConf) -> Settings:
    """The allocator model's settings (bytes) for ``conf``."""
    return Settings(
        expandable_segments=conf.expandable_segments,
        max_split_size=conf.max_split_size_mb * MIB if conf.max_split_size_mb is not None else UNLIMITED,
        max_non_split_rounding_size=(conf.max_non_split_rounding_mb or 20) * MIB,
        garbage_collection_threshold=conf.garbage_collection_threshold or 0.0,
        roundup_power2_divisions=conf.roundup_power2_divisions,
        memory_fraction=conf.per_process_memory_fraction,
    )
