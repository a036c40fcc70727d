"""What a layer's linears and norms keep of their inputs for backward, per token (``engine.training.saved``)."""

from __future__ import annotations

from engine.params import Linear, lora_targets
from engine.specs import PARTIAL_METHODS, LayerSpec, Method, ModelSpec, NormKind, TrainingSetup
from engine.training.precision import FP32, DtypePlan
from engine.training.stacks import LayerImpl, NormImpl, layer_impl

MASK = 1  # a dropout mask: one bool byte per element


def residual_bytes(m: ModelSpec, dtypes: DtypePlan) -> int:
    """Bytes of one element of the residual stream between layers: the regime's, or fp32 where the model keeps it
    so (Mamba's ``residual_in_fp32``: ``residual.to(torch.float32)`` before the add, modeling_mamba.py MambaBlock;
    the block casts it back to the norm's dtype first, so what a layer saves is unchanged)."""
    return FP32 if m.residual_fp32 else dtypes.residual


class Ctx:
    """The dtypes and switches one coefficient computation needs: the setup's dtype plan (from the training
    plan, ``engine.training.plan``), the sliding windows its sequence reaches, how the stack computes a layer
    (``engine.training.stacks.LayerImpl``; the setup's stack's when not given)."""

    def __init__(self, m: ModelSpec, s: TrainingSetup, dtypes: DtypePlan, windows: tuple[int, ...],
                 impl: LayerImpl | None = None, *, full: bool | None = None) -> None:
        self.m, self.s, self.dtypes, self.windows = m, s, dtypes, windows
        self.impl = impl or layer_impl(s)
        self.r, self.c = dtypes.residual, dtypes.compute
        self.stream = residual_bytes(m, dtypes)  # the residual stream between layers (fp32 where the model says)
        self.autocast = dtypes.compute < FP32
        #: the layer's weights train (full fine-tuning; freeze tuning's and BAdam's trained layers: ``full``)
        self.full = s.method is Method.FULL if full is None else full
        self.copies = dtypes.autocast_copies
        self.int8 = s.method is Method.LORA_8BIT  # bitsandbytes' MatMul8bitLt keeps each input (linear_inputs)
        self.o = dtypes.out  # a frozen linear's output (``engine.training.policy``: hf-trainer's 4-bit ones fp32)
        q = s.quant
        head_fp32 = s.method is Method.QLORA and dtypes.frozen == FP32 and (
            q.keep_embeddings_16bit if m.tie_embeddings else q.keep_lm_head_16bit)
        #: the output layer's weight is fp32 under 16-bit autocast: the matmul saves autocast's copy of it
        self.head_copy = self.autocast and (self.copies or head_fp32)

    def adapted(self, layer: LayerSpec) -> set[str]:
        if self.s.method in PARTIAL_METHODS:  # freeze tuning, BAdam: no adapter anywhere
            return set()
        return {x.role for x in lora_targets(self.m, layer, self.s.lora.targets)}


def int8_kept(ctx: Ctx, group: list[Linear], src: int, *, input_grad: bool = True, held: bool = False) -> float:
    """Bytes per token an 8-bit base's linears of one group keep of their shared input (:func:`linear_inputs`):
    bitsandbytes keeps it on the autograd context (``ctx.tensors``), not through ``save_for_backward``, so
    checkpointing does not free it (traced: every layer's 8-bit inputs live through the backward of a checkpointed
    run); nothing when the storage is held already (``held``: o_proj's input is SDPA's output)."""
    if not (ctx.int8 and group and input_grad and not held):
        return 0.0
    return float(src * group[0].n_in)


