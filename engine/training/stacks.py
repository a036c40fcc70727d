"""Each training stack's setup-level rules, derived once per plan (``engine.training.plan._build``).

A stack (``engine.specs.Stack``) is whose code runs the step; what differs between them, as memory, is read from
their code at the versions users run (calibration/stacks/NOTES.md, traced where a trace exists):

* **the dtypes** (:func:`stack_dtypes`):

  - torchtitan 0.3.0 keeps the parameters in fp32; with FSDP2 (``--sharding zero3``) ``MixedPrecisionPolicy(
    param_dtype=bf16, reduce_dtype=fp32)`` casts them at the all-gather (torchtitan/distributed/fsdp.py
    ``apply_fsdp_to_decoder``, config/configs.py ``TrainingConfig.mixed_precision_param`` / ``_reduce``): fp32
    sharded parameters, fp32 sharded gradients, fp32 AdamW states, no master copy (16P/N, traced); without FSDP
    (one GPU, or DDP) the same ``mixed_precision_param`` takes effect through ``torch.autocast`` (configs.py's
    docstring of it): amp-bf16's dtypes.
  - Megatron-LM with ``--bf16`` accumulates and all-reduces gradients in fp32 (megatron/training/arguments.py
    ``validate_args``: "bfloat16 requires gradient accumulation and all-reduce to be done in fp32", unless
    ``--grad-reduce-in-bf16``), in one contiguous ``main_grad`` buffer per dtype allocated with the model
    (megatron/core/distributed/distributed_data_parallel.py: ``grad_dtype = torch.float if
    ddp_config.grad_reduce_in_fp32 else param.dtype``; param_and_grad_buffer.py ``torch.zeros``): 4 bytes of
    gradient per parameter, held from the first forward, whole on every data-parallel rank also with the
    distributed optimizer (``--use-distributed-optimizer``, off by default, shards the fp32 main parameters and
    Adam states: ``--sharding zero1``). Read at NVIDIA/Megatron-LM commit 0e9fcc1d; not traced.
  - torchtune, litgpt and the Trainer: the precision regime's own (``engine.training.precision``).

* **how a layer is computed** (:class:`LayerImpl`): torchtitan's ``nn.RMSNorm`` runs CUDA's fused kernel (saves
  the input and an fp32 rstd), its Llama fuses q, k and v into one ``wqkv`` (the order op-level selective
  checkpointing counts matmuls in) and each block indexes its own complex RoPE cache; torchtune's RMSNorm upcasts
  its input before ``F.rms_norm`` with a weight of another dtype, so the composite path runs and keeps fp32
  copies (torchtune/modules/rms_norm.py@0.6.1).
* **torchtitan's FSDP2 units** (:class:`FsdpPlan`; the bytes: ``engine.training.fsdp2``) and its per-block RoPE
  caches (models/common/rope.py ``RoPE.__init__``: ``register_buffer("cache", ...)`` per module,
  ``max_seq_len`` x head_dim / 2 complex64 values; llama3's ``ComplexRoPE.Config(max_seq_len=131072)``):
  replicated buffers, 67,108,864 bytes a block for Llama 3 8B (traced).

A setup a stack cannot run, or that the engine does not cost for it, is refused by name (:class:`StackError`).
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from engine.layers import runs
from engine.specs import (
    Attention,
    Checkpointing,
    Loss,
    Method,
    MlpKind,
    ModelSpec,
    NormKind,
    PositionKind,
    Precision,
    QkNorm,
    Sharding,
    Stack,
    TrainingSetup,
)
from engine.training.precision import ADAPTER_PLAN, FP32, HALF, DtypePlan, dtype_plan

#: torchtitan's ComplexRoPE stores ``max_seq_len x head_dim / 2`` complex64 values (8 bytes) per block
COMPLEX64 = 8


class StackError(ValueError):
    """A setup the stack cannot run, or that the engine does not cost for that stack (the message says which)."""


class NormImpl(StrEnum):
    """What an RMSNorm saves for its backward, by whose code computes it (``engine.training.saved.inputs.norm``)."""

    HF = "hf"  # transformers' LlamaRMSNorm: the fp32 input, the 16-bit normalised tensor when the weight trains
    FUSED = "fused"  # torch's CUDA aten::_fused_rms_norm (nn.RMSNorm, F.rms_norm): the input and an fp32 rstd
    COMPOSITE = "composite"  # F.rms_norm's composite path on an fp32 input (torchtune): fp32 input, rsqrt, normalised


@dataclass(frozen=True, slots=True)
class LayerImpl:
    """How the stack's model computes one decoder layer, where that changes what is saved."""

    norm: NormImpl = NormImpl.HF
    #: q, k and v come out of one matmul (torchtitan 0.3.0 models/common/attention.py ``FusedQKVLinear``), split
    #: into contiguous copies: op-level selective checkpointing counts it as one matmul
    fused_qkv: bool = False
    #: each block indexes its own RoPE cache (``cache[positions]``, complex64) and the complex product saves that
    #: slice: 4 x head_dim bytes a token (torchtitan models/common/rope.py ``ComplexRoPE``)
    rope_slice: bool = False
    #: LoRA's adapters read their base linear's input as it is (no cast: adapters in the model's dtype; dropout 0 is
    #: ``nn.Identity``), so the linears of one input share it, and the output projection's adapter reads the
    #: attention output the kernel keeps (torchtune/modules/peft/lora.py ``LoRALinear.forward``@0.6.1)
    lora_shared_input: bool = False
    #: grouped-query k and v are expanded to every query head before SDPA (``k.unsqueeze(2).expand(...)
    #: .flatten(1, 2)``, a copy, torchtune/modules/attention.py ``MultiHeadAttention.forward``@0.6.1): the kernel
    #: keeps them at the queries' width
    kv_expanded: bool = False
    #: the frozen embedding's output takes no gradient under LoRA (nothing calls ``enable_input_require_grads``),
    #: so the first layer's first norm, frozen too, saves nothing for its backward (traced through torchtune)
    embedding_output_no_grad: bool = False
    #: bytes per weight element QLoRA's dequantization holds at once for a matmul (0: one 16-bit copy, as
    #: bitsandbytes' dequantize + F.linear; torchao 0.11 ``NF4Tensor.get_original_weight``: the two int64 code
    #: tensors of N x K / 2 elements, 8, two bf16 lookups, 2, their two scaled halves, 2, and the stacked weight, 2:
    #: 14, traced: torchao/dtypes/nf4tensor.py lines 756-782, ``LinearNF4.forward`` / ``backward`` dequantize
    #: ``weight.to(input.dtype)`` in the forward and again in the backward)
    dequant_bytes: int = 0


