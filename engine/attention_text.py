"""The words of the attention walk-through: each step's name, formula and a newcomer's explanation.

Kept apart from the arithmetic (``engine.attention``) so that the GUI can translate them: each text is marked
with ``QT_TRANSLATE_NOOP("engine", ...)`` (``engine.translatable``: a plain function, the engine never imports
Qt) that ``pyside6-lupdate`` finds by its name when this file is among its sources; the GUI looks the texts up
with ``QCoreApplication.translate("engine", text)``. Notation follows Vaswani et al. 2017 (arXiv:1706.03762,
section 3.2): d is the head width.
"""

from __future__ import annotations

from dataclasses import dataclass

from engine.attention_sizes import StepKey
from engine.translatable import CONTEXT, QT_TRANSLATE_NOOP

__all__ = ["CONTEXT", "STEP_TEXT", "StepText"]


@dataclass(frozen=True)
class StepText:
    name: str
    formula: str
    explanation: str
    operands: tuple[StepKey, ...]


STEP_TEXT: dict[StepKey, StepText] = {
    StepKey.X: StepText(
        QT_TRANSLATE_NOOP("engine", "Token embeddings"),
        "X",
        QT_TRANSLATE_NOOP(
            "engine",
            "Each token becomes a row of numbers. This is the layer's input; every head reads all of it.",
        ),
        (),
    ),
    StepKey.Q: StepText(
        QT_TRANSLATE_NOOP("engine", "Queries"),
        "Q = X Wq",
        QT_TRANSLATE_NOOP(
            "engine",
            "Each token asks a question: what am I looking for? A learned matrix Wq turns its row into a query.",
        ),
        (StepKey.X,),
    ),
    StepKey.K: StepText(
        QT_TRANSLATE_NOOP("engine", "Keys"),
        "K = X Wk",
        QT_TRANSLATE_NOOP(
            "engine",
            "Each token also advertises what it contains: its key, made by another learned matrix Wk.",
        ),
        (StepKey.X,),
    ),
    StepKey.V: StepText(
        QT_TRANSLATE_NOOP("engine", "Values"),
        "V = X Wv",
        QT_TRANSLATE_NOOP(
            "engine",
            "And what it will hand over if chosen: its value, made by a third matrix Wv.",
        ),
        (StepKey.X,),
    ),
    StepKey.SCORES: StepText(
        QT_TRANSLATE_NOOP("engine", "Scores"),
        "S = Q Kᵀ / √d",
        QT_TRANSLATE_NOOP(
            "engine",
            "Every query meets every key: one number per pair, so s tokens make an s × s matrix. "
            "This is the tensor that grows with the square of the length.",
        ),
        (StepKey.Q, StepKey.K),
    ),
    StepKey.MASKED: StepText(
        QT_TRANSLATE_NOOP("engine", "Causal mask"),
        "S[i, j] = −∞ for j > i",
        QT_TRANSLATE_NOOP(
            "engine",
            "A token may not look ahead: every cell above the diagonal becomes minus infinity.",
        ),
        (StepKey.SCORES,),
    ),
    StepKey.SOFTMAX: StepText(
        QT_TRANSLATE_NOOP("engine", "Softmax by row"),
        "P = softmax(S) per row",
        QT_TRANSLATE_NOOP(
            "engine",
            "Each row becomes weights that sum to 1; the masked cells become exactly 0. "
            "Training keeps this s × s matrix for the backward pass.",
        ),
        (StepKey.MASKED,),
    ),
    StepKey.OUTPUT: StepText(
        QT_TRANSLATE_NOOP("engine", "Output"),
        "O = P V",
        QT_TRANSLATE_NOOP(
            "engine",
            "Each token's output is a weighted average of the values it may see. "
            "FlashAttention computes this in tiles and never writes the s × s matrix to memory.",
        ),
        (StepKey.SOFTMAX, StepKey.V),
    ),
}
