"""The loss over the vocabulary: what each way of computing it holds at the end of the forward and at the start of
the backward (the two moments where the logits term is non-zero), per token and as a constant.

``u`` below is one token's row of vocabulary entries (``V`` elements); ``c`` the compute dtype's bytes (2 under
16-bit autocast), ``r`` the residual stream's, ``h`` the hidden size, ``g`` the output weight's gradient
(``V h`` in the weight's dtype when the output layer trains, 0 for LoRA).

* **standard**: Hugging Face transformers ``ForCausalLMLoss`` (``loss/loss_utils.py``): the output layer makes
  the whole ``b x s x V`` logits in ``c``, the loss upcasts them to fp32 and takes ``log_softmax``, which autograd
  keeps for backward; accelerate upcasts the returned logits again. Forward ``(c + 4 + 4) u``; at the start of
  backward three fp32 copies (the log-probabilities, ``nll_loss``'s gradient, ``log_softmax``'s gradient):
  ``12 u``. Traced in calibration/README.md.
* **chunked**: TRL's ``loss_type="chunked_nll"``, SFTTrainer's default from TRL 1.7 to 1.14 (counted and traced
  with TRL 1.14.2, ``trl/trainer/sft_trainer.py``: ``_patch_chunked_ce_lm_head``, ``_chunked_cross_entropy_loss``,
  ``_chunk``, ``_CHUNKED_LM_HEAD_CHUNK_SIZE = 256``). The patched forward stops at the decoder's last hidden state;
  the valid tokens are reordered to the front (``hidden[order]``: a copy of the hidden states) and cut into chunks
  of 256 tokens; each chunk runs the output layer (``(h @ w.to(h.dtype).t()).float()``), ``log_softmax``,
  ``nll_loss`` and an entropy metric (``exp(log_p) * log_p``) under non-reentrant ``torch.utils.checkpoint``, so
  nothing of the vocabulary's size outlives its chunk, in the forward or in the backward, which reruns the chunk.

  - Per token, at both moments: ``2 r h + 16``. Forward: the decoder's last hidden state and its reordered copy;
    backward: the copy, kept for the reruns, and the hidden states' gradient gathered chunk by chunk; both: the
    int64 ``order`` and reordered labels. (With a batch above 1, ``hidden_states[..., :-1, :]`` is copied once
    more just before the chunks start, ``r h`` for a moment: not counted; the traces are batch 1.)
  - Per chunk row (``T`` = 256 tokens): ``16 V`` at the forward's largest (the fp32 logits, the
    log-probabilities, their ``exp`` and its product with them) and again in the backward's rerun, after which
    its gradients (at most three fp32 ``T x V``) are fewer.
  - When the output layer trains, its gradient is gathered over the chunks in autograd's input buffer: ``g``
    beside a chunk's rerun, and ``3 g`` while the second chunk's is added to the first's (``mm`` x 2 and ``add``,
    each ``[V, h]``, traced): the backward holds ``max(16 T V + g, 3 g)``, the forward ``16 T V``.
  - ``w.to(h.dtype)`` copies nothing (the hidden states are in the weight's dtype in every regime here). Under
    amp (fp32 weights) autocast casts the weight to 16 bits in each chunk, ``V h c``: freed after the chunk's
    matmul in the forward (``max(16 T V, V h c + c T V)``), kept by the rerun for its backward (``16 T V +
    V h c + g``). It is counted here, not as the weights term's ``head_copies`` (traced).
  - ``--loss-chunks N``: N chunks of ``b s / N`` tokens (TRL's function with that chunk size; SFTTrainer itself
    always uses 256): the ``16 V`` goes per token, ``16 u / N``, and the backward holds ``16 u / N + V h c + g``
    (counted without the ``3 g`` moment: the rerun is the larger whenever ``16 V b s / N > 2 g``, the only reason
    to choose N).
  - With activation offloading, SFTTrainer runs the loss inside the offload context, and non-reentrant
    checkpointing saves each chunk's input through its hooks (``_NoopSaveInputs``): the reordered copy, its labels
    and ``order``, ``r h + 16`` a token, go to host RAM (``offloaded``), and the backward holds only the
    gradient, ``r h``.
  - Other TRL versions, not counted: 1.7 to 1.12 computed ``h.float() @ w.float().t()``, an fp32 copy of the
    output weight per chunk (``4 V h`` more, and its autocast cast); 1.15 made ``chunked_nll`` an alias of
    ``nll``, computed by a fused LM head (``trl/kernels/chunked_logprob.py``). Traced: calibration cases
    ``lc-*_chunked``, ``lc-*_chunked4``, ``lc-*_chunked_offload``.
* **chunked-output** (N chunks): torchtune's ``CEWithChunkedOutputLoss`` (``modules/loss/ce_chunked_output_loss.py``,
  8 chunks by default): the output layer runs on N slices of the hidden states, so the ``c`` logits are whole (in
  N pieces), and each piece is upcast and cross-entropy'd in turn. Counted as eager PyTorch runs it:
  ``log_softmax`` still keeps its fp32 output for backward, so the fp32 log-probabilities of every chunk are whole
  by the end of the forward; what is one chunk at a time is the fp32 upcast and, in backward, the two fp32
  gradients. Forward ``(c + 4 + 4/N) u`` (at the last chunk; none of the upcast when ``c`` is already fp32),
  backward ``(4 + 8/N) u``: about half of standard at N = 8, not less. (The 16-bit logits are freed before
  backward: nothing saves them.) Traced: calibration cases ``lc-*_chunked-output*``.
* **fused-linear-ce**: Liger-Kernel's ``LigerFusedLinearCrossEntropyFunction``
  (``ops/fused_linear_cross_entropy.py``), which TRL and transformers use with ``use_liger_kernel=True``: the
  output layer is fused into the loss, which walks the tokens in chunks of ``next_pow2(ceil(b s / ceil(V / h)))``
  and, chunk by chunk, makes the ``c`` logits, turns them into their gradient in place and multiplies it into
  the input's gradient (and the weight's, when the output layer trains) during the forward. No tensor of the
  vocabulary's size lives beyond one chunk: per token ``r h`` (the input's gradient, saved for backward) + 4 (the
  per-token fp32 loss) + one chunk of logits and its product with the weight, ``2 c (V + h) / ceil(V / h)``
  (counted at its largest: the power-of-two rounding can double the chunk). When the output layer trains (full
  fine-tuning) its weight's gradient is allocated in the forward: ``g``. CUDA (Triton) only, so not traced here.

* **chunked-backward** (N chunks): torchtitan's ``ChunkedLossWrapper`` (torchtitan/components/loss.py@0.3.0, 8
  chunks in ``llama3_8b()``), costed under FSDP2 as its Trainer runs it. The decoder stops at the final norm
  (``_skip_lm_head``); the wrapper splits those hidden states along the sequence (``.contiguous()``: a copy of
  each chunk when the batch is above 1, views for one sequence) and, chunk by chunk, runs the output layer, the
  cross-entropy (``CrossEntropyLoss``: the ``c`` logits upcast to fp32) and **their backward** inside the loss
  call, adding each chunk's hidden-state gradient into an fp32 buffer (``GradAccumulator``, ``4 h`` a token);
  the decoder's backward runs after, from that buffer. The output layer's unit stays gathered over the chunks and
  syncs its gradient only at the last chunk (``set_requires_gradient_sync(False)`` for the others): FSDP2 keeps
  the unsharded gradient accumulated in the reduce dtype, fp32 (torch/distributed/fsdp/_fully_shard/
  _fsdp_param.py ``to_accumulated_grad_if_needed`` / ``accumulate_unsharded_grad_if_needed``@2.13, ``4 V h``),
  and at the last chunk copies it into the fp32 reduce-scatter input (``4 V h`` more) and reduce-scatters it
  into the sharded gradient (``4 V h / N``). Two moments can peak (traced, calibration/stacks/NOTES.md s4):

  - the last chunk's reduce-scatter (here: the end of the forward): per token the fp32 buffer (and the chunk
    copies), the last chunk's ``c`` logits (still bound in the loop) and its hidden-state gradient,
    ``(c V + c h) / N``; ``4 V h + 4 V h + 4 V h / N`` (one chunk: the unsharded gradient is then bf16,
    ``2 V h``, as autograd made it);
  - the last chunk's cross-entropy backward (here: the start of the backward): the chunk's ``c`` logits, fp32
    log-probabilities and the two fp32 gradients, ``(c + 12) V / N`` a token, beside the accumulated ``4 V h``.

  The output layer's own saved input is only one chunk's; the hidden states stay whole for the decoder's
  backward (the head's input term). Traced: calibration/stacks ``titan-*_loss-chunked``.

* **compiled** (``--compile``, torchtitan's ``compile.components`` with "loss", its default): the cross-entropy is
  one compiled graph; inductor's partitioner keeps its input (the ``c`` logits, as they are) and two fp32 values
  per row, not the fp32 log-probabilities (traced: calibration/stacks/compiled_block.py, 2,048 bytes for 256 rows
  against 131 MB eager), and its backward is one fused kernel that recomputes the softmax and writes the logits'
  gradient in their dtype (inductor's fusion: not traced). Standard: ``c u + 8`` at the end of the forward, ``2 c
  u`` at the start of the backward; chunked-backward: the last chunk's cross-entropy backward holds ``2 c V / N``
  a token instead of ``(c + 12) V / N``.

Gemma 2's final logit soft-capping keeps ``tanh``'s output for its backward: ``c u`` more for standard and
chunked-output, ``8 V`` more per chunk row for chunked (its fp32 ``tanh`` input and output; not traced).
"""

