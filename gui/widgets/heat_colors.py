"""Colours of a heat map's cells: a diverging map (negative blue, zero neutral, positive orange-red), a distinct
grey for masked (−∞) cells and the background for cells not computed yet.

Hues after ColorBrewer's RdBu ends (Brewer 2003), readable by the common colour-vision deficiencies; the
neutral middle is the chart background so that zero fades into the page in both themes. This maps numbers
the engine computed to colours; it computes no number shown on screen.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from gui.look.palette import Colors

RGBA = npt.NDArray[np.uint8]


@dataclass(frozen=True, slots=True)
class HeatColors:
    """One theme's heat-map colours, as ``#rrggbb``."""

    negative: str
    neutral: str
    positive: str
    masked: str
    hidden: str


def heat_colors(c: Colors) -> HeatColors:
    """The heat-map colours matching a palette's ``Colors`` (light or dark)."""
    if c.dark:
        return HeatColors("#4d94d6", c.background, "#e8704a", "#454b57", c.background)
    return HeatColors("#2166ac", c.background, "#c0392b", "#c9ced6", c.background)


def _rgb(hex_code: str) -> npt.NDArray[np.float64]:
    return np.array([int(hex_code[i : i + 2], 16) for i in (1, 3, 5)], dtype=np.float64)


def cell_rgba(
    values: npt.NDArray[np.float64], shown: npt.NDArray[np.bool_], hc: HeatColors, by_row: bool = False
) -> RGBA:
    """An ``rows x cols x 4`` image: each shown cell coloured by its value on a scale symmetric about zero,
    the same for the whole matrix or, ``by_row``, one per row (for rows that are each a distribution)."""
    finite = np.isfinite(values)
    magnitude = np.where(finite, np.abs(values), 0.0)
    scale = magnitude.max(axis=1, keepdims=True) if by_row else np.full((1, 1), magnitude.max(initial=0.0))
    t = np.where(finite, values, 0.0) / np.where(scale == 0, 1.0, scale)
    neutral, end_pos, end_neg = _rgb(hc.neutral), _rgb(hc.positive), _rgb(hc.negative)
    ends = np.where((t >= 0)[..., None], end_pos, end_neg)
    rgb = neutral + np.abs(t)[..., None] * (ends - neutral)
    rgb = np.where((~finite)[..., None], _rgb(hc.masked), rgb)
    rgb = np.where((~shown)[..., None], _rgb(hc.hidden), rgb)
    alpha = np.full((*values.shape, 1), 255.0)
    return np.round(np.concatenate([rgb, alpha], axis=-1)).astype(np.uint8)


def ink_for(rgba: RGBA, dark_ink: str, light_ink: str) -> list[list[str]]:
    """For each cell, the ink that reads on it: dark on light cells, light on dark ones (relative luminance)."""
    lum = rgba[..., :3].astype(np.float64) @ np.array([0.2126, 0.7152, 0.0722]) / 255.0
    return [[dark_ink if v > 0.5 else light_ink for v in row] for row in lum]
