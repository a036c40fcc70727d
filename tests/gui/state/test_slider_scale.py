"""gui.state.slider_scale: ranges read from the engine, log and power-of-two mappings that round-trip."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from engine.specs import LoraSpec, field_bounds
from gui.state.ranges import BATCH as UI_BATCH
from gui.state.ranges import LORA_RANK as UI_LORA_RANK
from gui.state.ranges import SEQ_LEN as UI_SEQ_LEN
from gui.state.slider_scale import ScaleKind, SliderScale, owner_of


def test_bounds_come_from_the_engine_narrowed_by_the_ui_range() -> None:
    scale = SliderScale.for_field("seq_len", ScaleKind.POW2, UI_SEQ_LEN)
    assert (scale.lo, scale.hi) == UI_SEQ_LEN
    rank = SliderScale.for_field("lora.rank", ScaleKind.LOG, ui=(0, 10**9))
    assert (rank.lo, rank.hi) == field_bounds(LoraSpec, "rank")


def test_pow2_positions_are_exponents() -> None:
    scale = SliderScale.for_field("seq_len", ScaleKind.POW2, UI_SEQ_LEN)
    assert scale.positions == 10
    assert [scale.to_value(p) for p in (0, 1, 10)] == [128, 256, 131_072]
    assert scale.to_position(4096) == 5


def test_linear_integer_scale_has_one_position_per_value() -> None:
    scale = SliderScale.for_field("batch", ScaleKind.LINEAR, UI_BATCH)
    assert scale.positions == UI_BATCH[1] - UI_BATCH[0]
    assert scale.to_value(0) == 1
    assert scale.to_position(128) == scale.positions


def test_values_clamp_to_the_range() -> None:
    scale = SliderScale(1, 512, ScaleKind.LOG)
    assert scale.to_position(10**6) == scale.positions
    assert scale.to_position(0.5) == 0
    assert scale.to_value(-5) == 1


@given(st.integers(min_value=UI_LORA_RANK[0], max_value=UI_LORA_RANK[1]))
def test_log_scale_maps_every_value_near_itself(value: int) -> None:
    scale = SliderScale(*UI_LORA_RANK, ScaleKind.LOG)
    assert abs(scale.to_value(scale.to_position(value)) - value) <= max(1, value * 0.01)


def test_half_open_field_needs_a_ui_range() -> None:
    with pytest.raises(ValueError, match="unbounded"):
        SliderScale.for_field("lora.alpha", ScaleKind.LOG)  # gt=0: no inclusive lower bound
    alpha = SliderScale.for_field("lora.alpha", ScaleKind.LOG, ui=(1, 256))
    assert (alpha.lo, alpha.hi, alpha.integer) == (1, 256, False)


def test_owner_of_resolves_dotted_paths() -> None:
    assert owner_of("lora.rank") == (LoraSpec, "rank")
    with pytest.raises(ValueError, match="nope"):
        owner_of("nope")