from __future__ import annotations

from dataclasses import dataclass

from engine.specs import Loss, ModelSpec, TrainingSetup
from engine.training.precision import FP32
from engine.training.stacks import FsdpPlan, fsdp_plan

#: TRL ``_CHUNKED_LM_HEAD_CHUNK_SIZE`` (trl/trainer/sft_trainer.py, TRL 1.4 to 1.14): tokens per chunk
TRL_CHUNK_TOKENS = 256
#: torchtune's ``num_output_chunks`` default (CEWithChunkedOutputLoss)
TORCHTUNE_CHUNKS = 8
#: TRL's chunked loss per token besides the hidden states: its int64 ``order`` and reordered labels
TRL_INDEX_BYTES = 16
#: fp32 ``[chunk, V]`` tensors alive at once in TRL's ``_chunk`` (logits, log-probs, exp, exp x log-probs)
TRL_CHUNK_ROWS = 4

FUSED_SOURCE = "Liger-Kernel ops/fused_linear_cross_entropy.py (LigerFusedLinearCrossEntropyFunction)"
CHUNKED_SOURCE = ("TRL 1.14.2 trl/trainer/sft_trainer.py (loss_type='chunked_nll': _chunked_cross_entropy_loss, "
                  "256-token checkpointed chunks), traced in calibration/")
