"""gui.state.ranges: every window the GUI offers lies inside the engine's bound of its field."""

from __future__ import annotations

import pytest

from engine.training.advisor import ROADMAP_GPU_LIMIT
from gui.state import ranges


@pytest.mark.parametrize(("window", "field"), ranges.WINDOWS, ids=[f for _, f in ranges.WINDOWS])
def test_the_engine_accepts_both_ends(window: tuple[float, float], field: str) -> None:
    ranges.check(window, field)


@pytest.mark.parametrize(("window", "field", "message"), [
    ((0, 10), "engine.specs:TrainingSetup.seq_len", "TrainingSetup.seq_len: Input should be greater than or equal"),
    ((1, 10_000), "engine.specs:LoraSpec.rank", "LoraSpec.rank: Input should be less than or equal to 4096"),
    ((0.0, 1.0), "engine.alignment:AlignmentOptions.rollout_share", "rollout_share: Input should be less than 1"),
    ((8, 2), "engine.serving:ServingSetup.tp", "ServingSetup.tp: 8 is not below 2"),
])
def test_a_window_outside_the_engine_is_refused_by_name(window: tuple[float, float], field: str,
                                                        message: str) -> None:
    with pytest.raises(ValueError, match=message):
        ranges.check(window, field)


def test_every_window_is_declared() -> None:
    declared = {name: value for name, value in vars(ranges).items() if name.isupper() and isinstance(value, tuple)}
    assert sorted(declared.values()) == sorted(w for w, _ in ranges.WINDOWS)


def test_the_gpu_slider_reaches_the_roadmaps_largest_proposal() -> None:
    assert ranges.GPUS[1] == ROADMAP_GPU_LIMIT
