"""The loss over the vocabulary: what each way of computing it holds, per token, at the end of the forward and at
the start of the backward (the two moments where the logits term is non-zero).

``u`` below is one token's row of vocabulary entries (``V`` elements); ``c`` the compute dtype's bytes (2 under
16-bit autocast), ``r`` the residual stream's, ``h`` the hidden size.

* **standard**: Hugging Face transformers ``ForCausalLMLoss`` (``loss/loss_utils.py``): the output layer makes
  the whole ``b x s x V`` logits in ``c``, the loss upcasts them to fp32 and takes ``log_softmax``, which autograd
  keeps for backward; accelerate upcasts the returned logits again. Forward ``(c + 4 + 4) u``; at the start of
  backward three fp32 copies (the log-probabilities, ``nll_loss``'s gradient, ``log_softmax``'s gradient):
  ``12 u``. Traced in calibration/README.md.
* **chunked** (N chunks): torchtune's ``CEWithChunkedOutputLoss`` (``modules/loss/ce_chunked_output_loss.py``, 8
  chunks by default): the output layer runs on N slices of the hidden states, so the ``c`` logits are whole (in N
  pieces), and each piece is upcast and cross-entropy'd in turn. Counted as eager PyTorch runs it: ``log_softmax``
  still keeps its fp32 output for backward, so the fp32 log-probabilities of every chunk are whole by the end of
  the forward; what is one chunk at a time is the fp32 upcast and, in backward, the two fp32 gradients. Forward
  ``(c + 4 + 4/N) u`` (at the last chunk; none of the upcast when ``c`` is already fp32), backward
  ``(4 + 8/N) u``: about half of standard at N = 8, not less. (The 16-bit logits are freed before backward:
  nothing saves them.) Traced: calibration cases ``lc-*_chunked*``.
* **fused-linear-ce**: Liger-Kernel's ``LigerFusedLinearCrossEntropyFunction``
  (``ops/fused_linear_cross_entropy.py``), which TRL and transformers use with ``use_liger_kernel=True``: the
  output layer is fused into the loss, which walks the tokens in chunks of ``next_pow2(ceil(b s / ceil(V / h)))``
  and, chunk by chunk, makes the ``c`` logits, turns them into their gradient in place and multiplies it into
  the input's gradient (and the weight's, when the output layer trains) during the forward. No tensor of the
  vocabulary's size lives beyond one chunk: per token ``r h`` (the input's gradient, saved for backward) + 4 (the
  per-token fp32 loss) + one chunk of logits and its product with the weight, ``2 c (V + h) / ceil(V / h)``
  (counted at its largest: the power-of-two rounding can double the chunk). When the output layer trains (full
  fine-tuning) its weight's gradient is allocated in the forward: ``V h`` in the weight's dtype. CUDA (Triton)
  only, so not traced here.

TRL's ``loss_type="chunked_nll"`` (SFTTrainer's default since TRL 1.x) computes the output layer inside each
checkpointed chunk of 256 tokens: like fused-linear-ce, nothing of the vocabulary's size is whole; it also makes an
fp32 copy of the output weight per chunk, which fused-linear-ce does not count.
"""

from __future__ import annotations

from dataclasses import dataclass

from engine.specs import Loss, ModelSpec, TrainingSetup
from engine.training.precision import FP32

FUSED_SOURCE = "Liger-Kernel ops/fused_linear_cross_entropy.py (LigerFusedLinearCrossEntropyFunction)"
CHUNKED_SOURCE = "torchtune modules/loss/ce_chunked_output_loss.py (CEWithChunkedOutputLoss), traced in calibration/"
STANDARD_SOURCE = ("Hugging Face transformers ForCausalLMLoss: logits upcast to fp32, log-softmax kept for "
                   "backward")


@dataclass(frozen=True, slots=True)
class LossCoeffs:
    """Bytes the loss holds at the end of the forward and at the start of the backward."""

    forward: float  # per token
    backward: float  # per token
    const: int  # bytes independent of the tokens (fused-linear-ce's weight gradient), at both moments
    formula: str
    source: str

    def scaled(self, per_token: float, const: float) -> LossCoeffs:
        """The share one GPU holds (a tensor / context / pipeline parallel rank: ``engine.training.stage``)."""
        return LossCoeffs(self.forward * per_token, self.backward * per_token, round(self.const * const),
                          self.formula, self.source)


def fused_chunk_factor(m: ModelSpec) -> int:
    """Liger's ``inc_factor = ceil(V / h)``: a chunk holds about ``b s / inc_factor`` tokens."""
    return -(-m.vocab_size // m.hidden_size)


def loss_coeffs(m: ModelSpec, s: TrainingSetup, compute: int, residual: int, head_grad: int) -> LossCoeffs:
    """The loss of ``s.loss`` (module docstring). ``head_grad``: bytes of the output weight's gradient when it
    trains (0 for LoRA), which fused-linear-ce allocates in the forward."""
    v, h, c = m.vocab_size, m.hidden_size, compute
    upcast = FP32 if c < FP32 else 0
    softcap = c * v if m.logit_softcap else 0  # tanh's output, kept for its backward
    if s.loss is Loss.CHUNKED:
        n = s.loss_chunks
        return LossCoeffs((c + FP32) * v + upcast * v / n + softcap, (FP32 + 2 * FP32 / n) * v + softcap, 0,
                          f"b x s x vocab x ({c} + 4 + {upcast}/{n}) forward, x (4 + 8/{n}) backward "
                          f"({n} chunks: 16-bit logits and fp32 log-probs whole, upcast and gradients per chunk)",
                          CHUNKED_SOURCE)
    if s.loss is Loss.FUSED_LINEAR_CE:
        chunk = 2 * c * (v + h) / fused_chunk_factor(m)
        return LossCoeffs(residual * h + FP32 + chunk, residual * h, head_grad,
                          f"b x s x (hidden x {residual} + 4) + one chunk of logits (never the whole vocabulary)"
                          + (" + the output weight's gradient" if head_grad else ""), FUSED_SOURCE)
    return LossCoeffs((c + upcast + FP32) * v + softcap, 3 * FP32 * v + softcap, 0,
                      "b x s x vocab x 12 (fp32 log-probs, their gradient, the input gradient)", STANDARD_SOURCE)
