"""Any damage to a snapshot gives a report or one ``SnapshotError`` naming the file: never another exception."""

from __future__ import annotations

import copy
import json
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from engine.snapshot import SnapshotError, analyse
from tools.snapshot_fixtures import StepShape, training

BASE = json.loads(json.dumps(training(StepShape(layers=2), stacks="all").snapshot()))
BASE["segments"][0]["blocks"].append({"size": 512, "state": "active_allocated", "history": [{"real_size": 100}]})

values = st.recursive(st.none() | st.booleans() | st.integers(-(2**70), 2**70) | st.floats(allow_nan=False)
                      | st.text(max_size=5), lambda inner: st.lists(inner, max_size=3)
                      | st.dictionaries(st.text(max_size=8), inner, max_size=3), max_leaves=5)


def _paths(node: Any, prefix: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    out = [prefix]
    if isinstance(node, dict):
        for k, v in node.items():
            out += _paths(v, (*prefix, k))
    elif isinstance(node, list):
        for i, v in enumerate(node[:4]):
            out += _paths(v, (*prefix, i))
    return out


PATHS = _paths(BASE)[1:]


@settings(max_examples=400, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(PATHS), values, st.booleans()), min_size=1, max_size=3))
def test_damaged_snapshots_never_raise_anything_else(damage: list[tuple[tuple[Any, ...], Any, bool]]) -> None:
    snap = copy.deepcopy(BASE)
    for path, value, delete in damage:
        node: Any = snap
        try:
            for key in path[:-1]:
                node = node[key]
            if delete and isinstance(node, dict):
                node.pop(path[-1], None)
            else:
                node[path[-1]] = value
        except (KeyError, IndexError, TypeError):
            continue
    message = ""
    try:
        json.dumps(analyse(snap, "s.json").to_json())
    except SnapshotError as err:
        message = str(err)
    if message:
        assert message.startswith("s.json: ")
        assert "\n" not in message
