"""What each training stack runs around the matmuls: the elementwise kernels of one decoder layer, the loss, the
LoRA wrapper, the optimizer's implementation and how it overlaps communication.

Bytes are those each kernel reads and writes per element of the tensor it walks (bf16 = 2, fp32 = 4), counted
from the stack's own code at a named version; kernels are the launches of that code in eager PyTorch. A
``torch.compile``'d step (``COMPILED``) fuses each run of elementwise kernels between two matmuls into one
(PyTorch 2 paper, Ansel et al. 2024, s4: inductor's pointwise fusion), so it reads its inputs and writes its
outputs once.

* hf-trainer: transformers 5.x ``models/llama/modeling_llama.py``: ``LlamaRMSNorm.forward`` (to fp32, pow, mean,
  add, rsqrt, mul, to, weight mul: 8 kernels, 36 bytes per element forward), ``apply_rotary_pos_emb`` and
  ``rotate_half`` (mul, neg, cat, mul, add: 5 kernels, 20 bytes per q/k element), ``LlamaMLP.forward``
  (act_fn(gate) * up: silu and mul, 10 bytes per intermediate element), the residual adds, ``sdpa_attention_forward``'s
  ``transpose(1, 2).contiguous()``; ``loss_utils.ForCausalLMLoss`` (``logits.float()`` then ``cross_entropy``:
  14 bytes per logit forward, 22 backward); PEFT 0.21 ``tuners/lora/layer.py`` ``Linear.forward`` under bf16
  autocast with fp32 adapters (``_cast_input_dtype`` to fp32, autocast back to bf16, ``lora_B(...) * scaling``
  and the add: 12 bytes per input and 10 per output element forward); Trainer's ``max_grad_norm=1.0`` clipping
  (``clip_grad_norm_``: one read of the gradients for the norm, one read and write to scale them); DDP's bucketed
  all-reduce overlapping backward.
* torchtune 0.6: ``modules/rms_norm.py`` (as HF), ``modules/position_embeddings.py``
  ``RotaryPositionalEmbeddings.forward`` (float, reshape to pairs, four half-width muls, stack, type_as),
  ``modules/peft/lora.py`` ``LoRALinear.forward`` (bf16 adapters: ``alpha / rank * lora_b(lora_a(x))`` added to
  the base output), no gradient clipping
  (``clip_grad_norm: null`` in the recipes' configs), FSDP2 (``fully_shard``) with prefetching.
* torchtitan: ``models/llama3/model.py`` (``nn.RMSNorm``, complex-number ``apply_rotary_emb``: float, complex mul,
  type_as), ``clip_grad_norm_`` with
  ``max_norm=1.0``, FSDP2 prefetching, tensor parallelism's collectives exposed unless async TP.
* litgpt 0.5: ``litgpt/model.py`` ``RMSNorm`` (float, mean of x*x, rsqrt, fp32 weight mul, cast), ``apply_rope``
  (as HF), ``litgpt/lora.py`` ``LoRALinear.forward`` (bf16-true adapters).
* megatron: Megatron-Core with Transformer Engine: fused RMSNorm (``te.pytorch.RMSNorm`` /
  ``LayerNormLinear``), fused RoPE (``apply_rope_fusion``), fused SwiGLU (``bias_swiglu``), fused bias-dropout-add,
  vocab-parallel cross-entropy, the distributed optimizer's fused Adam over fp32 main gradients that the wgrad
  GEMM accumulates into (``gradient_accumulation_fusion``), gradient reduce and parameter gather overlapped with
  compute (``overlap_grad_reduce`` / ``overlap_param_gather``), TP communication partly overlapped
  (``tp_comm_overlap`` in NeMo's performance recipes).

The overlap shares (what part of a collective runs hidden behind compute) are those mechanisms' design, stated
per stack; they are not fitted. Which AdamW implementation a stack runs is the setup's (``TrainingSetup.adamw_impl``,
issue 25: the one asked for, else the stack's default), read by ``engine.timing.step``.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from engine.specs import Loss


@dataclass(frozen=True, slots=True)
class Pointwise:
    """One run of elementwise kernels: bytes per element and launches, forward and backward."""

    fwd_bytes: float
    bwd_bytes: float
    fwd_kernels: int
    bwd_kernels: int


@dataclass(frozen=True, slots=True)
class LoraWrap:
    """What the LoRA wrapper adds beside the adapters' GEMMs: bytes per input (d_in) and output (d_out) element
    of the adapted linear, and its launches (GEMMs excluded)."""

    fwd_in: float
    fwd_out: float
    bwd_in: float
    bwd_out: float
    fwd_kernels: int
    bwd_kernels: int


@dataclass(frozen=True, slots=True)
class StackRules:
    """One stack's rules (module docstring: where each number comes from)."""

    name: str
    cpu: str  # which CPU cost per op applies: "eager", "compiled" or "megatron"
    norm: Pointwise  # per hidden element, one norm
    rope: Pointwise  # per query / key element
    act_gated: Pointwise  # per intermediate element: act(gate) * up
    act_plain: Pointwise  # per intermediate element: GELU
    residual: Pointwise  # per hidden element, one residual add
    layout: Pointwise  # per query element: attention's transposes to and from the kernel's layout
    lora: LoraWrap
    loss: dict[Loss, Pointwise]  # per logit element
    clip_passes: float  # passes over the gradients to clip them (0: no clipping)
    fused_wgrad_accumulation: bool  # the wgrad GEMM accumulates into fp32 main gradients (no separate add)
    dp_overlap: float  # share of the data-parallel gradient reduction hidden behind backward
    fsdp_overlap: float  # share of ZeRO-3 / FSDP gathers and reductions hidden behind compute
    tp_exposed: float  # share of tensor-parallel collectives left exposed
    fused_attention_hopper: bool  # Hopper/Blackwell run a FlashAttention-3-class kernel (cuDNN / TE), not FA2
    ops_per_kernel: float  # CPU dispatches per GPU kernel (views, reshapes and Python around the kernels)