CHUNKED_OUTPUT_SOURCE = ("torchtune modules/loss/ce_chunked_output_loss.py (CEWithChunkedOutputLoss), traced in "
                         "calibration/")
STANDARD_SOURCE = ("Hugging Face transformers ForCausalLMLoss: logits upcast to fp32, log-softmax kept for "
                   "backward")
CHUNKED_BACKWARD_SOURCE = ("torchtitan 0.3.0 components/loss.py ChunkedLossWrapper (output layer, loss and backward "
                           "per chunk); torch 2.13 FSDP2 _fsdp_param.py to_accumulated_grad_if_needed, "
                           "_fsdp_collectives.py foreach_reduce; traced in calibration/stacks/")
#: ``ChunkedLossWrapper.Config.num_chunks`` (torchtitan 0.3.0)
TITAN_CHUNKS = 8
#: fp32 ``[chunk, V]`` tensors of torchtitan's cross-entropy backward at once: log-probabilities, nll_loss's
#: gradient, log_softmax's gradient
TITAN_CE_ROWS = 3
#: int64 labels, copied with the hidden states when a chunk is not contiguous (batch above 1)
LABEL_BYTES = 8
#: a compiled cross-entropy keeps two fp32 values per row (traced: calibration/stacks/compiled_block.py)
COMPILED_ROW = 2 * FP32
COMPILED_SOURCE = ("torchtitan 0.3.0 distributed/compile.py (compile.components: model, loss); torch 2.13 inductor's "
                   "min_cut_rematerialization_partition, traced in calibration/stacks/compiled_block.py")


