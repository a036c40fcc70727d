"""gui.widgets.heat_colors: a scale symmetric about zero, masked and hidden cells, readable ink."""

from __future__ import annotations

import numpy as np

from gui.look.palette import DARK, LIGHT
from gui.widgets.heat_colors import cell_rgba, heat_colors, ink_for

HC = heat_colors(LIGHT)


def _hex(rgba: np.ndarray) -> str:
    return "#" + "".join(f"{int(v):02x}" for v in rgba[:3])


def test_ends_neutral_masked_and_hidden() -> None:
    values = np.array([[2.0, -2.0, 0.0, -np.inf]])
    shown = np.array([[True, True, True, True]])
    rgba = cell_rgba(values, shown, HC)
    assert [_hex(c) for c in rgba[0]] == [HC.positive, HC.negative, HC.neutral, HC.masked]
    hidden = cell_rgba(values, np.zeros_like(shown), HC)
    assert {_hex(c) for c in hidden[0]} == {HC.hidden}
    assert (rgba[..., 3] == 255).all()


def test_by_row_scales_each_row_to_its_own_maximum() -> None:
    values = np.array([[1.0, 0.5], [10.0, 5.0]])
    shown = np.ones_like(values, dtype=bool)
    by_row = cell_rgba(values, shown, HC, by_row=True)
    assert (by_row[0] == by_row[1]).all()
    whole = cell_rgba(values, shown, HC)
    assert not (whole[0] == whole[1]).all()


def test_ink_reads_on_its_cell() -> None:
    rgba = cell_rgba(np.array([[0.0, -1.0]]), np.ones((1, 2), dtype=bool), HC)
    assert ink_for(rgba, "#000000", "#ffffff")[0][1] == "#ffffff"  # deep blue: light ink
    light = cell_rgba(np.array([[0.0]]), np.ones((1, 1), dtype=bool), HC)
    assert ink_for(light, "#000000", "#ffffff") == [["#000000"]]
    assert heat_colors(DARK) != HC
