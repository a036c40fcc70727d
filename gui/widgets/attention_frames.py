"""What the attention stage shows at each moment of a step's build, as plain data (no widgets).

A frame is a row of panels (matrices with the cells shown so far and the row or column being worked on)
joined by operators. Products fill cell by cell while the operands' row and column light up; the mask sweeps
over the cells above the diagonal; softmax turns the scores into probabilities one row at a time. Every
number comes from the engine's steps: frames only choose which of them to show.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace

import numpy as np
import numpy.typing as npt

from engine.attention import AttentionStep, StepKey
from gui.text.tr import QT_TRANSLATE_NOOP

Span = tuple[int, int] | None
Matrix = npt.NDArray[np.float64]

_PRODUCTS = {StepKey.Q: "Wq", StepKey.K: "Wk", StepKey.V: "Wv"}
# panel titles: symbols, and one phrase for translators (the stage translates in context "AttentionStage")
_TITLES = {
    StepKey.SCORES: "S = QKᵀ/√d",
    StepKey.MASKED: QT_TRANSLATE_NOOP("AttentionStage", "S masked"),
    StepKey.SOFTMAX: "P",
    StepKey.OUTPUT: "O",
}
MS_PER_UNIT = {StepKey.X: 250, StepKey.MASKED: 120, StepKey.SOFTMAX: 450}  # others: 110 per product cell


@dataclass(frozen=True)
class Panel:
    title: str
    values: Matrix
    rows: tuple[str, ...]
    cols: tuple[str, ...]
    shown: npt.NDArray[np.bool_] | None = None  # None: every cell
    mark: tuple[Span, Span] | None = None  # rows [r0, r1) x cols [c0, c1) outlined; None spans all
    by_row: bool = False  # colours scaled row by row (softmax: each row its own distribution)


@dataclass(frozen=True)
class Frame:
    panels: tuple[Panel, ...]
    operators: tuple[str, ...]  # one between each pair of panels


def _title(step: AttentionStep) -> str:
    return _TITLES.get(step.key, step.key.value.upper())


def _whole(step: AttentionStep) -> Panel:
    return Panel(_title(step), step.matrix, step.row_labels, step.col_labels)


def units(step: AttentionStep) -> int:
    """How many pieces a step builds in: rows, product cells or masked cells."""
    n = int(step.matrix.shape[0])
    if step.key in (StepKey.X, StepKey.SOFTMAX):
        return n
    if step.key is StepKey.MASKED:
        return max(1, n * (n - 1) // 2)
    return int(step.matrix.size)


def build_ms(step: AttentionStep) -> int:
    """Build time at speed 1."""
    return max(600, units(step) * MS_PER_UNIT.get(step.key, 110))


def frame(steps: tuple[AttentionStep, ...], index: int, progress: float) -> Frame:
    """The picture of step ``index`` when ``progress`` (0 to 1) of it is built."""
    step = steps[index]
    done = units(step) if progress >= 1.0 else math.floor(progress * units(step))
    by_key = {s.key: s for s in steps}
    if step.key is StepKey.X:
        return _rows_frame(step, done)
    if step.key is StepKey.MASKED:
        return _mask_frame(by_key[StepKey.SCORES], step, done)
    if step.key is StepKey.SOFTMAX:
        return _softmax_frame(by_key[StepKey.MASKED], step, done)
    left, right = (by_key[k] for k in step.operands) if len(step.operands) == 2 else (by_key[StepKey.X], None)
    return _product_frame(step, left, right, done)


def _rows_frame(step: AttentionStep, done: int) -> Frame:
    shown = np.broadcast_to(np.arange(step.matrix.shape[0])[:, None] < done, step.matrix.shape)
    mark = ((done, done + 1), None) if done < step.matrix.shape[0] else None
    return Frame((Panel(_title(step), step.matrix, step.row_labels, step.col_labels, shown, mark),), ())


def _product_frame(step: AttentionStep, left: AttentionStep, right: AttentionStep | None, done: int) -> Frame:
    n_rows, n_cols = step.matrix.shape
    if right is None:  # Q, K, V: X times a learned weight
        assert step.weight is not None
        dims = tuple(str(i + 1) for i in range(step.weight.shape[0]))
        r_panel = Panel(_PRODUCTS[step.key], step.weight, dims, step.col_labels)
    elif right.key is StepKey.K:  # scores: Q times K transposed
        r_panel = Panel("Kᵀ", right.matrix.T, right.col_labels, right.row_labels)
    else:
        r_panel = _whole(right)
    shown = (np.arange(step.matrix.size) < done).reshape(n_rows, n_cols)
    i, j = divmod(done, n_cols)
    l_panel = _whole(left)
    out = Panel(_title(step), step.matrix, step.row_labels, step.col_labels, shown)
    if done < step.matrix.size:
        l_panel = replace(l_panel, mark=((i, i + 1), None))
        r_panel = replace(r_panel, mark=(None, (j, j + 1)))
        out = replace(out, mark=((i, i + 1), (j, j + 1)))
    return Frame((l_panel, r_panel, out), ("×", "="))


def _mask_frame(scores: AttentionStep, step: AttentionStep, done: int) -> Frame:
    n = step.matrix.shape[0]
    upper = [(r, c) for r in range(n) for c in range(r + 1, n)]
    swept = np.zeros((n, n), dtype=bool)
    for r, c in upper[:done]:
        swept[r, c] = True
    values = np.where(swept, step.matrix, scores.matrix)
    mark = None
    if done < len(upper):
        r, c = upper[done]
        mark = ((r, r + 1), (c, c + 1))
    out = Panel(_title(step), values, step.row_labels, step.col_labels, mark=mark)
    return Frame((_whole(scores), out), ("→",))


def _softmax_frame(masked: AttentionStep, step: AttentionStep, done: int) -> Frame:
    n = step.matrix.shape[0]
    values = np.where(np.arange(n)[:, None] < done, step.matrix, masked.matrix)
    mark = ((done, done + 1), None) if done < n else None
    left = Panel(_title(masked), masked.matrix, masked.row_labels, masked.col_labels, mark=mark)
    right = Panel(_title(step), values, step.row_labels, step.col_labels, mark=mark, by_row=True)
    return Frame((left, right), ("→",))
