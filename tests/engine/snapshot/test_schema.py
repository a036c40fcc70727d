"""engine.snapshot.schema (and the replay's field checks): a malformed snapshot gets one line naming the field."""

from __future__ import annotations

from typing import Any

import pytest

from engine.snapshot import SnapshotError, analyse
from engine.snapshot.schema import devices

ALLOC: dict[str, Any] = {"action": "alloc", "addr": 4096, "size": 512, "stream": 0, "frames": []}
FREE: dict[str, Any] = {"action": "free_completed", "addr": 4096, "size": 512, "stream": 0, "frames": []}
SEG: dict[str, Any] = {"device": 0, "address": 4096, "total_size": 512, "stream": 0,
                       "blocks": [{"size": 512, "requested_size": 512, "state": "inactive", "frames": []}]}


def _with(path: str, value: Any, base: dict[str, Any] | None = None) -> dict[str, Any]:
    """A valid snapshot with the field at ``path`` ("device_traces.0.1.size") replaced (or removed: ...)."""
    s: dict[str, Any] = base or {"segments": [dict(SEG, blocks=[dict(SEG["blocks"][0])])],
                                 "device_traces": [[dict(ALLOC), dict(FREE)]]}
    *parents, last = path.split(".")
    node: Any = s
    for p in parents:
        node = node[int(p)] if isinstance(node, list) else node[p]
    key: Any = int(last) if isinstance(node, list) else last
    if value is ...:
        del node[key]
    else:
        node[key] = value
    return s


@pytest.mark.parametrize(
    ("path", "value", "message"),
    [
        ("segments", ..., "segments: missing (is this a torch.cuda.memory._snapshot() dump?)"),
        ("device_traces", {}, "device_traces: expected a list, found dict"),
        ("device_traces.0", "x", "device_traces[0]: expected a list of events, found str"),
        ("device_traces.0.1", 7, "device_traces[0][1]: expected an event (a dict), found int"),
        ("device_traces.0.0.action", ..., "device_traces[0][0].action: missing"),
        ("device_traces.0.0.action", 3, "device_traces[0][0].action: expected a string"),
        ("device_traces.0.0.size", ..., "device_traces[0][0].size: missing"),
        ("device_traces.0.0.size", 512.0, "device_traces[0][0].size: expected an integer, found float"),
        ("device_traces.0.0.addr", True, "device_traces[0][0].addr: expected an integer, found bool"),
        ("device_traces.0.1.addr", "0x1000", "device_traces[0][1].addr: expected an integer, found str"),
        ("segments.0", [], "segments[0]: expected a segment (a dict), found list"),
        ("segments.0.device", "0", "segments[0].device: expected an integer, found str"),
        ("segments.0.address", ..., "segments[0].address: missing"),
        ("segments.0.total_size", None, "segments[0].total_size: expected an integer, found NoneType"),
        ("segments.0.blocks", ..., "segments[0].blocks: missing"),
        ("segments.0.blocks.0.size", -0.5, "segments[0].blocks[0].size: expected an integer, found float"),
    ],
)
def test_one_line_naming_the_field(path: str, value: Any, message: str) -> None:
    with pytest.raises(SnapshotError) as info:
        analyse(_with(path, value), "snap.pickle")
    assert str(info.value) == f"snap.pickle: {message}"


def test_an_active_block_needs_its_requested_size() -> None:
    s = _with("segments.0.blocks.0.state", "active_allocated")
    del s["segments"][0]["blocks"][0]["requested_size"]
    s["device_traces"][0] = []
    with pytest.raises(SnapshotError, match=r"^s: segments\[0\]\.blocks\[0\]\.requested_size: missing$"):
        analyse(s, "s")


def test_a_merged_free_names_the_completion_at_fault() -> None:
    s = {"segments": [], "device_traces": [[dict(ALLOC), dict(FREE, action="free_requested"),
                                            {"action": "free_completed", "size": 512}]]}
    with pytest.raises(SnapshotError, match=r"^s: device_traces\[0\]\[2\]\.addr: missing$"):
        analyse(s, "s")


def test_not_a_snapshot_and_empty_snapshots() -> None:
    with pytest.raises(SnapshotError, match=r"^s: expected a snapshot .* found list$"):
        analyse([], "s")
    with pytest.raises(SnapshotError, match="nothing was recorded"):
        analyse({"segments": [], "device_traces": [[], []]}, "s")
    with pytest.raises(SnapshotError, match=r"^s: device 3 has no events or segments \(devices: \[0\]\)$"):
        analyse(_with("segments.0.device", 0), "s", device=3)


def test_devices_are_those_memory_viz_offers() -> None:
    s = {"segments": [dict(SEG, device=2)], "device_traces": [[dict(ALLOC)], [], [], [dict(ALLOC)]]}
    assert devices(s) == [0, 2, 3]
    assert analyse(s, "s").device == 0


def test_legacy_blocks_take_memory_viz_fallbacks() -> None:
    def report(block: dict[str, Any]) -> int:
        seg = {"device": 0, "address": 4096, "total_size": 512, "blocks": [block]}
        return analyse({"segments": [seg], "device_traces": [[]]}, "s").peak_allocated_bytes

    active = {"size": 512, "state": "active_allocated"}
    assert report(dict(active, history=[{"real_size": 100}])) == 100
    assert report(dict(active, requested_size=300, history=[{"real_size": 100}])) == 300
    assert report(active) == 512
    with pytest.raises(SnapshotError, match=r"^s: segments\[0\]\.blocks\[0\]\.history\[0\]\.real_size: expected an"):
        report(dict(active, history=[{"real_size": "100"}]))
    with pytest.raises(SnapshotError, match=r"^s: segments\[0\]\.blocks\[0\]\.requested_size: expected an integer"):
        report(dict(active, requested_size="x"))


@pytest.mark.parametrize("path", ["device_traces.0.0.size", "segments.0.total_size", "segments.0.blocks.0.size"])
def test_impossible_sizes_are_refused(path: str) -> None:
    with pytest.raises(SnapshotError, match=r"is not a possible size in bytes$"):
        analyse(_with(path, 2**70), "s")