@dataclass(frozen=True, slots=True)
class LossCoeffs:
    """Bytes the loss holds at the end of the forward and at the start of the backward."""

    forward: float  # per token
    backward: float  # per token
    forward_const: int  # bytes independent of the tokens (a chunk of fixed size, a weight's gradient)
    backward_const: int
    formula: str
    source: str
    offloaded: float = 0.0  # per token: what the loss saves through activation offloading's hooks (host RAM)

    def scaled(self, per_token: float, const: float) -> LossCoeffs:
        """The share one GPU holds (a tensor / context / pipeline parallel rank: ``engine.training.stage``)."""
        return LossCoeffs(self.forward * per_token, self.backward * per_token, round(self.forward_const * const),
                          round(self.backward_const * const), self.formula, self.source, self.offloaded * per_token)


def fused_chunk_factor(m: ModelSpec) -> int:
    """Liger's ``inc_factor = ceil(V / h)``: a chunk holds about ``b s / inc_factor`` tokens."""
    return -(-m.vocab_size // m.hidden_size)


def default_chunks(loss: Loss) -> int | None:
    """``--loss-chunks`` when not given: torchtune's 8 for chunked-output, torchtitan's 8 for chunked-backward;
    None (TRL's 256-token chunks) for chunked; None for the losses that have no chunk count."""
    if loss is Loss.CHUNKED_BACKWARD:
        return TITAN_CHUNKS
    return TORCHTUNE_CHUNKS if loss is Loss.CHUNKED_OUTPUT else None


def loss_coeffs(m: ModelSpec, s: TrainingSetup, compute: int, residual: int, *, head_grad: int,
                head_copy: int = 0) -> LossCoeffs:
    """The loss of ``s.loss`` (module docstring). ``head_grad``: bytes of the output weight's gradient when it
    trains (0 for LoRA); ``head_copy``: autocast's 16-bit copy of an fp32 output weight (0 without one)."""
    if s.loss is Loss.CHUNKED:
        return _trl_chunked(m, s, compute, residual, g=head_grad, copy=head_copy)
    if s.loss is Loss.CHUNKED_BACKWARD:
        return _titan_chunked(m, s, compute, residual)
    v, h, c = m.vocab_size, m.hidden_size, compute
    if s.compile and s.loss is Loss.STANDARD:  # torchtitan's compiled CrossEntropyLoss (module docstring)
        return LossCoeffs(c * v + COMPILED_ROW, 2 * c * v, 0, 0,
                          f"b x s x (vocab x {c} + {COMPILED_ROW}) (compiled: the logits and two fp32 per row), x "
                          f"vocab x {2 * c} in backward (their gradient, one fused kernel)", COMPILED_SOURCE)
    upcast = FP32 if c < FP32 else 0
    softcap = c * v if m.logit_softcap else 0  # tanh's output, kept for its backward
    if s.loss is Loss.CHUNKED_OUTPUT:
        n = s.loss_chunks or TORCHTUNE_CHUNKS
        return LossCoeffs((c + FP32) * v + upcast * v / n + softcap, (FP32 + 2 * FP32 / n) * v + softcap, 0, 0,
                          f"b x s x vocab x ({c} + 4 + {upcast}/{n}) forward, x (4 + 8/{n}) backward "
                          f"({n} chunks: 16-bit logits and fp32 log-probs whole, upcast and gradients per chunk)",
                          CHUNKED_OUTPUT_SOURCE)
    if s.loss is Loss.FUSED_LINEAR_CE:
        chunk = 2 * c * (v + h) / fused_chunk_factor(m)
        return LossCoeffs(residual * h + FP32 + chunk, residual * h, head_grad, head_grad,
                          f"b x s x (hidden x {residual} + 4) + one chunk of logits (never the whole vocabulary)"
                          + (" + the output weight's gradient" if head_grad else ""), FUSED_SOURCE)
    return LossCoeffs((c + upcast + FP32) * v + softcap, 3 * FP32 * v + softcap, 0, 0,
                      "b x s x vocab x 12 (fp32 log-probs, their gradient, the input gradient)", STANDARD_SOURCE)


def _trl_chunked(m: ModelSpec, s: TrainingSetup, c: int, residual: int, *, g: int, copy: int) -> LossCoeffs:
    """TRL's chunked_nll (module docstring): per token the hidden states and their reordered copy (or gradient);
    per chunk row ``16 V`` (``+ 8 V`` soft-capped); the output weight's gradient gathered over the chunks; an fp32
    weight's 16-bit autocast copy, made in each chunk and kept for its backward in the rerun."""
    v, h = m.vocab_size, m.hidden_size
    row = TRL_CHUNK_ROWS * FP32 * v + (2 * FP32 * v if m.logit_softcap else 0)
    per_token = 2 * residual * h + TRL_INDEX_BYTES
    # offloaded, the chunks' inputs (the reordered copy), its labels and ``order`` go to host RAM in the forward:
    # the backward keeps only the hidden states' gradient and one chunk's
    moved = residual * h + TRL_INDEX_BYTES if s.activation_offload else 0
    back = per_token - moved
    extra = ("; + the output weight's gradient gathered over the chunks" if g else "") + (
        "; + its 16-bit autocast copy, per chunk" if copy else "")
    if s.loss_chunks is None:  # TRL's constant chunk: a fixed cost
        t = TRL_CHUNK_TOKENS
        forward = max(t * row, copy + c * t * v)  # the chunk's fp32 tensors, or the weight's copy and its matmul
        return LossCoeffs(per_token, back, forward, max(t * row + copy + g, 3 * g),
                          f"b x s x (hidden x 2 x {residual} + 16) + one {t}-token chunk of fp32 logits x "
                          f"{TRL_CHUNK_ROWS}" + extra, CHUNKED_SOURCE, moved)
    n = s.loss_chunks
    return LossCoeffs(per_token + row / n, back + row / n, 0, copy + g,
                      f"b x s x (hidden x 2 x {residual} + 16 + vocab x {TRL_CHUNK_ROWS * FP32}/{n}) ({n} chunks, "
                      f"each rerun in backward)" + extra, CHUNKED_SOURCE, moved)


def _titan_chunked(m: ModelSpec, s: TrainingSetup, c: int, residual: int) -> LossCoeffs:
    """torchtitan's ChunkedLossWrapper under FSDP2 (module docstring): the last chunk's reduce-scatter at the end
    of the forward, its cross-entropy backward at the start of the backward."""
    v, h, n = m.vocab_size, m.hidden_size, s.loss_chunks or TITAN_CHUNKS
    fsdp, shards = fsdp_plan(s) or FsdpPlan(reshard_blocks=True), s.dp * s.parallel.cp
    q, g = fsdp.reduce_bytes, v * h  # the output layer's gradient; the final norm's comes in the decoder's backward
    copies = residual * h + LABEL_BYTES if s.batch > 1 else 0  # _chunk_local's .contiguous() of each chunk
    per_token = FP32 * h + copies  # GradAccumulator's fp32 buffer
    accumulated = q * g if n > 1 else fsdp.param_bytes * g  # one chunk: the unsharded gradient as autograd made it
    scatter = accumulated + q * g + -(-q * g // shards)
    ce = 2 * c if s.compile else c + TITAN_CE_ROWS * FP32  # compiled: the logits and their fused gradient
    return LossCoeffs(per_token + c * (v + h) / n, per_token + ce * v / n, scatter,
                      q * g if n > 1 else 0,
                      f"b x s x ({FP32} x hidden + vocab x {ce}/{n}) + the output layer's "
                      f"gradient: fp32 unsharded, accumulated over {n} chunks, copied into the fp32 reduce-scatter "
                      f"input and scattered over {shards} GPUs", CHUNKED_BACKWARD_SOURCE)