#: torchao 0.11 NF4Tensor.get_original_weight at its largest, per weight element (LayerImpl.dequant_bytes)
NF4_DEQUANT_BYTES = 14

HF_LAYERS = LayerImpl()
TITAN_LAYERS = LayerImpl(NormImpl.FUSED, fused_qkv=True, rope_slice=True)
TUNE_LAYERS = LayerImpl(NormImpl.COMPOSITE, lora_shared_input=True, kv_expanded=True, embedding_output_no_grad=True,
                        dequant_bytes=NF4_DEQUANT_BYTES)


@dataclass(frozen=True, slots=True)
class FsdpPlan:
    """torchtitan's FSDP2 wrapping (torchtitan/distributed/fsdp.py ``apply_fsdp_to_decoder``@0.3.0): the
    embedding, each block, and ``[norm, lm_head]`` (one ``[tok_embeddings, norm, lm_head]`` unit when tied) are
    units; ``reshard_after_forward`` is the "default" policy's ``not pp_enabled`` for the embedding and the blocks
    and ``policy == "always"`` (False) for the head's unit. ``--sharding zero3`` is the default policy,
    ``--sharding zero2`` torchtitan's ``parallelism.fsdp_reshard_after_forward = "never"`` (FSDP's
    ``SHARD_GRAD_OP``: the parameters gathered from each unit's forward to its backward, sharded at rest)."""

    reshard_blocks: bool  # the blocks and the embedding free their gathered parameters after their forward
    #: each unit reduce-scatters its gradient after its backward; False under pipelining, which accumulates them
    #: unsharded over the micro-batches (engine.training.fsdp2)
    sync_each_backward: bool = True
    param_bytes: int = HALF  # MixedPrecisionPolicy.param_dtype: the gathered units and their unsharded gradients
    reduce_bytes: int = FP32  # MixedPrecisionPolicy.reduce_dtype: the reduce-scatter (TrainingConfig default)


#: torchtitan with FSDP2's mixed precision: fp32 sharded parameters, gradients and states; bf16 compute, the units
#: gathered in bf16 (torchtitan's own units: engine.training.fsdp2)
FSDP2_MIXED = DtypePlan(weight=FP32, grad=FP32, master=0, state=FP32, residual=HALF, compute=HALF,
                        autocast_copies=False, step_grad=FP32, gathered=HALF)