_HF_NORM = Pointwise(36, 66, 8, 14)
_HF_ROPE = Pointwise(20, 22, 5, 7)
_GATED = Pointwise(10, 18, 2, 3)
_PLAIN = Pointwise(20, 30, 6, 8)  # GPT-2's NewGELUActivation: tanh-approximation composite
_RESIDUAL = Pointwise(6, 6, 1, 1)
_LAYOUT = Pointwise(4, 4, 1, 1)
_BF16_LORA = LoraWrap(fwd_in=0, fwd_out=10, bwd_in=6, bwd_out=4, fwd_kernels=2, bwd_kernels=2)
_EAGER_LOSS = {
    Loss.STANDARD: Pointwise(14, 22, 3, 4),
    Loss.CHUNKED: Pointwise(14 + 2, 22 + 2, 3, 4),  # TRL chunked_nll: the chunk's logits rerun in backward
    Loss.CHUNKED_OUTPUT: Pointwise(14, 22, 3, 4),
    Loss.FUSED_LINEAR_CE: Pointwise(4, 4, 1, 1),  # Liger: softmax and its gradient in place per chunk
    # torchtitan 0.3.0 components/loss.py ChunkedLossWrapper: each chunk's logits upcast and cross-entropy as the
    # standard loss, their backward run at once (nothing rerun)
    Loss.CHUNKED_BACKWARD: Pointwise(14, 22, 3, 4),
}

HF_TRAINER = StackRules(
    name="hf-trainer", cpu="eager", norm=_HF_NORM, rope=_HF_ROPE, act_gated=_GATED, act_plain=_PLAIN,
    residual=_RESIDUAL, layout=_LAYOUT,
    lora=LoraWrap(fwd_in=12, fwd_out=10, bwd_in=18, bwd_out=4, fwd_kernels=6, bwd_kernels=7),
    loss=_EAGER_LOSS, clip_passes=3.0, fused_wgrad_accumulation=False,
    dp_overlap=0.9, fsdp_overlap=0.8, tp_exposed=1.0, fused_attention_hopper=False, ops_per_kernel=1.4)

