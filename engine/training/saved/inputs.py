"""What a layer's linears and norms keep of their inputs for backward, per token (``engine.training.saved``)."""

from __future__ import annotations

from engine.params import Linear, lora_targets
from engine.specs import LayerSpec, Method, ModelSpec, NormKind, TrainingSetup
from engine.training.precision import FP32, DtypePlan

MASK = 1  # a dropout mask: one bool byte per element


class Ctx:
    """The dtypes and switches one coefficient computation needs: the setup's dtype plan (from the training
    plan, ``engine.training.plan``), the sliding windows its sequence reaches."""

    def __init__(self, m: ModelSpec, s: TrainingSetup, dtypes: DtypePlan, windows: tuple[int, ...]) -> None:
        self.m, self.s, self.dtypes, self.windows = m, s, dtypes, windows
        self.r, self.c = dtypes.residual, dtypes.compute
        self.autocast = dtypes.compute < FP32
        self.full = s.method is Method.FULL
        self.copies = dtypes.autocast_copies
        self.o = dtypes.out  # a frozen linear's output (``engine.training.policy``: hf-trainer's 4-bit ones fp32)
        q = s.quant
        head_fp32 = s.method is Method.QLORA and dtypes.frozen == FP32 and (
            q.keep_embeddings_16bit if m.tie_embeddings else q.keep_lm_head_16bit)
        #: the output layer's weight is fp32 under 16-bit autocast: the matmul saves autocast's copy of it
        self.head_copy = self.autocast and (self.copies or head_fp32)

    def adapted(self, layer: LayerSpec) -> set[str]:
        return {x.role for x in lora_targets(self.m, layer, self.s.lora.targets)}


def linear_inputs(ctx: Ctx, group: list[Linear], src: int, adapted: set[str]) -> float:
    """Bytes per token that the linears of one group (sharing one input) save of that input.

    Full fine-tuning: each linear saves its input; autocast casts a wider input once per linear.
    LoRA: the frozen base saves nothing; each adapted linear saves its own 16-bit copy (PEFT casts to fp32,
    autocast back), plus a dropout mask when lora_dropout > 0, plus lora_A's output.
    """
    if not group:
        return 0.0
    n_in = group[0].n_in
    if ctx.full:
        own = ctx.autocast and src != ctx.c
        return (len(group) * ctx.c if own else src) * n_in
    hits = [x for x in group if x.role in adapted]
    if not hits:
        return 0.0
    drop = ctx.s.lora.dropout > 0
    per = (ctx.c if ctx.autocast else 0) + (MASK + (0 if ctx.autocast else FP32) if drop else 0)
    shared = src if not ctx.autocast and not drop else 0
    rank_out = ctx.c * ctx.s.lora.rank
    return sum(per * n_in + rank_out for _ in hits) + shared * n_in


def norm(ctx: Ctx, width: int) -> float:
    """RMSNorm (HF) keeps its fp32 input and, when its weight trains, the normalised tensor (in the input's
    dtype; Gemma's stays fp32). LayerNorm keeps its input plus fp32 mean and rstd per token."""
    if ctx.m.norm is NormKind.LAYERNORM:
        return ctx.r * width + 2 * FP32
    normalised = FP32 if ctx.m.norm is NormKind.RMSNORM_FP32 else ctx.r
    return FP32 * width + (normalised * width if ctx.full else 0)