#: Megatron-LM --bf16: bf16 parameters, fp32 main_grad buffers, fp32 main parameters and Adam states
MEGATRON_BF16 = DtypePlan(weight=HALF, grad=FP32, master=FP32, state=FP32, residual=HALF, compute=HALF,
                          autocast_copies=False, step_grad=FP32)


def layer_impl(s: TrainingSetup) -> LayerImpl:
    """How the stack's model computes a decoder layer (module docstring)."""
    if s.stack is Stack.TORCHTITAN:
        return TITAN_LAYERS
    if s.stack is Stack.TORCHTUNE:
        return TUNE_LAYERS
    return HF_LAYERS


def stack_dtypes(s: TrainingSetup) -> DtypePlan:
    """The dtypes of a step as the stack holds them (module docstring)."""
    if s.stack is Stack.TORCHTITAN and s.precision is Precision.BF16_MIXED:
        return FSDP2_MIXED if fsdp_plan(s) is not None else dtype_plan(Precision.AMP_BF16)
    if s.stack is Stack.MEGATRON and s.precision is Precision.BF16_MIXED:
        return MEGATRON_BF16
    if s.stack is Stack.LITGPT and s.precision is Precision.BF16_MIXED:
        # Lightning's "bf16-mixed" (litgpt's default where bf16 is supported: utils.py
        # get_default_supported_precision@0.5.13) is torch.autocast over fp32 parameters
        return dtype_plan(Precision.AMP_BF16)
    return dtype_plan(s.precision)


def trained_dtypes(s: TrainingSetup, dtypes: DtypePlan) -> DtypePlan:
    """The dtypes of what trains: the regime's for full fine-tuning; LoRA's adapters are fp32 under PEFT
    (``autocast_adapter_dtype=True``, ``ADAPTER_PLAN``) but in the model's dtype under torchtune (the recipe builds
    the model under ``training.set_default_dtype`` and checks ``validate_expected_param_dtype(adapter_params)``,
    recipes/lora_finetune_single_device.py@0.6.1; traced: 2 + 2 + 4 bytes per adapter parameter with bf16) and
    litgpt with a true precision (Lightning's ``bf16-true`` converts the whole module; litgpt/finetune/lora.py
    ``setup``@0.5.13)."""
    if s.method is Method.FULL or s.stack is Stack.TORCHTUNE:
        return dtypes
    if s.stack is Stack.LITGPT and s.precision in (Precision.BF16, Precision.FP32):
        return dtypes
    return ADAPTER_PLAN


def stack_sources(s: TrainingSetup) -> tuple[str, ...]:
    """Where the dtypes :func:`stack_dtypes` changes come from (``engine.training.policy.StackPolicy.sources``)."""
    if s.stack is Stack.TORCHTITAN and fsdp_plan(s) is not None and s.precision is Precision.BF16_MIXED:
        return ("torchtitan 0.3.0 distributed/fsdp.py apply_fsdp_to_decoder (MixedPrecisionPolicy bf16 / fp32 over "
                "fp32 parameters)",)
    if s.stack is Stack.MEGATRON and s.precision is Precision.BF16_MIXED:
        return ("Megatron-LM megatron/training/arguments.py (bf16: accumulate_allreduce_grads_in_fp32), "
                "core/distributed/distributed_data_parallel.py (fp32 main_grad buffers), commit 0e9fcc1d",)
    if s.stack is Stack.TORCHTUNE and s.method is not Method.FULL:
        return ("torchtune 0.6.1 recipes/lora_finetune_single_device.py (adapters in the model's dtype)",)
    return ()


def widest_sharding(s: TrainingSetup) -> Sharding:
    """The furthest the stack shards the model states over data parallelism: ZeRO-3 (FSDP's full sharding), but
    Megatron-LM's distributed optimizer, ZeRO-1 (its gradient buffer stays whole: :func:`check`)."""
    return Sharding.ZERO1 if s.stack is Stack.MEGATRON else Sharding.ZERO3


def grads_preallocated(s: TrainingSetup) -> bool:
    """Megatron-LM's gradient buffers exist from the model's wrapping on, zeroed (``zero_grad_buffer``), never
    freed: the gradients are held whole from the first forward (module docstring)."""
    return s.stack is Stack.MEGATRON and s.method is Method.FULL


