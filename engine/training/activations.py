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
from engine.training.stacks import LayerImpl, StackError, layer_impl

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


def checkpointed_whole(lc: LayerCoeffs) -> LayerCoeffs:
    """One layer checkpointed whole among layers that are not (``checkpoint_every`` k > 1): it keeps only its input
    and, in its backward, saves again all it saves unchecked (Chen et al. 2016, arXiv:1604.06174; torchtune
    training/activations.py ``checkpoint_wrapper``@0.6.1: the non-reentrant ``ptd_checkpoint_wrapper`` around the
    k-th, 2k-th, ... layer). Autocast's weight copies and PEFT's merged expert weights are not costed so."""
    if lc.weight_copies or lc.saved_fixed:
        raise StackError("--checkpoint-every with autocast's weight copies (amp precisions) or LoRA on fused "
                         "experts is not costed")
    return replace(lc, saved=lc.checkpoint, saved_bs2=0.0, recomputed=lc.saved + lc.recomputed,
                   recomputed_bs2=lc.saved_bs2 + lc.recomputed_bs2, saved_again=lc.checkpoint_again,
                   saved_parts=(lc.checkpoint,))


def _first_norm_unsaved(ctx: Ctx, lc: LayerCoeffs) -> LayerCoeffs:
    """The first layer where the embedding's output takes no gradient (``LayerImpl.embedding_output_no_grad``):
    its first norm, frozen under LoRA, saves nothing (traced: torchtune's QLoRA without checkpointing keeps two
    norms' fp32 inputs per layer but the first layer's one)."""
    first = norm(ctx, ctx.m.hidden_size)
    return replace(lc, saved=lc.saved - first, saved_parts=lc.saved_parts[1:])


def _each(lc: LayerCoeffs, kind: LayerSpec, first: int, count: int, every: int) -> list[tuple[int, LayerCoeffs,
                                                                                           LayerSpec]]:
    """``count`` layers from layer ``first`` (counting from 0): one entry, or one per layer when only every
    ``every``-th is checkpointed (the ``every``-th, 2 x ``every``-th, ... counting from 1)."""
    if every == 1:
        return [(count, lc, kind)]
    whole = checkpointed_whole(lc)
    return [(1, whole if (first + i + 1) % every == 0 else lc, kind) for i in range(count)]


def _bottom(ctx: Ctx, kind: LayerSpec, lc: LayerCoeffs) -> LayerCoeffs | None:
    """The bottom layer's coefficients where they differ from its run's (None where they do not): an 8-bit base's
    q, k and v keep no input there (``engine.training.saved.layer``), and where the embedding's output takes no
    gradient its first norm saves nothing (:func:`_first_norm_unsaved`)."""
    if ctx.int8:
        return layer_coeffs(ctx, kind, first=True)
    if ctx.impl.embedding_output_no_grad and not ctx.full:
        return _first_norm_unsaved(ctx, lc)
    return None


def _layers(ctx: Ctx, m: ModelSpec, every: int) -> list[tuple[int, LayerCoeffs, LayerSpec]]:
    """(count, coefficients, kind) of the layers bottom first, in runs of identical ones."""
    out: list[tuple[int, LayerCoeffs, LayerSpec]] = []
    index = 0
    for run in runs(m):
        kind = kind_of(run)
        lc = layer_coeffs(ctx, kind)
        count = run.count
        bottom = _bottom(ctx, kind, lc) if index == 0 else None
        if bottom is not None:
            out += _each(bottom, kind, 0, 1, every)
            index, count = 1, count - 1
        if count:
            out += _each(lc, kind, index, count, every)
            index += count
    return out


def _partial_layers(m: ModelSpec, s: TrainingSetup, dtypes: DtypePlan, windows: tuple[int, ...],
                    impl: LayerImpl | None) -> list[tuple[int, LayerCoeffs, LayerSpec]]:
    """Freeze tuning and BAdam (``engine.training.partial``): a trained layer costs as full fine-tuning in the
    trained dtypes, a frozen one as a LoRA base without adapters, a frozen one below the graph nothing."""
    if s.checkpoint_every > 1:
        raise StackError("--checkpoint-every with freeze tuning or BAdam is not costed")
    trained_ctx = Ctx(m, s, trained_plan(s, dtypes), windows, impl, full=True)
    frozen_ctx = Ctx(m, s, dtypes, windows, impl, full=False)
    start = graph_from(m, s)
    out = []
    for i, (kind, trains) in enumerate(zip(expand(runs(m)), trained_layers(m, s), strict=True)):
        lc = NO_GRAPH if i < start else layer_coeffs(trained_ctx if trains else frozen_ctx, kind)
        if i >= start and not trains and kept_whole(s):  # not checkpointed: what it saves stays whole, and its
            lc = replace(lc, checkpoint=lc.saved, saved=0.0)  # backward recomputes nothing
        out.append((1, lc, kind))
    return out


#: a layer that builds no autograd graph keeps nothing and runs no backward
NO_GRAPH = LayerCoeffs(0.0, 0.0, 0.0, 0.0, 0.0, 0)


def model_coeffs(m: ModelSpec, s: TrainingSetup, dtypes: DtypePlan, windows: tuple[int, ...],
                 impl: LayerImpl | None = None) -> ActivationCoeffs:
    """The coefficients of ``m`` under ``s`` with the plan's dtypes, reached windows and the stack's way of
    computing a layer (independent of batch and sequence length, but for those windows): consecutive layers that
    cost the same are one segment."""
    ctx = Ctx(m, s, dtypes, windows, impl)
    segments: list[tuple[int, LayerCoeffs]] = []
    kinds: list[LayerSpec] = []
    partial = s.method in PARTIAL_METHODS
    pieces = _partial_layers(m, s, dtypes, windows, impl) if partial else _layers(ctx, m, s.checkpoint_every)
    for count, lc, kind in pieces:
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
    """:func:`model_coeffs` with the setup's own dtypes (its stack's policy), windows and layers: a thin wrapper the
    tests use to read one layer's coefficients (the estimate reads them from its plan, ``engine.training.plan``)."""
    return model_coeffs(m, s, stack_policy(s).dtypes, windows_reached(m, s), layer_impl(s))
