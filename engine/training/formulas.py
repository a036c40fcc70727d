"""The words and sources that travel with each term (shown in tooltips and printed by the CLI)."""

from __future__ import annotations

from engine.results import Term
from engine.specs import Attention, Checkpointing, Method, ModelSpec, TrainingSetup
from engine.training.activations import ActivationCoeffs
from engine.training.states import ModelStates

_SOURCES = {
    "weights": "Rajbhandari et al. 2020 (ZeRO, arXiv:1910.02054) s3.1; Dettmers et al. 2023 (QLoRA, "
    "arXiv:2305.14314) s3 for 4-bit NF4 with double quantization",
    "gradients": "Rajbhandari et al. 2020 (ZeRO) s3.1 and s5; Hu et al. 2021 (LoRA, arXiv:2106.09685) s4.1",
    "optimizer_states": "Loshchilov & Hutter 2019 (AdamW); Rajbhandari et al. 2020 (ZeRO) s3.1; Dettmers et al. "
    "2022 (8-bit optimizers, arXiv:2110.02861); Shazeer & Stern 2018 (Adafactor)",
    "activations": "Korthikanti et al. 2022 (arXiv:2205.05198) s4.1 method, applied to Hugging Face layers; "
    "Dao et al. 2022 (FlashAttention, arXiv:2205.14135); Chen et al. 2016 (checkpointing, arXiv:1604.06174)",
    "logits": "Hugging Face transformers ForCausalLMLoss: logits upcast to fp32, log-softmax kept for backward",
    "sharding_buffers": "PyTorch DDP docs (gradient_as_bucket_view); DeepSpeed ZeRO config (bucket sizes); "
    "PyTorch FSDP (Zhao et al. 2023, arXiv:2304.11277) s3.3",
    "temporaries": "gradients in flight during one layer's backward (same method as activations); QLoRA: "
    "bitsandbytes dequantizes each 4-bit weight for its matmul (Dettmers et al. 2023, s3)",
}


def _formulas(m: ModelSpec, s: TrainingSetup, st: ModelStates, ac: ActivationCoeffs) -> dict[str, str]:
    """Each term's formula in words, for this model and setup."""
    per_n = " / N"
    scores = ""
    if s.attention is Attention.EAGER:
        per_score = round(ac.segments[-1][1].saved_bs2 / m.num_heads)  # fp32 softmax + its cast (+ tanh cap)
        scores = f" + layers x b x heads x s^2 x {per_score} (eager scores)"
    saved = ("layers x b x s x hidden (checkpointed inputs) + one layer recomputed"
             if s.checkpointing is Checkpointing.FULL else "layers x b x s x (per-token bytes saved per layer)")
    return {
        "weights": "params x bytes per weight" + (per_n + " (ZeRO-3)" if st.divisor_weights > 1 else ""),
        "gradients": "trainable params x bytes per gradient" + (per_n if st.divisor_grads > 1 else ""),
        "optimizer_states": "trainable params x (master copy + states) bytes"
        + (per_n if st.divisor_states > 1 else ""),
        "activations": saved + scores,
        "logits": "b x s x vocab x 12 (fp32 log-probs, their gradient, the input gradient)",
        "sharding_buffers": "gathered layers and communication buckets",
        "temporaries": "gradients of the layer in backward"
        + (" + its largest linear dequantized to 16 bits" if s.method is Method.QLORA else ""),
    }


Texts = dict[str, tuple[str, str, str]]  # name -> (formula, source, detail)


def texts(m: ModelSpec, s: TrainingSetup, st: ModelStates, ac: ActivationCoeffs) -> Texts:
    """Formula, source and detail of every term (independent of batch and sequence length: cached)."""
    details = {
        "weights": st.weight_detail,
        "gradients": f"{st.counts.trainable:,} trainable"
        + (" (LoRA adapters, fp32)" if s.method is not Method.FULL else ""),
    }
    formulas = _formulas(m, s, st, ac)
    return {name: (formulas[name], _SOURCES[name], details.get(name, "")) for name in _SOURCES}


def describe(words: Texts, at_peak: dict[str, float], order: tuple[str, ...]) -> tuple[Term, ...]:
    """Terms at the peak, in the canonical order, each with its formula, source and share of the peak."""
    total = sum(at_peak.values()) or 1.0  # (with_shares's rule, in one pass: this runs on every estimate)
    return tuple(Term(n, round(at_peak.get(n, 0.0)), *words[n], share=at_peak.get(n, 0.0) / total) for n in order)
