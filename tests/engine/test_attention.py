"""The toy attention against numpy written here, and the real sizes against hand-derived numbers."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from engine.attention import (
    DEFAULT_SENTENCE,
    MAX_TOKENS,
    StepKey,
    attention_steps,
    embed,
    iter_steps,
    tokenize,
    toy_weights,
)
from engine.catalog import get_model

MIB, GIB = 2**20, 2**30
KEYS = ["x", "q", "k", "v", "scores", "masked", "softmax", "output"]


def reference(x: np.ndarray, wq: np.ndarray, wk: np.ndarray, wv: np.ndarray) -> list[np.ndarray]:
    """Causal scaled dot-product attention, written out loop by loop (no shared code with the engine)."""
    n, d = x.shape[0], wq.shape[1]
    q, k, v = np.einsum("ij,jk->ik", x, wq), np.einsum("ij,jk->ik", x, wk), np.einsum("ij,jk->ik", x, wv)
    s = np.array([[sum(q[i, c] * k[j, c] for c in range(d)) / math.sqrt(d) for j in range(n)] for i in range(n)])
    m = np.array([[s[i, j] if j <= i else -math.inf for j in range(n)] for i in range(n)])
    p = np.zeros_like(s)
    for i in range(n):
        w = [math.exp(m[i, j]) for j in range(i + 1)]
        p[i, : i + 1] = np.array(w) / sum(w)
    return [x, q, k, v, s, m, p, np.einsum("ij,jk->ik", p, v)]


def test_eight_steps_in_order() -> None:
    steps = attention_steps()
    assert [s.key.value for s in steps] == KEYS
    assert [s.index for s in steps] == list(range(8))
    assert steps[0].row_labels == ("The", "cat", "sat", "on", "the", "mat")


@pytest.mark.parametrize("sentence", [DEFAULT_SENTENCE, "one", "a b c d e f g h", "GPU memory is finite"])
def test_toy_maths_matches_an_independent_reference(sentence: str) -> None:
    steps = attention_steps(sentence)
    expected = reference(embed(tokenize(sentence)), *toy_weights())
    for step, want in zip(steps, expected, strict=True):
        np.testing.assert_allclose(step.matrix, want, rtol=1e-12, atol=1e-12, err_msg=step.key)


def test_shapes_and_labels() -> None:
    steps = {s.key: s for s in attention_steps("a b c")}
    assert steps[StepKey.X].matrix.shape == (3, 8)
    assert steps[StepKey.Q].matrix.shape == (3, 4)
    assert steps[StepKey.SCORES].matrix.shape == (3, 3)
    assert steps[StepKey.SCORES].col_labels == ("a", "b", "c")  # columns are keys
    assert steps[StepKey.OUTPUT].col_labels == ("1", "2", "3", "4")
    weight = steps[StepKey.Q].weight
    assert weight is not None
    assert weight.shape == (8, 4)
    assert steps[StepKey.OUTPUT].operands == (StepKey.SOFTMAX, StepKey.V)
    assert steps[StepKey.SCORES].operands == (StepKey.Q, StepKey.K)


def test_mask_and_softmax() -> None:
    steps = {s.key: s for s in attention_steps()}
    masked, p = steps[StepKey.MASKED].matrix, steps[StepKey.SOFTMAX].matrix
    upper = np.triu(np.ones(masked.shape, dtype=bool), 1)
    assert np.all(np.isneginf(masked[upper]))
    assert np.all(np.isfinite(masked[~upper]))
    assert np.all(p[upper] == 0.0)  # exactly zero, not tiny
    np.testing.assert_allclose(p.sum(axis=1), 1.0, rtol=0, atol=1e-15)
    assert p[0, 0] == 1.0  # the first token sees only itself


def test_deterministic_and_read_only() -> None:
    a, b = attention_steps(), attention_steps()
    for sa, sb in zip(a, b, strict=True):
        np.testing.assert_array_equal(sa.matrix, sb.matrix)
    with pytest.raises(ValueError, match="read-only"):
        a[1].matrix[0, 0] = 1.0
    x = embed(("the", "cat", "the"))
    np.testing.assert_array_equal(x[0], x[2])  # same word, same embedding


def test_generator_yields_lazily() -> None:
    gen = iter_steps()
    assert next(gen).key is StepKey.X
    assert next(gen).key is StepKey.Q


def test_sentence_limits() -> None:
    assert len(tokenize(" ".join(["w"] * MAX_TOKENS))) == MAX_TOKENS
    with pytest.raises(ValueError, match="at most 8"):
        attention_steps(" ".join(["w"] * (MAX_TOKENS + 1)))
    with pytest.raises(ValueError, match="empty"):
        tokenize("   ")


@given(st.lists(st.text(alphabet="abcdefXYZ你好", min_size=1, max_size=6), min_size=1, max_size=MAX_TOKENS))
def test_softmax_rows_sum_to_one_for_any_sentence(words: list[str]) -> None:
    p = attention_steps(" ".join(words))[6].matrix
    np.testing.assert_allclose(p.sum(axis=1), 1.0, atol=1e-12)


def test_real_sizes_llama_2_7b_at_4096_bf16() -> None:
    sizes = {s.key: s.sizes for s in attention_steps(model=get_model("llama-2-7b"), seq_len=4096)}
    for key in (StepKey.SCORES, StepKey.MASKED, StepKey.SOFTMAX):
        # 4096 x 4096 x 2 bytes = 32 MiB per head; x 32 heads = 1 GiB; x 32 layers = 32 GiB
        assert (sizes[key].per_head_bytes, sizes[key].per_layer_bytes) == (32 * MIB, 1 * GIB)
        assert sizes[key].all_layers_bytes == 32 * GIB
    for key in (StepKey.Q, StepKey.K, StepKey.V, StepKey.OUTPUT):
        # 4096 x 128 x 2 bytes = 1 MiB per head; x 32 = 32 MiB per layer
        assert (sizes[key].per_head_bytes, sizes[key].per_layer_bytes) == (1 * MIB, 32 * MIB)
    # X: 1 x 4096 x 4096 x 2 bytes, shared by all heads
    assert (sizes[StepKey.X].per_head_bytes, sizes[StepKey.X].per_layer_bytes) == (None, 32 * MIB)
