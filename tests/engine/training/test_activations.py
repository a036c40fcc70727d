"""engine.training.activations under selective checkpointing (Korthikanti et al. 2022, s5), counted by hand."""

from __future__ import annotations

from engine.catalog import get_gpu, get_model
from engine.specs import Attention, Checkpointing, Method, Precision, TrainingSetup
from engine.training import accuracy, estimate
from engine.training.activations import LayerCoeffs, activation_coeffs

LLAMA2 = get_model("llama-2-7b")  # h = 4,096, 32 heads of 128, MHA
BF16 = TrainingSetup(precision=Precision.BF16)
SELECTIVE = BF16.with_(checkpointing=Checkpointing.SELECTIVE)


def _layer(s: TrainingSetup) -> LayerCoeffs:
    return activation_coeffs(LLAMA2, s).segments[0][1]


def test_sdpa_full_fine_tuning_saves_only_the_log_sum_exp() -> None:
    """The core keeps q, k, v (its checkpoint's inputs); its output stays as o_proj's saved input; what goes is the
    fp32 log-sum-exp, 4 bytes per head and token, and it comes back with the output in the layer's backward."""
    plain, sel = _layer(BF16), _layer(SELECTIVE)
    assert plain.saved - sel.saved == 4 * 32
    assert sel.recomputed == 2 * 4_096 + 4 * 32
    assert sel.saved_bs2 == plain.saved_bs2 == 0


def test_sdpa_lora_also_drops_the_attention_output() -> None:
    """Under LoRA o_proj's frozen base saves nothing of its input (its adapter saves its own cast copy), so the
    attention output (2 x 4,096 B) goes too."""
    lora = BF16.with_(method=Method.LORA)
    assert _layer(lora).saved - _layer(lora.with_(checkpointing=Checkpointing.SELECTIVE)).saved == 2 * 4_096 + 4 * 32


def test_eager_drops_the_s_squared_scores() -> None:
    """Eager: the expanded k and v (MHA: as wide as q) are replaced by the core's inputs k and v, same width here;
    the fp32 softmax and its bf16 copy (6 bytes per head and score) are recomputed in backward."""
    eager = BF16.with_(attention=Attention.EAGER)
    plain, sel = _layer(eager), _layer(eager.with_(checkpointing=Checkpointing.SELECTIVE))
    assert plain.saved_bs2 == 32 * 6
    assert sel.saved_bs2 == 0
    assert sel.saved == plain.saved
    assert sel.recomputed_bs2 == 32 * 6
    assert sel.recomputed == 2 * (2 * 4_096 + 4_096)  # expanded k, v and the core's output


def test_selective_with_flash_changes_little_and_eager_a_lot() -> None:
    """Llama 2 7B at 4,096 tokens: with SDPA selective saves about 0.1% of the peak; with eager attention it
    removes the 32 layers' scores (6 x 32 heads x 4,096^2 bytes each) but for the one layer recomputing."""
    gpu = get_gpu("h200")
    sdpa = estimate(LLAMA2, BF16, gpu).peak_allocated_bytes
    assert 0 < sdpa - estimate(LLAMA2, SELECTIVE, gpu).peak_allocated_bytes < sdpa * 0.001
    eager = BF16.with_(attention=Attention.EAGER)
    saved = (estimate(LLAMA2, eager, gpu).peak_allocated_bytes
             - estimate(LLAMA2, eager.with_(checkpointing=Checkpointing.SELECTIVE), gpu).peak_allocated_bytes)
    assert saved > 30 * 6 * 32 * 4_096**2


def test_selective_steps_are_traced() -> None:
    rows = [r for r in accuracy.traced_steps() if "selective" in r.id]
    assert len(rows) >= 3
    assert all(abs(r.error) < 0.01 for r in rows)
