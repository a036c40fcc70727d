"""Attention, one step at a time: a toy layer, one head, a short sentence, computed in eight steps.

Scaled dot-product attention (Vaswani et al. 2017, "Attention Is All You Need", arXiv:1706.03762, section
3.2.1) with a causal mask (section 3.2.3): ``softmax(mask(Q K^T / sqrt(d))) V``. The toy has a model width
of 8 and a head width of 4; its weights come from a fixed seed and each word's embedding from a hash of the
word, so the same sentence always gives the same numbers. Beside each toy matrix, ``sizes`` gives the same
tensor in a real model (``engine.attention_sizes``): that is where the s x s scores blow up memory.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterator
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from engine.attention_sizes import StepKey, TensorSize, flash_kept, tensor_size
from engine.attention_text import STEP_TEXT
from engine.catalog import DEFAULT_MODEL, get_model
from engine.specs import KvDtype, ModelSpec

D_MODEL = 8
D_HEAD = 4
MAX_TOKENS = 8
DEFAULT_SENTENCE = "The cat sat on the mat"
#: the dtype the walk-through sizes the real tensors in: the activations' under bf16 mixed precision
ATTENTION_DTYPE = KvDtype.BF16
WEIGHT_SEED = 2017

Matrix = npt.NDArray[np.float64]

__all__ = [
    "AttentionStep",
    "StepKey",
    "TensorSize",
    "attention_steps",
    "flash_kept",
    "iter_steps",
    "tokenize",
]


@dataclass(frozen=True)
class AttentionStep:
    """One step: the toy matrix (read-only; -inf in masked cells), its text, and the real tensor's sizes."""

    index: int  # 0..7
    key: StepKey
    name: str
    formula: str
    explanation: str
    matrix: Matrix
    operands: tuple[StepKey, ...]  # earlier steps it is computed from (a product's left and right operands)
    weight: Matrix | None  # the learned projection of Q, K, V steps (Wq, Wk, Wv), else None
    row_labels: tuple[str, ...]
    col_labels: tuple[str, ...]
    sizes: TensorSize


def tokenize(sentence: str) -> tuple[str, ...]:
    """Whitespace tokens, 1 to ``MAX_TOKENS`` of them (a real tokenizer splits words further)."""
    tokens = tuple(sentence.split())
    if not tokens:
        raise ValueError("the sentence is empty: type at least one word")
    if len(tokens) > MAX_TOKENS:
        raise ValueError(f"the sentence has {len(tokens)} tokens; at most {MAX_TOKENS} fit the walk-through")
    return tokens


def embed(tokens: tuple[str, ...]) -> Matrix:
    """One row of ``D_MODEL`` numbers per token, seeded by a hash of the token (same word, same row)."""
    x = np.empty((len(tokens), D_MODEL), dtype=np.float64)
    for row, tok in enumerate(tokens):
        seed = int.from_bytes(hashlib.blake2b(tok.encode(), digest_size=8).digest(), "little")
        x[row] = np.random.default_rng(seed).standard_normal(D_MODEL)
    return np.round(x, 1)


def toy_weights() -> tuple[Matrix, Matrix, Matrix]:
    """Wq, Wk, Wv: ``D_MODEL x D_HEAD`` each, from a fixed seed, rounded to one decimal to check by hand."""
    rng = np.random.default_rng(WEIGHT_SEED)
    wq, wk, wv = (np.round(rng.standard_normal((D_MODEL, D_HEAD)) * 0.5, 1) for _ in range(3))
    return wq, wk, wv


def _matrices(tokens: tuple[str, ...]) -> Iterator[tuple[StepKey, Matrix, Matrix | None]]:
    """The eight toy matrices in order (Vaswani et al. 2017, section 3.2.1, equation 1, causal mask 3.2.3)."""
    x = embed(tokens)
    wq, wk, wv = toy_weights()
    q, k, v = x @ wq, x @ wk, x @ wv
    scores = q @ k.T / np.sqrt(D_HEAD)
    masked = np.where(np.triu(np.ones_like(scores, dtype=bool), 1), -np.inf, scores)
    e = np.exp(masked - masked.max(axis=1, keepdims=True))  # exp(-inf) = 0 exactly
    p = e / e.sum(axis=1, keepdims=True)
    yield StepKey.X, x, None
    yield from ((StepKey.Q, q, wq), (StepKey.K, k, wk), (StepKey.V, v, wv))
    yield from ((StepKey.SCORES, scores, None), (StepKey.MASKED, masked, None), (StepKey.SOFTMAX, p, None))
    yield StepKey.OUTPUT, p @ v, None


def _col_labels(key: StepKey, tokens: tuple[str, ...], width: int) -> tuple[str, ...]:
    if key in (StepKey.SCORES, StepKey.MASKED, StepKey.SOFTMAX):
        return tokens  # columns are keys
    return tuple(str(i + 1) for i in range(width))


def iter_steps(
    sentence: str = DEFAULT_SENTENCE,
    model: ModelSpec | None = None,
    seq_len: int = 4_096,
    dtype: KvDtype = ATTENTION_DTYPE,
    batch: int = 1,
) -> Iterator[AttentionStep]:
    """Yield the eight steps for a sentence, sized in ``model`` (default Llama 2 7B) at ``seq_len`` tokens."""
    tokens = tokenize(sentence)
    real = model if model is not None else get_model(DEFAULT_MODEL)
    for index, (key, matrix, weight) in enumerate(_matrices(tokens)):
        text = STEP_TEXT[key]
        for array in (matrix, weight):
            if array is not None:
                array.flags.writeable = False
        yield AttentionStep(
            index=index,
            key=key,
            name=text.name,
            formula=text.formula,
            explanation=text.explanation,
            matrix=matrix,
            operands=text.operands,
            weight=weight,
            row_labels=tokens,
            col_labels=_col_labels(key, tokens, matrix.shape[1]),
            sizes=tensor_size(key=key, model=real, seq_len=seq_len, dtype=dtype, batch=batch),
        )


def attention_steps(
    sentence: str = DEFAULT_SENTENCE,
    model: ModelSpec | None = None,
    seq_len: int = 4_096,
    dtype: KvDtype = ATTENTION_DTYPE,
    batch: int = 1,
) -> tuple[AttentionStep, ...]:
    """All eight steps at once (see ``iter_steps``)."""
    return tuple(iter_steps(sentence, model, seq_len, dtype, batch))
