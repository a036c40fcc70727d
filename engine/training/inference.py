"""A forward pass without gradients: what a frozen model (a reference, a reward model) needs on top of its weights.

Under ``torch.no_grad()`` autograd saves nothing, so a layer's tensors die as soon as the next op has read them.
What is live at the worst moment is the residual stream plus the working set of one layer, plus, for a language
model head, the logits and their log-softmax:

``tokens x [2 r h + max(attention, mlp)] + tokens x V x (c + 4 + 4) + (eager) b x a x s^2 x (4 + c)``

* residual stream: the layer's input and the residual sum, ``2 r h`` per token (r: residual dtype bytes);
* attention: the normed input, every projection's output and the attention output,
  ``c (h + sum of projection widths + o's input)`` per token (c: compute dtype bytes);
* MLP: the normed input and, for SwiGLU, ``act(gate)``, ``up`` and their product, ``c (h + 3 i)``; a plain MLP
  (GPT-2) holds ``c (h + 2 i)``; a mixture of experts counts the k routed and the shared experts' widths;
* logits: the head's output in c, upcast to fp32 and fp32 log-probabilities (Hugging Face's loss and TRL's
  ``selective_log_softmax`` both take a log-softmax over the vocabulary), ``(c + 4 + 4) V`` per token; a reward or
  value head outputs one number per token instead (``logits=False``);
* eager attention materialises fp32 scores and their 16-bit softmax, ``b a s^2 (4 + c)``, which FlashAttention
  avoids (Dao et al. 2022, arXiv:2205.14135, s3.1).

Method as in ``engine.training.activations`` (Korthikanti et al. 2022, arXiv:2205.05198, s4.1, applied op by op),
without the tensors saved for backward. KV caches are not kept: one forward over whole sequences.
"""

from __future__ import annotations

from engine.layers import runs
from engine.params import attention_linears, mixer_linears
from engine.results import Term
from engine.specs import Attention, Method, MlpSpec, ModelSpec, TrainingSetup
from engine.terms import TermName
from engine.training.precision import FP32, HALF, dtype_plan

SOURCE = ("Korthikanti et al. 2022 (arXiv:2205.05198) s4.1 method without saved tensors; Dao et al. 2022 "
          "(FlashAttention, arXiv:2205.14135) s3.1; TRL selective_log_softmax for the log-probabilities")


def _dtypes(s: TrainingSetup) -> tuple[int, int]:
    """(residual, compute) bytes: the training regime's, or 16 bits for a LoRA / QLoRA base."""
    plan = dtype_plan(s.precision)
    if s.method is not Method.FULL:
        return HALF, HALF
    return plan.residual, plan.compute


def _mlp_width(p: MlpSpec) -> int:
    """The MLP's width a token passes through: the dense part, the k routed experts and the shared expert."""
    e = p.moe
    if e is None:
        return p.intermediate_size
    k = e.num_experts if e.dense_dispatch else e.experts_per_token
    return p.intermediate_size + k * e.expert_intermediate_size + e.shared_width


def layer_working_set(m: ModelSpec, s: TrainingSetup) -> int:
    """Bytes per token live while the widest layer runs (module docstring, first three bullets)."""
    r, c = _dtypes(s)
    h = m.hidden_size
    widest = 0
    for run in runs(m):
        attention = mlp = 0
        if run.attention is not None:
            attn = attention_linears(run.attention, h)
            o_in = next(x.n_in for x in attn if x.role == "o")
            attention = c * (h + sum(x.n_out for x in attn) + o_in)
        if run.mixer is not None:  # the normed input, every projection's output, the mixer's output
            mixed = mixer_linears(run.mixer, h)
            attention += c * (h + sum(x.n_out for x in mixed) + mixed[-1].n_in)
        if run.mlp is not None:
            per_width = 3 if run.mlp.kind.gated else 2
            mlp = c * (h + per_width * _mlp_width(run.mlp))
            if run.mlp.moe is not None:
                mlp += FP32 * run.mlp.moe.num_experts  # router logits
        widest = max(widest, attention, mlp)
    return 2 * r * h + widest


def forward_bytes(m: ModelSpec, s: TrainingSetup, sequences: int, logits: bool = True,
                  logit_tokens: int | None = None) -> Term:
    """Peak extra bytes of one no-grad forward over ``sequences`` x ``s.seq_len`` tokens (module docstring).

    ``logit_tokens``: positions per sequence whose logits are made (transformers' ``logits_to_keep``, which TRL's
    GRPOTrainer sets to the completion length + 1; generation keeps 1); None: all of them."""
    _, c = _dtypes(s)
    tokens = sequences * s.seq_len
    kept = tokens if logit_tokens is None else sequences * min(logit_tokens, s.seq_len)
    head = (c + FP32 + FP32) * m.vocab_size if logits else 0
    eager = sequences * m.num_heads * s.seq_len**2 * (FP32 + c) if s.attention is Attention.EAGER else 0
    total = tokens * layer_working_set(m, s) + kept * head + eager
    positions = "tokens" if logit_tokens is None else f"{sequences} x {min(logit_tokens, s.seq_len):,} positions"
    formula = "tokens x [2 r h + max(attention, mlp) working set]" + (f" + {positions} x V x (c + 8)" if logits
                                                                        else "")
    if eager:
        formula += " + b x heads x s^2 x (4 + c) (eager scores)"
    return Term(TermName.FORWARD, total, formula, SOURCE, f"{sequences} x {s.seq_len:,} tokens, no gradients")