def fsdp_plan(s: TrainingSetup) -> FsdpPlan | None:
    """torchtitan's FSDP2 units, when it shards (``--sharding zero3``, or zero2 for "never", on more than one
    GPU); with pipelining the default policy never reshards and the gradients wait for the last micro-batch."""
    sharded = s.sharding in (Sharding.ZERO2, Sharding.ZERO3)
    if s.stack is not Stack.TORCHTITAN or not sharded or s.dp * s.parallel.cp == 1:
        return None
    piped = s.parallel.pp > 1
    param = FP32 if s.precision is Precision.FP32 else HALF  # mixed_precision_param float32: gathered in fp32
    return FsdpPlan(reshard_blocks=s.sharding is Sharding.ZERO3 and not piped, sync_each_backward=not piped,
                    param_bytes=param)


def layer_buffers(m: ModelSpec, s: TrainingSetup) -> int:
    """Bytes each decoder layer holds outside its parameters, on every GPU that holds the layer: torchtitan's
    per-block RoPE cache, ``max_seq_len x head_dim / 2`` complex64 (module docstring; the model's
    ``max_position_embeddings`` stands for torchtitan's ``max_seq_len``: 131,072 for Llama 3.1, as llama3's
    config sets it)."""
    if s.stack is not Stack.TORCHTITAN:
        return 0
    return m.max_position * m.head_size // 2 * COMPLEX64


def model_buffers(m: ModelSpec, s: TrainingSetup) -> int:
    """Bytes the model holds once outside its parameters: torchtune's RoPE cache, built once for every layer by
    its current builders (models/llama3_1/_component_builders.py ``lora_llama3_1``@0.6.1: one
    ``Llama3ScaledRoPE(max_seq_len=131072)``; its ``cache`` buffer stacks fp32 cos and sin, ``max_seq_len x
    head_dim / 2 x 2`` values; traced). (llama3's and qwen2's LoRA builders build one per layer instead,
    ``lora_llama3_self_attention``: not counted.)"""
    if s.stack is not Stack.TORCHTUNE:
        return 0
    return m.max_position * m.head_size * FP32


def check(m: ModelSpec, s: TrainingSetup) -> None:
    """Refuse, by name, what a stack cannot run or the engine does not cost for it (:class:`StackError`)."""
    if s.stack is Stack.TORCHTITAN:
        _check_titan(m, s)
    if s.stack is Stack.TORCHTUNE and s.checkpointing is Checkpointing.SELECTIVE:
        raise StackError("torchtune's selective checkpointing checkpoints every k-th layer whole: --checkpointing "
                         "full --checkpoint-every K (--checkpointing selective is Korthikanti et al.'s, Megatron's)")
    if s.stack is Stack.MEGATRON and s.sharding in (Sharding.ZERO2, Sharding.ZERO3):
        raise StackError("Megatron-LM's distributed optimizer shards the fp32 parameters and Adam states "
                         "(--sharding zero1); its gradient buffer stays whole on every rank: zero2 / zero3 are not "
                         "Megatron-LM's")
    if s.checkpointing is Checkpointing.OP_SELECTIVE:
        _check_op_selective(m, s)
    if s.stack is Stack.LITGPT and s.method is Method.QLORA and s.precision is not Precision.BF16:
        raise StackError("litgpt quantizes only with a true precision (litgpt/finetune/lora.py setup@0.5.13: "
                         "\"Quantization and mixed precision is not supported\"): --precision bf16 (bf16-true)")
    if s.optimizer_in_backward and (s.stack is not Stack.TORCHTUNE or s.method is not Method.FULL
                                    or s.grad_accum > 1):
        raise StackError("--optimizer-in-backward is torchtune's optimizer_in_bwd: its full fine-tuning recipes, "
                         "without gradient accumulation (recipes/full_finetune_single_device.py@0.6.1 refuses it)")
    if s.float8:
        raise StackError("--float8 is not costed: traced through torchtitan's Float8LinearConverter (calibration/"
                         "stacks/NOTES.md section 8), each eager cast holds 9 bytes per element of the cast tensor "
                         "(its fp32 copy scaled, clamped, then float8) and a linear's backward peaks at the largest "
                         "of three such moments, which depends on the tokens; compiled casts are not traced")
    if s.compile and (s.stack is not Stack.TORCHTITAN or s.checkpointing is Checkpointing.SELECTIVE):
        raise StackError("--compile is costed for torchtitan's per-block compile (traced: calibration/stacks/"
                         "NOTES.md section 7); other stacks' compiled layers and losses are not traced")
    if s.loss is Loss.CHUNKED_BACKWARD and s.stack is not Stack.TORCHTITAN:
        raise StackError("--loss chunked-backward is torchtitan's ChunkedLossWrapper (--stack torchtitan)")


