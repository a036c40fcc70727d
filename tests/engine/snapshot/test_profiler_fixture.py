"""A snapshot that PyTorch itself made on a CPU machine (calibration/profiler_snapshot.py: torch.profiler's
memory timeline of two tiny-llama training steps through torch.cuda._memory_viz._profile_to_snapshot).

It checks the reader and the replay on a file PyTorch wrote, not on this project's generator. Its phases and
terms are not checked: that converter gives every version of a tensor its *first* allocation's frames and turns
each in-place update (the optimizer's parameter writes) into a free and an alloc, so its frames do not say
where each event happened, as the allocator's do.
"""

from __future__ import annotations

from pathlib import Path

from engine.snapshot import read_report
from engine.snapshot.load import read_snapshot_file
from engine.snapshot.replay import replay
from tests.engine.snapshot.memory_viz_port import process_alloc_data

FIXTURE = Path(__file__).parent / "data" / "profiler_tiny_llama.pickle.gz"


def test_pytorch_made_snapshot_replays_as_memory_viz_does() -> None:
    snap = read_snapshot_file(FIXTURE)
    assert sum(len(t) for t in snap["device_traces"]) == 3225
    max_at_time, _ = process_alloc_data(snap, 0)
    assert replay(snap, 0).peak_allocated[0] == max(max_at_time) == 4_107_644


def test_its_profiler_frames_are_read() -> None:
    r = read_report(FIXTURE)
    assert r.stacks == "python"
    assert r.timeline[1]["phase"] == "forward"  # "torch/nn/modules/module.py(1782): _call_impl"
    assert sum(r.by_term.values()) == r.peak_allocated_bytes
