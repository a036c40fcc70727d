"""Each moment of a step's build shows the engine's numbers: products fill cell by cell, the mask sweeps in,
softmax normalises row by row."""

from __future__ import annotations

import numpy as np
import pytest

from engine.attention import StepKey, attention_steps
from gui.widgets.attention_frames import build_ms, frame, units

STEPS = attention_steps()
BY_KEY = {s.key: s for s in STEPS}


def test_whole_steps_show_the_engine_matrix_unmarked() -> None:
    for step in STEPS:
        result = frame(STEPS, step.index, 1.0).panels[-1]
        np.testing.assert_array_equal(result.values, step.matrix)
        assert result.shown is None or result.shown.all()
        assert result.mark is None


def test_product_fills_cell_by_cell() -> None:
    q = BY_KEY[StepKey.Q]
    start = frame(STEPS, q.index, 0.0)
    assert [p.title for p in start.panels] == ["X", "Wq", "Q"]
    assert start.operators == ("×", "=")
    assert start.panels[2].shown is not None
    assert not start.panels[2].shown.any()
    assert start.panels[0].mark == ((0, 1), None)  # row 0 of X ...
    assert start.panels[1].mark == (None, (0, 1))  # ... times column 0 of Wq
    mid = frame(STEPS, q.index, 5.5 / units(q))  # 5 cells done: the 6th is row 1, column 1
    assert mid.panels[2].shown is not None
    assert int(mid.panels[2].shown.sum()) == 5
    assert mid.panels[2].mark == ((1, 2), (1, 2))


def test_scores_multiply_q_by_k_transposed() -> None:
    panels = frame(STEPS, BY_KEY[StepKey.SCORES].index, 0.5).panels
    assert [p.title for p in panels][:2] == ["Q", "Kᵀ"]
    np.testing.assert_array_equal(panels[1].values, BY_KEY[StepKey.K].matrix.T)
    assert panels[1].cols == BY_KEY[StepKey.K].row_labels


def test_mask_sweeps_over_the_upper_triangle() -> None:
    masked, scores = BY_KEY[StepKey.MASKED], BY_KEY[StepKey.SCORES]
    n_upper = 15
    assert units(masked) == n_upper
    shown = frame(STEPS, masked.index, 3.5 / n_upper).panels[1].values
    assert np.isneginf(shown[0, 1:4]).all()  # first three upper cells swept
    assert shown[0, 4] == scores.matrix[0, 4]  # the rest still the scores


@pytest.mark.parametrize("rows_done", [0, 2, 6])
def test_softmax_normalises_row_by_row(rows_done: int) -> None:
    p, masked = BY_KEY[StepKey.SOFTMAX], BY_KEY[StepKey.MASKED]
    right = frame(STEPS, p.index, min(1.0, (rows_done + 0.5) / 6)).panels[1].values
    np.testing.assert_array_equal(right[:rows_done], p.matrix[:rows_done])
    np.testing.assert_array_equal(right[rows_done:], masked.matrix[rows_done:])


def test_build_times_are_positive() -> None:
    assert all(build_ms(s) >= 600 for s in STEPS)


def test_softmax_colours_each_row_on_its_own_scale() -> None:
    p = BY_KEY[StepKey.SOFTMAX]
    assert frame(STEPS, p.index, 0.5).panels[1].by_row
    assert not frame(STEPS, BY_KEY[StepKey.OUTPUT].index, 1.0).panels[0].by_row