def _check_titan(m: ModelSpec, s: TrainingSetup) -> None:
    if s.method is not Method.FULL:
        raise StackError("torchtitan 0.3.0 trains every parameter: no LoRA or QLoRA (--method full)")
    if s.precision not in (Precision.BF16_MIXED, Precision.FP32):
        raise StackError(f"torchtitan keeps fp32 parameters and computes in its mixed_precision_param: "
                         f"--precision bf16-mixed (its default) or fp32, not {s.precision.value}")
    if s.fsdp_version == 1:
        raise StackError("torchtitan shards with FSDP2 (fully_shard): --fsdp-version 2 or none, not 1")
    if s.sharding is Sharding.ZERO1:
        raise StackError("torchtitan shards with FSDP2 (--sharding zero3; zero2 for fsdp_reshard_after_forward "
                         "\"never\") or replicates (none): not zero1")
    if s.checkpointing is Checkpointing.SELECTIVE:
        raise StackError("torchtitan's selective checkpointing is per operator: --checkpointing op-selective "
                         "(--checkpointing selective is Korthikanti et al.'s, Megatron's)")
    if s.attention is Attention.EAGER:
        raise StackError("torchtitan's Llama runs FlexAttention (or SDPA): --attention sdpa")
    if s.activation_offload or s.offload_params or s.offload_optimizer:
        raise StackError("torchtitan's offloading (FSDP2's CPUOffloadPolicy, training.enable_cpu_offload) is not "
                         "costed")
    if s.loss not in (Loss.STANDARD, Loss.CHUNKED_BACKWARD):
        raise StackError("torchtitan's losses are its CrossEntropyLoss (--loss standard) and its ChunkedLossWrapper "
                         f"(--loss chunked-backward), not {s.loss.value}")
    if s.loss is Loss.CHUNKED_BACKWARD and fsdp_plan(s) is None:
        raise StackError("--loss chunked-backward is costed under FSDP2 (--sharding zero3 or zero2 on more than "
                         "one GPU), as torchtitan's Trainer runs it")
    if s.loss is Loss.CHUNKED_BACKWARD and (s.parallel.tp > 1 or s.parallel.cp > 1):
        raise StackError("--loss chunked-backward with tensor or context parallelism is not costed")
    why = _not_llama(m)
    if why:
        raise StackError(f"--stack torchtitan is costed for its Llama architecture (torchtitan 0.3.0 "
                         f"models/llama3: RMSNorm, RoPE, grouped-query attention, SwiGLU, no biases): {m.label} "
                         f"has {why}")


def _not_llama(m: ModelSpec) -> str:
    """What of ``m`` torchtitan's Llama block does not have ("" when nothing)."""
    if m.norm is not NormKind.RMSNORM or m.positions is not PositionKind.ROPE:
        return "another norm or position encoding"
    for r in runs(m):
        a, p = r.attention, r.mlp
        if a is None or p is None or r.mixer is not None or r.parallel:
            return "token mixers other than attention, layers without attention or an MLP, or parallel blocks"
        if p.moe is not None or a.mla is not None:
            return "mixture-of-experts or latent attention layers"
        if a.qkv_bias or a.o_bias or p.bias or a.qk_norm is not QkNorm.NONE or a.sinks or a.softcap:
            return "biases, q/k norms, sinks or soft-capping"
        if a.window is not None or a.partial_rotary or p.kind is not MlpKind.GATED or r.norms != 2:
            return "sliding windows, partial RoPE, another MLP or another number of norms"
    return ""


def _check_op_selective(m: ModelSpec, s: TrainingSetup) -> None:
    """Operator-level selective checkpointing is costed for dense layers under full fine-tuning with SDPA /
    FlashAttention (``engine.training.saved.op_selective``)."""
    if s.method is not Method.FULL:
        raise StackError("--checkpointing op-selective is costed for full fine-tuning: with LoRA the policy's "
                         "every-second-matmul counter runs over the adapters' matmuls too")
    if s.attention is Attention.EAGER:
        raise StackError("--checkpointing op-selective is costed with SDPA or FlashAttention (--attention sdpa)")
    if s.activation_offload:
        raise StackError("--checkpointing op-selective with activation offloading is not costed")
    if any(r.mlp is None or r.attention is None or r.mixer is not None or r.parallel or r.mlp.moe is not None
           or r.attention.mla is not None for r in runs(m)):
        raise StackError("--checkpointing op-selective is costed for dense attention + MLP layers: the routers' and "
                         "experts' matmuls of mixture-of-experts layers, latent attention, other token mixers and "
                         "parallel blocks are not")
