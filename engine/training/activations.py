"""Activations saved for backward over the whole model: every decoder layer, the head and the loss, as
coefficients of tokens (b*s) and of b*s^2.

What one layer saves is ``engine.training.saved`` (the method, Korthikanti et al. 2022, arXiv:2205.05198, s4.1,
applied op by op to the Hugging Face layers, and its sources); here the layers are put together in runs of
identical layers, with the final norm, the output layer's input and the loss over the vocabulary
(``engine.training.loss``). The training plan (``engine.training.plan``) computes these once per model and setup;
a pipeline stage or a tensor-parallel rank rescales them (``engine.training.stage``).
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from engine.layers import expand, kind_of, runs
from engine.specs import PARTIAL_METHODS, Attention, LayerSpec, Loss, ModelSpec, SavedModule, TrainingSetup
from engine.training.loss import LossCoeffs, loss_coeffs
from engine.training.partial import graph_from, kept_whole, trained_layers, trained_plan
from engine.training.policy import stack_policy
from engine.training.precision import DtypePlan
from engine.training.saved.inputs import Ctx, norm
from engine.training.saved.layer import LayerCoeffs, layer_coeffs

__all__ = ["ActivationCoeffs", "LayerCoeffs", "activation_coeffs", "model_coeffs", "same_weights",
           "windows_reached"]


@dataclass(frozen=True, slots=True)
class ActivationCoeffs:
    """All layers (as runs of identical layers, first layer first) plus the head and the loss."""

    segments: tuple[tuple[int, LayerCoeffs], ...]
    kinds: tuple[LayerSpec, ...]  # one layer kind per segment (its parameters and gradients)
    head_saved: float  # final norm + lm_head input, per token
    head_input: float  # the lm_head's own saved input, per token (part of head_saved; stays on the GPU offloaded)
    head_copies: int  # autocast copy of the lm_head weight
    loss: LossCoeffs  # what the loss over the vocabulary holds (engine.training.loss)
    end_transient: float  # the gradient reaching the embedding, per token

    @property
    def per_layer(self) -> tuple[LayerCoeffs, ...]:
        """Every decoder layer's coefficients, bottom first."""
        return tuple(lc for n, lc in self.segments for _ in range(n))


def windows_reached(m: ModelSpec, s: TrainingSetup) -> tuple[int, ...]:
    """The sliding windows (SDPA only) that ``s.seq_len`` reaches: the coefficients depend on them, so the
    plan's cache keys on them (everything else in the coefficients is independent of the sequence length)."""
    if s.attention is not Attention.SDPA:
        return ()
    windows = {r.attention.window for r in runs(m) if r.attention is not None}
    return tuple(sorted(w for w in windows if w is not None and s.seq_len >= w))


def same_weights(a: LayerSpec, b: LayerSpec) -> bool:
    """Two layer kinds with the same parameters (they may differ in their sliding window only)."""
    return _windowless(a) == _windowless(b)


def _windowless(k: LayerSpec) -> LayerSpec:
    if k.attention is None:
        return k
    return k.model_copy(update={"attention": k.attention.model_copy(update={"window": None})})


def _partial_layers(m: ModelSpec, s: TrainingSetup, dtypes: DtypePlan,
                    windows: tuple[int, ...]) -> list[tuple[int, LayerSpec, LayerCoeffs]]:
    """Freeze tuning and BAdam (``engine.training.partial``): a trained layer costs as full fine-tuning in the
    trained dtypes, a frozen one as a LoRA base without adapters, a frozen one below the graph nothing."""
    trained_ctx = Ctx(m, s, trained_plan(s, dtypes), windows, full=True)
    frozen_ctx = Ctx(m, s, dtypes, windows, full=False)
    start = graph_from(m, s)
    out = []
    for i, (kind, trains) in enumerate(zip(expand(runs(m)), trained_layers(m, s), strict=True)):
        lc = NO_GRAPH if i < start else layer_coeffs(trained_ctx if trains else frozen_ctx, kind)
        if i >= start and not trains and kept_whole(s):  # not checkpointed: what it saves stays whole, and its
            lc = replace(lc, checkpoint=lc.saved, saved=0.0)  # backward recomputes nothing
        out.append((1, kind, lc))
    return out