TORCHTUNE = replace(
    HF_TRAINER, name="torchtune", rope=Pointwise(42, 50, 9, 12), lora=_BF16_LORA,
    clip_passes=0.0, fsdp_overlap=0.85)

TORCHTITAN = replace(
    HF_TRAINER, name="torchtitan", norm=Pointwise(30, 60, 6, 12), rope=Pointwise(20, 20, 3, 3), lora=_BF16_LORA,
    clip_passes=3.0, fsdp_overlap=0.95, ops_per_kernel=1.3)

LITGPT = replace(
    HF_TRAINER, name="litgpt", norm=Pointwise(40, 70, 7, 13), rope=Pointwise(26, 26, 6, 7), lora=_BF16_LORA,
    clip_passes=0.0)

MEGATRON = StackRules(
    name="megatron", cpu="megatron", norm=Pointwise(4, 6, 1, 2), rope=Pointwise(4, 4, 1, 1),
    act_gated=Pointwise(6, 10, 1, 1), act_plain=Pointwise(4, 6, 1, 1), residual=Pointwise(6, 6, 1, 1),
    layout=Pointwise(0, 0, 0, 0), lora=_BF16_LORA,
    loss={k: Pointwise(6, 8, 2, 2) for k in Loss}, clip_passes=1.0,
    fused_wgrad_accumulation=True, dp_overlap=0.95, fsdp_overlap=0.95, tp_exposed=0.5,
    fused_attention_hopper=True, ops_per_kernel=1.2)

STACKS: dict[str, StackRules] = {r.name: r for r in (HF_TRAINER, TORCHTUNE, TORCHTITAN, LITGPT, MEGATRON)}
DEFAULT_STACK = "hf-trainer"


def compiled(r: StackRules) -> StackRules:
    """The same stack under ``torch.compile``: each elementwise run between two matmuls is one fused kernel that
    reads its inputs and writes its outputs once (module docstring)."""
    return replace(
        r, cpu="compiled", norm=Pointwise(4, 8, 1, 2), rope=Pointwise(4, 4, 1, 1), act_gated=Pointwise(6, 10, 1, 1),
        act_plain=Pointwise(4, 6, 1, 1), residual=Pointwise(6, 6, 0, 1), layout=Pointwise(2, 2, 0, 0),
        lora=replace(r.lora, fwd_in=0, fwd_out=6, bwd_in=6, bwd_out=2, fwd_kernels=1, bwd_kernels=1),
        ops_per_kernel=1.0)


def fused_kernels(r: StackRules) -> StackRules:
    """The same eager stack with fused RMSNorm, RoPE and SwiGLU kernels in place of PyTorch's composites (Liger-
    Kernel's ``apply_liger_kernel_to_*``, ``use_liger_kernel=True`` in transformers' Trainer; flash-attn's
    ``ops.rms_norm`` and ``layers.rotary``, which Qwen (1)'s remote code calls): one kernel each, its inputs read
    and its outputs written once."""
    return replace(r, norm=Pointwise(4, 8, 1, 2), rope=Pointwise(4, 4, 1, 1), act_gated=Pointwise(6, 10, 1, 1))


def stack_rules(name: str, compile: bool = False, fused: bool = False) -> StackRules:
    """The rules of stack ``name`` (``ValueError`` for an unknown one), compiled or eager, with fused kernels."""
    try:
        r = STACKS[name]
    except KeyError:
        raise ValueError(f"unknown stack {name!r} (known: {', '.join(STACKS)})") from None
    if compile and r.cpu != "megatron":
        return compiled(r)
    return fused_kernels(r) if fused and r.cpu != "megatron" else r
