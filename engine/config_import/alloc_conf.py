"""``PYTORCH_CUDA_ALLOC_CONF`` where a training config states it (issue 26), for every tool's files alike.

PyTorch reads the variable at start-up (``CUDAAllocatorConfig::instance``: ``PYTORCH_CUDA_ALLOC_CONF``, else
``PYTORCH_ALLOC_CONF``), so configs carry it beside the training settings: as a key of an environment section
(a launcher's ``env:``/``envs:``, or at the top), or in the launch command a file's comments give
(``PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True tune run ...``). The value is parsed as PyTorch parses it
(``engine.allocator.conf``); one PyTorch would refuse, or the engine cannot cost, refuses the import unless
``--alloc-conf`` is given.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from typing import Any

from engine.allocator.conf import AllocConfError, parse
from engine.config_import.draft import Draft, Field
from engine.config_import.loading import UNREADABLE
from engine.config_import.report import Message

NAMES = ("PYTORCH_CUDA_ALLOC_CONF", "PYTORCH_ALLOC_CONF")  # the first one PyTorch reads wins
_ASSIGNED = re.compile(r"\b(PYTORCH_(?:CUDA_)?ALLOC_CONF)=(\"[^\"\n]*\"|'[^'\n]*'|[^\s;&|]+)")


def _keys(data: Mapping[str, Any], prefix: str = "", depth: int = 0) -> Iterator[str]:
    for k, v in data.items():
        key = f"{prefix}{k}"
        if k in NAMES:
            yield key
        elif isinstance(v, Mapping) and depth < 3:
            yield from _keys(v, key + ".", depth + 1)


def _parsed(d: Draft, where: str, text: str, *, key: bool) -> None:
    """Record the parsed value (``key``: ``where`` is a key of the file, else a name in its text)."""
    try:
        conf = parse(text)
    except AllocConfError as err:
        d.refuse(Field.ALLOC_CONF, where, Message.of(UNREADABLE, problem=str(err)))
        return
    if key:
        d.set(Field.ALLOC_CONF, conf, where)
    else:
        d.set_from_text(Field.ALLOC_CONF, conf, where, text)


def map_alloc_conf(d: Draft, text: str) -> None:
    """The allocator settings ``d``'s file states, as a key or in its text (module docstring)."""
    keys = sorted(_keys(d.data), key=lambda k: NAMES.index(k.rsplit(".", 1)[-1]))
    if keys:
        value = d.get(keys[0])
        if isinstance(value, str):
            _parsed(d, keys[0], value, key=True)
        return
    found = {m.group(1): m.group(2).strip("\"'") for m in _ASSIGNED.finditer(text)}
    name = next((n for n in NAMES if n in found), None)
    if name is not None:
        _parsed(d, name, found[name], key=False)