#: a layer that builds no autograd graph keeps nothing and runs no backward
NO_GRAPH = LayerCoeffs(0.0, 0.0, 0.0, 0.0, 0.0, 0)


def model_coeffs(m: ModelSpec, s: TrainingSetup, dtypes: DtypePlan, windows: tuple[int, ...]) -> ActivationCoeffs:
    """The coefficients of ``m`` under ``s`` with the plan's dtypes and reached windows (independent of batch and
    sequence length, but for those windows): consecutive runs that cost the same are one segment."""
    ctx = Ctx(m, s, dtypes, windows)
    segments: list[tuple[int, LayerCoeffs]] = []
    kinds: list[LayerSpec] = []
    if s.method in PARTIAL_METHODS:
        for count, kind, lc in _partial_layers(m, s, dtypes, windows):
            if segments and segments[-1][1] == lc and same_weights(kinds[-1], kind):
                segments[-1] = (segments[-1][0] + count, lc)
            else:
                segments.append((count, lc))
                kinds.append(kind)
    for i, run in enumerate(runs(m) if s.method not in PARTIAL_METHODS else ()):
        kind = kind_of(run)
        pieces = [(run.count, layer_coeffs(ctx, kind))]
        if i == 0 and ctx.int8:  # the bottom layer's input needs no gradient (engine.training.saved.layer)
            pieces = [(1, layer_coeffs(ctx, kind, first=True))] + ([(run.count - 1, pieces[0][1])]
                                                                  if run.count > 1 else [])
        for count, lc in pieces:
            if segments and segments[-1][1] == lc and same_weights(kinds[-1], kind):
                segments[-1] = (segments[-1][0] + count, lc)
            else:
                segments.append((count, lc))
                kinds.append(kind)
    v, h, c = m.vocab_size, m.hidden_size, ctx.c
    # Liger and TRL's chunked loss read the output weight themselves: the output layer saves no input
    fused = s.loss in (Loss.FUSED_LINEAR_CE, Loss.CHUNKED)
    head_trains = ctx.full or SavedModule.LM_HEAD in s.modules_to_save  # a trained copy saves its input too
    head_in = (c if ctx.autocast and ctx.r != c else ctx.r) * h if head_trains and not fused else 0
    head_grad = v * h * dtypes.weight if ctx.full else 0
    head_copy = ctx.c * v * h if ctx.head_copy else 0
    if s.trainable_tokens and m.tie_embeddings:  # PEFT's tied TrainableTokensLayer: F.linear(x, W with the new
        head_copy += v * h * dtypes.weight  # rows) saves that merged table for the output layer's backward
    chunk_copy = s.loss is Loss.CHUNKED  # TRL's chunks cast the weight in each chunk: the loss counts it
    return ActivationCoeffs(
        segments=tuple(segments),
        kinds=tuple(kinds),
        head_saved=norm(ctx, h) + head_in,
        head_input=head_in,
        head_copies=0 if chunk_copy else head_copy,
        loss=loss_coeffs(m, s, c, ctx.r, head_grad=head_grad, head_copy=head_copy),
        end_transient=ctx.r * h,
    )


def activation_coeffs(m: ModelSpec, s: TrainingSetup) -> ActivationCoeffs:
    """:func:`model_coeffs` with the setup's own dtypes (its stack's policy) and windows: a thin wrapper the tests
    use to read one layer's coefficients (the estimate reads them from its plan, ``engine.training.plan``)."""
    return model_coeffs(m, s, stack_policy(s).dtypes, windows_reached(m, s))