def linear_inputs(ctx: Ctx, group: list[Linear], src: int, adapted: set[str], *, input_grad: bool = True,
                  held: bool = False) -> float:
    """Bytes per token that the linears of one group (sharing one input) save of that input.

    Full fine-tuning: each linear saves its input; autocast casts a wider input once per linear.
    LoRA: the frozen base saves nothing; each adapted linear saves its own 16-bit copy (PEFT casts to fp32,
    autocast back), plus a dropout mask when lora_dropout > 0, plus lora_A's output. Where the stack's adapters
    read the input as it is (torchtune, ``LayerImpl.lora_shared_input``) the group saves it once; with dropout each
    adapter keeps its dropped copy and mask instead. OFT (PEFT 0.21.2
    ``oft.Linear.forward``: the input cast to the rotation's fp32, rotated by an einsum that autocast runs in 16
    bits): that 16-bit copy, and no second factor's output.
    An 8-bit base (``lora-8bit``): bitsandbytes 0.50.2 ``MatMul8bitLt.forward`` keeps its input ``A`` whenever it
    needs a gradient (``ctx.tensors = (CAt, subA, A)``, autograd/_functions.py), whether or not the linear is
    adapted: the group's input once (one storage), unless LoRA saves that very tensor already; and PEFT's wrapper of
    it (peft/tuners/lora/bnb.py ``Linear8bitLt.forward``, PEFT 0.21.2) casts the input to the adapter's dtype only
    outside autocast, so under autocast ``lora_A`` saves that same tensor, not a copy. Its ``subA`` (the
    input's outlier columns, past ``llm_int8_threshold`` 6.0) depends on the values: not counted (Dettmers et al.
    2022, LLM.int8(), arXiv:2208.07339, s3.2: a few hidden dimensions in large models).
    """
    if not group:
        return 0.0
    n_in = group[0].n_in
    if ctx.full:
        own = ctx.autocast and src != ctx.c
        return (len(group) * ctx.c if own else src) * n_in
    hits = [x for x in group if x.role in adapted]
    base = ctx.int8 and input_grad and not held
    if not hits:
        return float(src * n_in) if base else 0.0
    drop = ctx.s.lora.dropout > 0
    if ctx.impl.lora_shared_input:
        rank = ctx.c * ctx.s.lora.rank
        return sum((ctx.c + MASK) * n_in + rank for _ in hits) if drop else src * n_in + rank * len(hits)
    if ctx.int8 and ctx.autocast:  # PEFT's bnb Linear8bitLt.forward casts nothing under autocast: lora_A reads x
        per = ctx.c + MASK if drop else 0  # (or its dropped copy and mask), which the base keeps anyway
    else:
        per = (ctx.c if ctx.autocast else 0) + (MASK + (0 if ctx.autocast else FP32) if drop else 0)
    shared = 0 if held else src if (not ctx.autocast and not drop) or base else 0
    rank_out = 0 if ctx.s.method is Method.OFT else ctx.c * ctx.s.lora.rank  # OFT: no second factor
    return sum(per * n_in + rank_out for _ in hits) + shared * n_in


def norm(ctx: Ctx, width: int) -> float:
    """RMSNorm (HF) keeps its fp32 input and, when its weight trains, the normalised tensor (in the input's
    dtype; Gemma's stays fp32). LayerNorm keeps its input plus fp32 mean and rstd per token. Cohere's centred
    norm keeps its two fp32 copies of ``x - mean`` (``pow``'s and the product's), rstd, and when its weight
    trains the fp32 normalised tensor.

    Another stack's RMSNorm (``engine.training.stacks.NormImpl``): torch's ``nn.RMSNorm`` on CUDA runs
    ``aten::_fused_rms_norm``, whose backward (``_fused_rms_norm_backward(grad_out, input, normalized_shape, rstd,
    weight, output_mask)``, torch 2.13) keeps the input and one fp32 rstd per token (traced through torchtitan,
    the kernel's autograd emulated: calibration/stacks/torchtitan_step.py ``_rms_norm_as_cuda``); torchtune's
    ``F.rms_norm(x.float(), weight=scale)`` takes the composite path (its weight's dtype differs:
    aten/src/ATen/native/layer_norm.cpp ``rms_norm_symint``), keeping the fp32 input, the fp32 rsqrt and, when the
    scale trains, the fp32 normalised tensor (torchtune/modules/rms_norm.py@0.6.1)."""
    if ctx.m.norm is NormKind.LAYERNORM:
        return ctx.r * width + 2 * FP32
    if ctx.m.norm is NormKind.CENTRED_FP32:
        return 2 * FP32 * width + FP32 + (FP32 * width if ctx.full else 0)
    if ctx.impl.norm is NormImpl.FUSED:
        return ctx.r * width + FP32
    if ctx.impl.norm is NormImpl.COMPOSITE:
        return FP32 * width + FP32 + (FP32 * width if ctx.full else 0)
    normalised = FP32 if ctx.m.norm is NormKind.RMSNORM_FP32 else ctx.r
    return FP32 * width + (normalised * width if ctx.full else 0)
