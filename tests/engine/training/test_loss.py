"""engine.training.loss: what each way of computing the loss holds, per token, by hand and against traced steps."""

from __future__ import annotations

import pytest

from engine.catalog import get_gpu, get_model
from engine.specs import Checkpointing, Loss, Method, Precision, TrainingSetup
from engine.terms import TermName
from engine.training import estimate
from engine.training.activations import activation_coeffs
from engine.training.loss import fused_chunk_factor

LLAMA31 = get_model("llama-3.1-8b")
V, H = 128_256, 4_096
H200 = get_gpu("h200")
#: the issue's case: Llama 3.1 8B, LoRA, 32,768 tokens, checkpointing on (bf16-mixed: 16-bit compute)
LONG = TrainingSetup(method=Method.LORA, seq_len=32_768, checkpointing=Checkpointing.FULL)
TOKENS = 32_768


def _loss(s: TrainingSetup) -> tuple[float, float, int]:
    loss = activation_coeffs(LLAMA31, s).loss
    return loss.forward, loss.backward, loss.const


def _logits(s: TrainingSetup) -> int:
    return next(t.bytes for t in estimate(LLAMA31, s, H200).terms if t.name == TermName.LOGITS)


def test_standard_is_twelve_bytes_per_vocabulary_entry_at_backward() -> None:
    """bf16 logits, their fp32 upcast and the fp32 log-probs in forward; three fp32 copies at backward."""
    assert _loss(LONG) == ((2 + 4 + 4) * V, 12 * V, 0)


@pytest.mark.parametrize("n", [1, 8, 16])
def test_chunked_keeps_16_bit_logits_and_fp32_log_probs_whole(n: int) -> None:
    """Forward, at the last chunk: all 16-bit logits (2), every chunk's saved fp32 log-softmax (4), this chunk's
    upcast (4 / n); backward: the log-probs (4) and one chunk's two fp32 gradients (8 / n)."""
    forward, backward, const = _loss(LONG.with_(loss=Loss.CHUNKED, loss_chunks=n))
    assert forward == pytest.approx((2 + 4 + 4 / n) * V)
    assert backward == pytest.approx((4 + 8 / n) * V)
    assert const == 0


def test_fused_linear_ce_never_holds_the_vocabulary() -> None:
    """Liger: the input's gradient (r h), the per-token fp32 loss (4), one chunk of bf16 logits and of their
    product with the weight, chunks of 2 x b s / ceil(V / h) tokens at most; the output weight's gradient when it
    trains (full fine-tuning), in the weight's dtype."""
    assert fused_chunk_factor(LLAMA31) == 32  # ceil(128,256 / 4,096)
    forward, backward, const = _loss(LONG.with_(loss=Loss.FUSED_LINEAR_CE))
    assert forward == pytest.approx(2 * H + 4 + 2 * 2 * (V + H) / 32)
    assert backward == 2 * H
    assert const == 0
    full = TrainingSetup(loss=Loss.FUSED_LINEAR_CE)
    assert activation_coeffs(LLAMA31, full).loss.const == V * H * 2
    assert activation_coeffs(LLAMA31, full.with_(precision=Precision.AMP_BF16)).loss.const == V * H * 4


def test_the_issue_figure_logits_beside_the_weights() -> None:
    """Standard: 12 x 32,768 x 128,256 = 50.4 GB of logits beside 16.2 GB of weights."""
    assert _logits(LONG) == 12 * TOKENS * V
    weights = next(t.bytes for t in estimate(LLAMA31, LONG, H200).terms if t.name == TermName.WEIGHTS)
    assert round(_logits(LONG) / 1e9, 1) == 50.4
    assert round(weights / 1e9, 1) == 16.2


def test_chunked_halves_the_logits_and_fused_linear_ce_takes_them_under_a_quarter() -> None:
    """The issue hoped ``--loss chunked`` would shrink the logits to under a quarter. Counted (and traced:
    lc-llama-3.1-8b_..._chunked8 within 0.2%), torchtune's chunked loss keeps the fp32 log-probs whole: the
    logits fall to (2 + 4 + 0.5) / 12 = 54% and the peak moves to the end of the forward. The fused linear
    cross-entropy is what takes them under a quarter (about 1%)."""
    standard = _logits(LONG)
    chunked = _logits(LONG.with_(loss=Loss.CHUNKED))
    fused = _logits(LONG.with_(loss=Loss.FUSED_LINEAR_CE))
    assert chunked == round((2 + 4 + 4 / 8) * V * TOKENS)
    assert chunked / standard == pytest.approx(6.5 / 12)
    assert fused < standard / 4
    assert fused / standard < 0.01
    assert estimate(LLAMA31, LONG.with_(loss=Loss.CHUNKED), H200).peak_phase == "forward"


def test_standard_formula_and_source_are_unchanged() -> None:
    """The default's words are part of the JSON (terms_detail): they must read as before issue 19."""
    t = next(t for t in estimate(LLAMA31, TrainingSetup(), H200).terms if t.name == TermName.LOGITS)
    assert t.formula == "b x s x vocab x 12 (fp32 log-probs, their gradient, the input gradient)"
    assert t.source == ("Hugging Face transformers ForCausalLMLoss: logits upcast to fp32, log-softmax kept for "
                        "backward")
