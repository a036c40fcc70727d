"""Typed inputs of the engine: a model's architecture, a training setup, a GPU.

Every bound is defined once, as an ``Annotated`` alias, and every choice is an enum, so that the command line,
the GUI's sliders and the tests all read the same limits (``field_bounds`` exposes them; the narrower ranges the
GUI's sliders offer are the GUI's, ``gui.state.ranges``, checked against these).
"""

from __future__ import annotations

from enum import StrEnum
from typing import Annotated, Any, ClassVar, Literal, get_args

from pydantic import BaseModel, ConfigDict, Field, model_validator
from pydantic.fields import FieldInfo

# -- bounds, defined once -------------------------------------------------------------------------------------
#: every number of a setup, a model or a GPU is a whole number (``strict``: the text "4096", 4096.0 and true are
#: refused, not read as 4096 or 1), finite and within a bound, the same from the GUI, a file or the command line
PositiveInt = Annotated[int, Field(strict=True, ge=1, le=2**31 - 1)]
#: a switch: JSON's true or false, never "false" (a non-empty string) or 1
Flag = Annotated[bool, Field(strict=True)]
Vocab = Annotated[int, Field(strict=True, ge=2, le=4_000_000)]
Hidden = Annotated[int, Field(strict=True, ge=1, le=131_072)]
Layers = Annotated[int, Field(strict=True, ge=1, le=1_024)]
Heads = Annotated[int, Field(strict=True, ge=1, le=4_096)]
HeadDim = Annotated[int, Field(strict=True, ge=1, le=4_096)]
Intermediate = Annotated[int, Field(strict=True, ge=1, le=1_048_576)]
Experts = Annotated[int, Field(strict=True, ge=1, le=4_096)]
SeqLen = Annotated[int, Field(strict=True, ge=1, le=1_048_576)]
Batch = Annotated[int, Field(strict=True, ge=1, le=4_096)]
GpuCount = Annotated[int, Field(strict=True, ge=1, le=65_536)]
LoraRank = Annotated[int, Field(strict=True, ge=1, le=4_096)]
LossChunks = Annotated[int, Field(strict=True, ge=1, le=4_096)]
Probability = Annotated[float, Field(strict=True, allow_inf_nan=False, ge=0.0, lt=1.0)]
Bytes = Annotated[int, Field(strict=True, ge=0, le=2**60)]
#: the most memory one GPU may be given: 2^50 bytes (1 PiB), about 3,900 times the largest GPU made (288 GB)
GpuBytes = Annotated[int, Field(strict=True, ge=1, le=2**50)]
#: a name or id shown in the GUI and in messages (a 100,000-character name is a damaged file, not a GPU)
Name = Annotated[str, Field(max_length=200)]
#: tokens one GPU holds in one micro-batch (batch x seq_len / cp): at most 2^24, the GUI's largest (128 x 131,072)
#: and 16 sequences of 1,048,576. Past it nothing runs: GPT-2's logits alone at 2^24 tokens are 3.4 TB in fp32
#: (2^24 x 50,257 x 4 bytes), twelve times the largest GPU, and "every maximum" (4,096 x 1,048,576) asked for
#: 4.7e20 bytes (issue 17)
MAX_MICRO_BATCH_TOKENS = 2**24
#: the most parameters a checkpoint may report: 10^15, five hundred times the largest published model (2T)
MAX_PARAMS = 10**15
Params = Annotated[int, Field(strict=True, ge=1, le=MAX_PARAMS)]


class _Frozen(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid", use_enum_values=False)


# -- choices --------------------------------------------------------------------------------------------------
class MlpKind(StrEnum):
    GATED = "gated"  # SwiGLU / GeGLU: gate, up, down
    PLAIN = "plain"  # fc_in, fc_out (GPT-2)
    #: GPT-OSS's SwiGLU: gate and up clamped, ``(up + 1) * gate * sigmoid(alpha * gate)`` (GptOssExperts._apply_gate)
    GATED_CLAMPED = "gated-clamped"
    #: up, ``relu(x) ** 2``, down (Nemotron-H's ``relu2``: transformers 5.24 ``ReLUSquaredActivation``)
    RELU2 = "relu-squared"
    #: up, exact (erf) GELU, down: ``nn.functional.gelu``, one op (GPT-NeoX / Pythia's ``gelu``)
    GELU = "gelu"

    @property
    def gated(self) -> bool:
        """A gate projection beside up (SwiGLU / GeGLU)."""
        return self in (MlpKind.GATED, MlpKind.GATED_CLAMPED)


class NormKind(StrEnum):
    """RMSNORM_FP32: an RMSNorm that applies its weight in fp32 before casting back: Gemma's (1 + weight), OLMo 2 / 3's
    and GPT-OSS's ``(self.weight * hidden_states).to(input_dtype)``; Llama's casts first, then scales."""

    RMSNORM = "rmsnorm"  # weight only
    RMSNORM_FP32 = "rmsnorm-fp32"  # weight only; scaled in fp32 (Gemma, OLMo 2 / 3, GPT-OSS)
    LAYERNORM = "layernorm"  # weight and bias
    #: weight only, mean-centred, in fp32: Cohere's LayerNorm (transformers 5.24 ``CohereLayerNorm``), which
    #: computes ``hidden_states - mean`` twice (once for the variance, once to normalise)
    CENTRED_FP32 = "centred-fp32"


class PositionKind(StrEnum):
    ROPE = "rope"  # no parameters
    LEARNED = "learned"  # a max_position x hidden table (GPT-2)
    NONE = "none"  # no positions in attention (Nemotron-H, Granite 4.0-H's "nope"): q and k stay the projections

class Method(StrEnum):
    FULL = "full"
    LORA = "lora"
    QLORA = "qlora"
    #: LoRA on an 8-bit base: bitsandbytes' LLM.int8() (transformers load_in_8bit), engine.training.states
    LORA_8BIT = "lora-8bit"
    #: some decoder layers trained in full, the rest frozen (LLaMA-Factory finetuning_type: freeze;
    #: TrainingSetup.freeze_layers), engine.training.partial
    FREEZE = "freeze"
    #: BAdam's block coordinate descent: one decoder layer trains at a time (LLaMA-Factory use_badam, layer mode)
    BADAM = "badam"
    #: orthogonal fine-tuning (PEFT OFT): a block-diagonal rotation of each adapted linear's input
    #: (TrainingSetup.oft_block_size), on a 16-bit base
    OFT = "oft"


#: methods whose frozen base bitsandbytes quantizes (4-bit NF4 / FP4, or LLM.int8())
QUANTIZED_METHODS = frozenset({Method.QLORA, Method.LORA_8BIT})
#: methods that train some decoder layers in full and freeze the rest (engine.training.partial)
PARTIAL_METHODS = frozenset({Method.FREEZE, Method.BADAM})
#: methods that train LoRA adapters (and what PEFT trains beside them)
LORA_METHODS = frozenset({Method.LORA, Method.QLORA, Method.LORA_8BIT})


class Precision(StrEnum):
    """Named by what is held in memory, not by a framework flag."""

    FP32 = "fp32"
    BF16 = "bf16"  # pure bf16: weights, grads, AdamW states in bf16 (HF Trainer on a bf16 model, torchtune)
    BF16_MIXED = "bf16-mixed"  # 16-bit weights + grads, fp32 master weights and states (DeepSpeed, Megatron)
    FP16_MIXED = "fp16-mixed"
    AMP_BF16 = "amp-bf16"  # fp32 weights, grads and states; bf16 autocast (HF Trainer on an fp32 model)
    AMP_FP16 = "amp-fp16"


class OffloadDevice(StrEnum):
    """Where offloaded states go (DeepSpeed's ``offload_optimizer.device`` / ``offload_param.device``)."""

    CPU = "cpu"
    NVME = "nvme"  # ZeRO-Infinity: to disk through pinned host buffers (engine.training.nvme)


class SavedModule(StrEnum):
    """A module trained in full beside LoRA (PEFT ``modules_to_save``; the names transformers gives them)."""

    EMBED_TOKENS = "embed_tokens"
    LM_HEAD = "lm_head"


class Optimizer(StrEnum):
    ADAMW = "adamw"
    ADAMW_8BIT = "adamw-8bit"
    PAGED_ADAMW_8BIT = "paged-adamw-8bit"
    PAGED_ADAMW = "paged-adamw"  # bitsandbytes PagedAdamW32bit: AdamW's fp32 states in CUDA unified memory
    ADAFACTOR = "adafactor"
    LION = "lion"
    SGD = "sgd"
    SGD_MOMENTUM = "sgd-momentum"
    # issue 27 (engine.training.optimizers): each costed as its library runs it
    ADAMW_4BIT = "adamw-4bit"  # torchao AdamW4bit (transformers adamw_torch_4bit)
    ADAMW_8BIT_TORCHAO = "adamw-8bit-torchao"  # torchao AdamW8bit (adamw_torch_8bit); adamw-8bit is bitsandbytes'
    RMSPROP = "rmsprop"  # torch.optim.RMSprop, momentum 0 (transformers rmsprop)
    RMSPROP_MOMENTUM = "rmsprop-momentum"  # torch.optim.RMSprop with momentum > 0
    MUON = "muon"  # torch.optim.Muon on the blocks' matrices, AdamW on the rest
    GALORE_ADAMW = "galore-adamw"  # galore-torch GaLoreAdamW (transformers galore_adamw)
    APOLLO_ADAMW = "apollo-adamw"  # apollo-torch APOLLOAdamW (transformers apollo_adamw)
    ADAM_MINI = "adam-mini"  # adam-mini Adam_mini (LLaMA-Factory use_adam_mini)


#: the optimizers whose states follow each tensor's shape (engine.training.optimizers): costed on whole,
#: unsharded tensors only, but for torchao's (:data:`SHARD_OPTIMIZERS`)
PER_TENSOR_OPTIMIZERS = frozenset({Optimizer.ADAMW_4BIT, Optimizer.ADAMW_8BIT_TORCHAO, Optimizer.MUON,
                                   Optimizer.GALORE_ADAMW, Optimizer.APOLLO_ADAMW, Optimizer.ADAM_MINI})
#: torchao's low-bit AdamW also under ZeRO-3 as FSDP2 runs it: ``_AdamBase._new_buffer`` (torchao 0.18.0
#: ``torchao/optim/adam.py``) makes each state from the DTensor's local shard (``p.to_local()``) and
#: ``single_param_adam`` steps that shard: the whole-tensor bytes / the shard group, up to the 4,096-value rule on
#: each shard (a norm's vector may fall under it) and FSDP2's uneven last dim-0 chunk. ZeRO-1/2 (DeepSpeed's flat
#: fp32 partitions, whose size decides whether torchao quantizes at all) and offload are not costed
SHARD_OPTIMIZERS = frozenset({Optimizer.ADAMW_4BIT, Optimizer.ADAMW_8BIT_TORCHAO})
#: the optimizers whose states are the same per parameter whatever its shape: what the modules trained beside
#: LoRA (modules_to_save) are costed with
SAVED_MODULE_OPTIMIZERS = frozenset({Optimizer.ADAMW, Optimizer.ADAMW_8BIT, Optimizer.PAGED_ADAMW_8BIT,
                                     Optimizer.PAGED_ADAMW, Optimizer.LION, Optimizer.SGD, Optimizer.SGD_MOMENTUM})
#: the optimizers that project or group full weights: full fine-tuning only
FULL_ONLY_OPTIMIZERS = frozenset({Optimizer.GALORE_ADAMW, Optimizer.APOLLO_ADAMW, Optimizer.ADAM_MINI})


class Attention(StrEnum):
    EAGER = "eager"  # materialises the s x s scores
    SDPA = "sdpa"  # torch SDPA on a GPU in bf16: flash / memory-efficient kernel, no s x s matrix
    FLASH = "flash"  # flash-attn 2


class Checkpointing(StrEnum):
    """FULL: each layer keeps its input and recomputes the rest in backward (Chen et al. 2016; with
    ``TrainingSetup.checkpoint_every`` k > 1 only every k-th layer, torchtune's and torchtitan's layer-level
    "selective"); SELECTIVE: only the attention core is recomputed (Korthikanti et al. 2022, arXiv:2205.05198, s5;
    Megatron-LM's ``--recompute-granularity selective``), ``engine.training.activations``; OP_SELECTIVE: PyTorch's
    operator-level selective checkpointing with torchtitan's policy (``engine.training.saved.op_selective``: the
    outputs of the matmuls and attention kernels are kept, but every second matmul's)."""

    NONE = "none"
    FULL = "full"
    SELECTIVE = "selective"
    OP_SELECTIVE = "op-selective"


class Loss(StrEnum):
    """How the loss over the vocabulary is computed (``engine.training.loss``)."""

    STANDARD = "standard"  # transformers ForCausalLMLoss: whole fp32 logits
    CHUNKED = "chunked"  # TRL chunked_nll: output layer and loss per 256-token checkpointed chunk
    CHUNKED_OUTPUT = "chunked-output"  # torchtune CEWithChunkedOutputLoss: upcast and cross-entropy per chunk
    FUSED_LINEAR_CE = "fused-linear-ce"  # Liger: the output layer fused into a chunked loss
    #: torchtitan ChunkedLossWrapper: output layer, loss and their backward chunk by chunk inside the loss call
    CHUNKED_BACKWARD = "chunked-backward"


class Stack(StrEnum):
    """Whose code runs the training step (issue 25; calibration/stacks/NOTES.md): its defaults are memory facts."""

    HF_TRAINER = "hf-trainer"  # transformers' Trainer and what runs on it (TRL, Axolotl, LLaMA-Factory), PEFT, bnb
    TORCHTUNE = "torchtune"
    TORCHTITAN = "torchtitan"
    LITGPT = "litgpt"
    MEGATRON = "megatron"  # Megatron-LM / NeMo


class OptimizerImpl(StrEnum):
    """How torch's AdamW runs its step (torch/optim/adam.py@2.13): one fused kernel, ``torch._foreach_*`` over
    every tensor at once, or a Python loop over the tensors."""

    FUSED = "fused"
    FOREACH = "foreach"
    FORLOOP = "forloop"


#: each stack's implementation of torch's AdamW when its user names none, at the versions run today
#: (calibration/stacks/NOTES.md sections 2 and 4-6)
STACK_OPTIMIZER_IMPL: dict[Stack, OptimizerImpl] = {
    # transformers >= 4.54 training_args.py default_optim: "adamw_torch_fused" with torch >= 2.8
    Stack.HF_TRAINER: OptimizerImpl.FUSED,
    # torchtune 0.6.1 recipes/configs/*: torch.optim.AdamW with fused: True
    Stack.TORCHTUNE: OptimizerImpl.FUSED,
    # torchtitan 0.3.0 components/optimizer/optimizer.py OptimizersContainer.Config.implementation = "fused"
    Stack.TORCHTITAN: OptimizerImpl.FUSED,
    # litgpt 0.5.13 utils.py instantiate_torch_optimizer passes neither: torch's CUDA default (adam.py lines 935-947)
    Stack.LITGPT: OptimizerImpl.FOREACH,
    # Megatron-LM core/optimizer/__init__.py _get_megatron_optimizer_based_on_param_groups: Transformer Engine's
    # FusedAdam (else Apex's): one multi-tensor kernel, no temporary of parameter size
    Stack.MEGATRON: OptimizerImpl.FUSED,
}


class Sharding(StrEnum):
    NONE = "none"  # plain DDP (or a single GPU)
    ZERO1 = "zero1"
    ZERO2 = "zero2"
    ZERO3 = "zero3"  # DeepSpeed ZeRO-3, or FSDP's FULL_SHARD with TrainingSetup.fsdp_version


#: FSDP's major version (accelerate's ``fsdp_version``): 1, ``FullyShardedDataParallel``'s flat parameters; 2,
#: ``fully_shard``'s per-parameter DTensors; None: the sharding is DeepSpeed's ZeRO (or Megatron's)
FsdpVersion = Annotated[int, Field(strict=True, ge=1, le=2)]


class LoraTargets(StrEnum):
    QV = "qv"
    ATTENTION = "attention"
    ALL_LINEAR = "all-linear"
    #: q, v, the attention output and the MLP, not k: torchtune's recipes' ``lora_attn_modules: [q_proj, v_proj,
    #: output_proj]`` with ``apply_lora_to_mlp: True`` (recipes/configs/llama3/8B_qlora_single_device.yaml@0.6.1)
    QVO_MLP = "qvo-mlp"


class PipelineSchedule(StrEnum):
    """How micro-batches flow through pipeline stages (Narayanan et al. 2021, arXiv:2104.04473, s2.2)."""

    GPIPE = "gpipe"  # every micro-batch's forward, then every backward: all m in flight
    ONE_F_ONE_B = "1f1b"  # PipeDream-Flush: stage i holds at most p - i micro-batches
    INTERLEAVED = "interleaved"  # 1F1B over v model chunks per stage


class QuantType(StrEnum):
    NF4 = "nf4"
    FP4 = "fp4"


class ModelLoading(StrEnum):
    """How the processes of a node read the checkpoint into host RAM (engine/training/host.py)."""

    FULL_PER_PROCESS = "full-per-process"  # every process materialises the whole state dict (plain from_pretrained)
    RANK0_BROADCAST = "rank0-broadcast"  # local rank 0 only; the others on meta (cpu_ram_efficient_loading)
    META_SHARDED = "meta-sharded"  # built on meta, each process reads only its shard


class DatasetStorage(StrEnum):
    """How the tokenized training set is held (engine/training/host.py: bytes per token, measured)."""

    PYTHON_LISTS = "python-lists"  # one dict of input_ids / attention_mask / labels lists per example
    NUMPY = "numpy"  # one flat int32 token array in RAM
    ARROW_MMAP = "arrow-mmap"  # a datasets Arrow file, memory-mapped: page cache shared by the node
    STREAMING = "streaming"  # read as it goes: a shuffle buffer per reader


class KvDtype(StrEnum):
    FP32 = "fp32"
    FP16 = "fp16"
    BF16 = "bf16"
    FP8 = "fp8"
    INT8 = "int8"
    INT4 = "int4"


# -- architecture ---------------------------------------------------------------------------------------------
class QkNorm(StrEnum):
    """A normalisation of the queries and keys before attention (none, or where its weight sits)."""

    NONE = "none"
    HEAD = "head"  # RMSNorm over each head's width, one weight shared by the heads (Qwen3, Gemma 3, EXAONE 4)
    PROJECTION = "projection"  # RMSNorm over the whole q and k projections (OLMo 2 / 3, OLMoE)
    L2 = "l2"  # an L2 norm without weights (Llama 4)


class ExpertStorage(StrEnum):
    """How the experts' weights are held: transformers 5 fuses them into one 3-D parameter per projection."""

    FUSED = "fused"
    PER_EXPERT = "per-expert"  # one nn.Linear per expert and projection (transformers 4, custom code)


class ExpertLora(StrEnum):
    """What PEFT 0.21's ``all-linear`` does with a model's experts (peft/utils/transformers_weight_conversion.py).

    PARAMETERS: for the model types transformers re-fused in v5 (Mixtral- and Qwen2-MoE-pattern: Qwen3-MoE,
    DeepSeek-V2/V3, GLM-4.5, OLMoE, ...), the fused ``gate_up_proj`` (rank 2r), ``down_proj`` and the router's
    ``gate.weight`` become ``target_parameters`` (``ParamWrapper``), and every linear named ``gate_proj`` /
    ``up_proj`` / ``down_proj`` (dense MLPs, shared experts) is dropped from the targets.
    NONE: the fused experts are not ``nn.Linear``: left alone (GPT-OSS, Llama 4, Granite MoE, Qwen2-MoE).
    LINEAR: per-expert storage: every expert's linears are adapted like any other.
    """

    PARAMETERS = "parameters"
    NONE = "none"
    LINEAR = "linear"


class MoESpec(_Frozen):
    """Mixture of experts: which MLPs are routed, how many experts each token visits."""

    num_experts: Experts
    experts_per_token: Experts
    expert_intermediate_size: Intermediate
    shared_experts: Annotated[int, Field(strict=True, ge=0, le=4_096)] = 0
    #: the first k layers keep a dense MLP (DeepSeek's ``first_k_dense_replace``; flat specs only)
    first_dense_layers: Annotated[int, Field(strict=True, ge=0, le=1_024)] = 0
    #: width of the shared expert MLP (None: ``shared_experts`` x ``expert_intermediate_size``, DeepSeek's rule)
    shared_intermediate_size: Annotated[int, Field(strict=True, ge=1, le=1_048_576)] | None = None
    shared_expert_gate: Flag = False  # a sigmoid gate (hidden -> 1) on the shared expert (Qwen2-MoE)
    router_bias: Flag = False  # GPT-OSS
    expert_bias: Flag = False  # biases on the experts' projections (GPT-OSS)
    storage: ExpertStorage = ExpertStorage.FUSED
    lora: ExpertLora = ExpertLora.PARAMETERS
    #: the router is an ``nn.Linear`` that ``all-linear`` adapts as a module
    router_linear: Flag = False
    #: every expert runs on every token, scaled by its router score (transformers' Llama4TextMoe: the input is
    #: repeated once per expert and multiplied by dense batched matmuls), instead of only the top-k
    dense_dispatch: Flag = False
    #: the routed experts work in a latent width: fc1_latent_proj (hidden -> latent) before them, fc2_latent_proj
    #: after (Nemotron-H's ``moe_latent_size``); None: the hidden width
    latent_size: Annotated[int, Field(strict=True, ge=1, le=131_072)] | None = None

    @model_validator(mode="after")
    def _check(self) -> MoESpec:
        if self.experts_per_token > self.num_experts:
            raise ValueError("experts_per_token cannot exceed num_experts")
        return self

    @property
    def shared_width(self) -> int:
        """Width of the shared expert MLP (0: none)."""
        if self.shared_intermediate_size is not None:
            return self.shared_intermediate_size
        return self.shared_experts * self.expert_intermediate_size


class MLASpec(_Frozen):
    """DeepSeek multi-head latent attention (DeepSeek-V2, arXiv:2405.04434, section 2.1)."""

    kv_lora_rank: Intermediate
    qk_rope_head_dim: HeadDim
    qk_nope_head_dim: HeadDim
    v_head_dim: HeadDim
    q_lora_rank: Intermediate | None = None  # None: queries are projected directly (V2-Lite)


class AttentionSpec(_Frozen):
    """One layer's attention: multi-head, grouped-query or multi-query by its head counts, or MLA."""

    num_heads: Heads
    num_kv_heads: Heads
    head_dim: HeadDim
    window: PositiveInt | None = None  # sliding-window attention over this many tokens (None: full)
    qk_norm: QkNorm = QkNorm.NONE
    sinks: Flag = False  # one learned logit per head added to the softmax (GPT-OSS)
    qkv_bias: Flag = False
    o_bias: Flag = False
    fused_qkv: Flag = False  # one qkv_proj linear (Phi-3 / Phi-4)
    #: RoPE on part of each head, the rest concatenated back (Phi-4-mini, GLM-4, MiniMax-M2)
    partial_rotary: Flag = False
    softcap: Flag = False  # tanh soft-capping of the scores (Gemma 2)
    mla: MLASpec | None = None
    #: gated attention (Qwen3-Next, Qwen3.5: transformers 5.24 ``Qwen3NextAttention``): q_proj also makes a gate of
    #: the output's width, and the attention output is multiplied by its sigmoid before o_proj
    output_gate: Flag = False

    @model_validator(mode="after")
    def _check(self) -> AttentionSpec:
        if self.num_heads % self.num_kv_heads:
            raise ValueError(
                f"num_heads ({self.num_heads}) must be a multiple of num_kv_heads ({self.num_kv_heads})"
            )
        return self

    @property
    def kind(self) -> str:
        """MHA, GQA, MQA or MLA."""
        if self.mla is not None:
            return "MLA"
        if self.num_kv_heads == self.num_heads:
            return "MHA"
        return "MQA" if self.num_kv_heads == 1 else "GQA"


class MlpSpec(_Frozen):
    """One layer's MLP: dense (``intermediate_size`` > 0), routed experts (``moe``), or both (Qwen2-MoE's
    shared expert is described by ``moe``)."""

    kind: MlpKind = MlpKind.GATED
    #: the dense MLP's width (0: routed only)
    intermediate_size: Annotated[int, Field(strict=True, ge=0, le=1_048_576)] = 0
    bias: Flag = False
    fused_gate_up: Flag = False  # one gate_up_proj linear (Phi-3 / Phi-4, GLM-4)
    moe: MoESpec | None = None

    @model_validator(mode="after")
    def _check(self) -> MlpSpec:
        if self.moe is None and self.intermediate_size == 0:
            raise ValueError("an MLP needs intermediate_size > 0 or experts (moe)")
        return self


ConvKernel = Annotated[int, Field(strict=True, ge=1, le=64)]
StateSize = Annotated[int, Field(strict=True, ge=1, le=4_096)]


class DeltaNetSpec(_Frozen):
    """A linear-attention token mixer with a delta rule and a fixed-size state per head (no KV cache): a causal
    depthwise convolution over q, k and v, then the chunked delta rule.

    ``gated-deltanet``: gated DeltaNet (Yang et al. 2024, arXiv:2412.06464; transformers 5.24
    ``Qwen3NextGatedDeltaNet`` / ``Qwen3_5GatedDeltaNet``): one scalar decay per value head, ``num_v_heads`` a
    multiple of ``num_k_heads`` (grouped value heads), an output gate z through a gated RMSNorm.
    ``kda``: Kimi Delta Attention (Kimi Linear, arXiv:2510.26692; ``KimiLinearDeltaAttention``): a decay per channel
    from a low-rank forget gate, q, k and v of one width, a low-rank output gate."""

    kind: Literal["gated-deltanet", "kda"]
    num_k_heads: Heads
    num_v_heads: Heads
    head_k_dim: HeadDim
    head_v_dim: HeadDim
    conv_kernel: ConvKernel = 4
    #: Qwen3-Next's two fused input projections (in_proj_qkvz, in_proj_ba); Qwen3.5 has four (qkv, z, b, a)
    fused_projections: Flag = False

    @model_validator(mode="after")
    def _check(self) -> DeltaNetSpec:
        if self.num_v_heads % self.num_k_heads:
            raise ValueError(f"num_v_heads ({self.num_v_heads}) must be a multiple of num_k_heads "
                             f"({self.num_k_heads})")
        return self

    @property
    def key_width(self) -> int:
        return self.num_k_heads * self.head_k_dim

    @property
    def value_width(self) -> int:
        return self.num_v_heads * self.head_v_dim


class Mamba2Spec(_Frozen):
    """A Mamba-2 (state-space duality) token mixer (Dao and Gu 2024, arXiv:2405.21060; transformers 5.24
    ``NemotronHMamba2Mixer``, ``BambaMixer``, ``GraniteMoeHybridMambaLayer``, ``FalconH1Mixer``, ``Mamba2Mixer``):
    ``in_proj`` makes the gate z, x, B, C and dt; a causal depthwise convolution over x, B and C; the chunked scan
    over ``num_heads`` heads of ``head_dim`` with a ``state_size`` state shared by the heads of each of ``groups``
    groups; a gated RMSNorm; ``out_proj``. A fixed-size state per layer, no KV cache."""

    kind: Literal["mamba2"]  # no default: the discriminator is dumped even with exclude_defaults
    num_heads: Heads
    head_dim: HeadDim
    state_size: StateSize
    groups: Heads = 1
    conv_kernel: ConvKernel = 4
    conv_bias: Flag = True
    in_bias: Flag = False  # in_proj's bias (``use_bias`` / ``mamba_proj_bias``)
    out_bias: Flag = False  # out_proj's (Falcon-H1: ``projectors_bias``)
    gated_norm: Flag = True  # the gated RMSNorm before out_proj (Falcon-H1's ``mamba_rms_norm`` may drop it)
    chunk_size: Annotated[int, Field(strict=True, ge=1, le=4_096)] = 256
    #: PEFT 0.21 wraps out_proj in LoRA (it refuses to for the model types of
    #: ``tuners_utils._check_lora_target_modules_mamba``: falcon_h1, mamba2, nemotron_h)
    lora_out_proj: Flag = True

    @model_validator(mode="after")
    def _check(self) -> Mamba2Spec:
        if self.num_heads % self.groups:
            raise ValueError(f"num_heads ({self.num_heads}) must be a multiple of groups ({self.groups})")
        return self

    @property
    def inner(self) -> int:
        """Width of x, z and the scan's output: heads x head_dim."""
        return self.num_heads * self.head_dim

    @property
    def conv_width(self) -> int:
        """Channels of the convolution: x, B and C."""
        return self.inner + 2 * self.groups * self.state_size


class Mamba1Spec(_Frozen):
    """A Mamba (selective state space, Gu and Dao 2023, arXiv:2312.00752, s3) token mixer (transformers 5.24
    ``MambaMixer``, ``JambaMambaMixer``, ``FalconMambaMixer``): ``in_proj`` to x and the gate z (``inner`` each),
    a causal depthwise convolution, ``x_proj`` to dt (``dt_rank``), B and C (``state_size`` each), ``dt_proj``,
    the selective scan with a ``inner x state_size`` state, ``out_proj``."""

    kind: Literal["mamba1"]
    inner: Intermediate
    state_size: StateSize
    dt_rank: Intermediate
    conv_kernel: ConvKernel = 4
    conv_bias: Flag = True
    in_bias: Flag = False
    out_bias: Flag = False
    #: RMSNorms over dt, B and C (Jamba's dt_layernorm, b_layernorm, c_layernorm)
    dt_norms: Flag = False
    lora_out_proj: Flag = True  # as Mamba2Spec's (PEFT refuses it for mamba and falcon_mamba)
    #: the whole mixer runs in mamba-ssm's ``mamba_inner_fn`` (MambaMixer in training; x_proj, dt_proj and out_proj
    #: inside on their weights); False: its pieces run apart, the scan in ``selective_scan_fn`` (JambaMambaMixer)
    fused: Flag = True


class ShortConvSpec(_Frozen):
    """LFM2's gated short convolution (transformers 5.24 ``Lfm2ShortConv``): ``in_proj`` to B, C and x (hidden
    each), ``B * x``, a causal depthwise convolution of ``conv_kernel`` taps, times C, ``out_proj``."""

    kind: Literal["short-conv"]
    conv_kernel: ConvKernel = 3
    bias: Flag = False


#: a token mixer that is not softmax attention
Mixer = Annotated[DeltaNetSpec | Mamba2Spec | Mamba1Spec | ShortConvSpec, Field(discriminator="kind")]


class LayerSpec(_Frozen):
    """One decoder layer's kind: its token mixers (softmax attention, another mixer, or both side by side as in
    Falcon-H1), its MLP (absent in Nemotron-H's mixer-only layers) and how many hidden-width norms it holds.

    ``parallel``: attention and MLP read the same normed input and add to the residual together (GPT-J, GPT-NeoX
    with ``use_parallel_residual``, Phi-1/2, Cohere; Wang and Komatsuzaki 2021, "GPT-J-6B")."""

    attention: AttentionSpec | None = None
    mlp: MlpSpec | None = None
    norms: Annotated[int, Field(strict=True, ge=0, le=8)] = 2  # Gemma 2 / 3 and GLM-4 have four, Cohere 2 one
    mixer: Mixer | None = None
    parallel: Flag = False

    @model_validator(mode="after")
    def _check_blocks(self) -> LayerSpec:
        if self.attention is None and self.mixer is None and self.mlp is None:
            raise ValueError("a layer needs attention, another token mixer or an MLP")
        if self.parallel and (self.attention is None or self.mlp is None):
            raise ValueError("a parallel block needs attention and an MLP")
        return self

    @property
    def attn(self) -> AttentionSpec:
        """The layer's attention, for a caller that knows it has one (``attention`` may be None)."""
        if self.attention is None:
            raise ValueError(f"a {self.mixer_kind} layer has no attention")
        return self.attention

    @property
    def ffn(self) -> MlpSpec:
        """The layer's MLP, for a caller that knows it has one (``mlp`` may be None)."""
        if self.mlp is None:
            raise ValueError(f"a {self.mixer_kind} layer has no MLP")
        return self.mlp

    @property
    def mixer_kind(self) -> str:
        """What mixes the tokens: "attention", a mixer's kind ("gated-deltanet", "mamba2", ...), both joined by
        "+" (Falcon-H1), or "none" (an MLP-only layer)."""
        kinds = (["attention"] if self.attention is not None else []) + ([self.mixer.kind] if self.mixer else [])
        return "+".join(kinds) or "none"


class LayerRun(LayerSpec):
    """``count`` consecutive layers of one kind."""

    count: Layers


class ModelSpec(_Frozen):
    """A decoder-only transformer, described by the fields that decide its parameters and its memory."""

    id: Annotated[str, Field(min_length=1, max_length=200, pattern=r"\S")]
    name: Name = ""
    family: Name = "custom"
    hf_repo: Name | None = None
    vocab_size: Vocab
    hidden_size: Hidden
    num_layers: Layers
    num_heads: Heads
    num_kv_heads: Heads
    head_dim: HeadDim | None = None  # None: hidden_size // num_heads
    intermediate_size: Intermediate
    mlp: MlpKind = MlpKind.GATED
    norm: NormKind = NormKind.RMSNORM
    norms_per_layer: Annotated[int, Field(strict=True, ge=1, le=8)] = 2  # Gemma 2 has four
    positions: PositionKind = PositionKind.ROPE
    max_position: PositiveInt = 4_096
    tie_embeddings: Flag = False
    lm_head_bias: Flag = False  # the output layer has a bias (GPT-J, Phi-1/2)
    #: the residual stream is kept in fp32 whatever the compute dtype (MambaBlock / Mamba2Block with
    #: ``residual_in_fp32``, their configs' default)
    residual_fp32: Flag = False
    qkv_bias: Flag = False
    o_bias: Flag = False
    mlp_bias: Flag = False
    fused_qkv: Flag = False  # one qkv projection (GPT-2's c_attn, Phi-3's qkv_proj)
    fused_gate_up: Flag = False  # one gate_up projection (Phi-3)
    moe: MoESpec | None = None
    mla: MLASpec | None = None
    #: Gemma 2 soft-caps attention scores and output logits with tanh (cap * tanh(x / cap))
    attn_softcap: Flag = False
    logit_softcap: Flag = False
    sliding_window: PositiveInt | None = None
    #: for models whose every other layer is sliding-window (Gemma 2), the share of layers that slide
    sliding_layers_fraction: Annotated[float, Field(strict=True, allow_inf_nan=False, ge=0.0, le=1.0)] = 1.0
    #: the real checkpoint's parameter count, when known (used to check the architecture, never to compute)
    published_params: Params | None = None
    #: the decoder layers as runs of identical layers, first layer first; None: one stack derived from the flat
    #: fields above (``engine.layers.runs``), as every catalog model before the layer list was written
    layers: tuple[LayerRun, ...] | None = None
    #: parameters outside the language model (a vision tower and its projector): reported, not estimated
    vision_params: Annotated[int, Field(strict=True, ge=0, le=MAX_PARAMS)] = 0
    #: what an import assumed or left out, shown beside the model
    notes: tuple[Annotated[str, Field(max_length=2_000)], ...] = Field(default=(), max_length=64)

    @model_validator(mode="after")
    def _check(self) -> ModelSpec:
        if self.layers is not None and sum(r.count for r in self.layers) != self.num_layers:
            raise ValueError(
                f"layers: the runs hold {sum(r.count for r in self.layers)} layers, num_layers is {self.num_layers}"
            )
        if self.num_heads % self.num_kv_heads:
            raise ValueError(
                f"num_heads ({self.num_heads}) must be a multiple of num_kv_heads ({self.num_kv_heads})"
            )
        if self.head_dim is None and self.mla is None and self.hidden_size % self.num_heads:
            raise ValueError(
                f"hidden_size ({self.hidden_size}) is not divisible by num_heads ({self.num_heads}); "
                "give head_dim explicitly"
            )
        return self

    @property
    def head_size(self) -> int:
        """Width of one attention head (explicit ``head_dim`` or hidden / heads)."""
        return self.head_dim if self.head_dim is not None else self.hidden_size // self.num_heads

    @property
    def label(self) -> str:
        return self.name or self.id


# -- training -------------------------------------------------------------------------------------------------
class LoraSpec(_Frozen):
    rank: LoraRank = 16
    alpha: Annotated[float, Field(strict=True, allow_inf_nan=False, gt=0, le=1e6)] = 32.0
    dropout: Probability = 0.0
    targets: LoraTargets = LoraTargets.ALL_LINEAR


class QuantSpec(_Frozen):
    """QLoRA storage of the frozen base (Dettmers et al. 2023, arXiv:2305.14314)."""

    quant_type: QuantType = QuantType.NF4
    double_quant: Flag = True
    block_size: Annotated[int, Field(strict=True, ge=16, le=4_096)] = 64
    keep_embeddings_16bit: Flag = True
    keep_lm_head_16bit: Flag = True


Parallel = Annotated[int, Field(strict=True, ge=1, le=1_024)]


class CpCommType(StrEnum):
    """How context parallelism exchanges the sequence (Megatron-Core's ``--cp-comm-type``)."""

    P2P = "p2p"  # ring attention: key / value chunks passed around the ring
    A2A = "a2a"  # DeepSpeed-Ulysses: all-to-all of q, k, v (sequence -> heads) and of the output back


class ParallelSpec(_Frozen):
    """A layout beyond data parallelism: tensor (t), pipeline (p), context (c) and expert (e) parallel sizes.

    The data-parallel size is what is left of the GPUs: dp = gpus / (tp x pp x cp) (checked by
    ``TrainingSetup``); expert parallelism is carved from the data- and context-parallel ranks, and experts are
    split over ``etp`` GPUs (Megatron-Core's default: the tensor-parallel size). The rules that need the model
    (heads, layers, experts) are checked by ``engine.training.layout``.
    """

    tp: Parallel = 1
    pp: Parallel = 1
    cp: Parallel = 1
    ep: Parallel = 1
    etp: Parallel | None = None  # None: the tensor-parallel size (Megatron-Core)
    sequence_parallel: Flag = False
    micro_batches: Annotated[int, Field(strict=True, ge=1, le=65_536)] = 1
    schedule: PipelineSchedule = PipelineSchedule.ONE_F_ONE_B
    virtual_stages: Annotated[int, Field(strict=True, ge=1, le=128)] = 1
    #: layers per pipeline stage, first stage first (None: as even as possible)
    pp_layers: tuple[Annotated[int, Field(strict=True, ge=1, le=1_024)], ...] | None = None
    #: issue 27: context parallelism's exchange, ring (p2p) or DeepSpeed-Ulysses (a2a); left out of JSON at p2p
    cp_comm_type: CpCommType = CpCommType.P2P

    @model_validator(mode="after")
    def _check(self) -> ParallelSpec:
        if self.sequence_parallel and self.tp == 1:
            raise ValueError("sequence parallelism splits the tensor-parallel group's activations: it needs tp > 1")
        if self.virtual_stages > 1 and self.schedule is not PipelineSchedule.INTERLEAVED:
            raise ValueError("virtual stages need the interleaved schedule (--pp-schedule interleaved)")
        if self.schedule is PipelineSchedule.INTERLEAVED and self.pp == 1:
            raise ValueError("the interleaved schedule needs pipeline parallelism (pp > 1)")
        if self.pp_layers is not None and len(self.pp_layers) != self.pp:
            raise ValueError(f"pp_layers lists {len(self.pp_layers)} stages but pp is {self.pp}")
        if self.cp_comm_type is CpCommType.A2A and (self.cp == 1 or self.tp > 1 or self.pp > 1 or self.ep > 1):
            raise ValueError("cp_comm_type a2a (Ulysses) splits the sequence over cp > 1 ranks, costed without "
                             "tensor, pipeline or expert parallelism")
        return self

    @property
    def model_parallel(self) -> int:
        """GPUs one copy of the model is spread over: tp x pp x cp."""
        return self.tp * self.pp * self.cp

    @property
    def expert_tp(self) -> int:
        return self.etp if self.etp is not None else self.tp


class HostSetup(_Frozen):
    """The CPU side of a run: how the model is loaded, how the data is held and read, how the GPUs are spread.

    Defaults describe a plain script (``from_pretrained`` on every process, no dataset given, no DataLoader
    workers); they change nothing on the GPU side.
    """

    model_loading: ModelLoading = ModelLoading.FULL_PER_PROCESS
    dataset_tokens: Annotated[int, Field(strict=True, ge=0, le=10**15)] = 0
    dataset_storage: DatasetStorage = DatasetStorage.ARROW_MMAP
    num_workers: Annotated[int, Field(strict=True, ge=0, le=1_024)] = 0
    prefetch_factor: Annotated[int, Field(strict=True, ge=1, le=1_024)] = 2  # torch's default when num_workers > 0
    pin_memory: Flag = False
    nodes: GpuCount = 1
    #: one node's RAM, for a verdict (None: no verdict)
    ram_bytes: Bytes | None = None


#: the setup fields issue 25's torchtitan / torchtune rules added: left out of every output while at their defaults
STACK_OPTION_FIELDS = ("checkpoint_every", "optimizer_in_backward", "compile", "float8")
#: the setup fields issue 27 added: left out of every output (``TrainingSetup.as_json``, ``dump_json``) while at
#: their defaults
ISSUE_27_FIELDS = ("optimizer_rank", "dora", "modules_to_save", "trainable_tokens", "freeze_layers",
                   "oft_block_size", "offload_optimizer_device", "offload_params_device")


class AllocConf(_Frozen):
    """The options of ``PYTORCH_CUDA_ALLOC_CONF`` that change what PyTorch's caching allocator reserves (the string
    is read by ``engine.allocator.conf.parse``; the rules that use them are ``engine.allocator``'s). Defaults:
    PyTorch's (the variable unset). Bounds: PyTorch's own checks (``c10/core/AllocatorConfig.cpp``:
    ``max_split_size_mb`` and ``max_non_split_rounding_mb`` at least 20, the threshold inside (0, 1), divisions
    0 or a power of two)."""

    expandable_segments: Flag = False
    max_split_size_mb: Annotated[int, Field(strict=True, ge=20, le=2**44)] | None = None
    max_non_split_rounding_mb: Annotated[int, Field(strict=True, ge=20, le=2**44)] | None = None
    garbage_collection_threshold: Annotated[float, Field(gt=0.0, lt=1.0, allow_inf_nan=False)] | None = None
    #: one division per power-of-two interval from 1 MiB (16 of them); empty: none
    roundup_power2_divisions: tuple[Annotated[int, Field(strict=True, ge=0, le=2**20)], ...] = ()
    #: ``per_process_memory_fraction`` (torch 2.13) or ``torch.cuda.set_per_process_memory_fraction``
    per_process_memory_fraction: Annotated[float, Field(gt=0.0, le=1.0, allow_inf_nan=False)] | None = None

    @model_validator(mode="after")
    def _check(self) -> AllocConf:
        d = self.roundup_power2_divisions
        if d and len(d) != 16:
            raise ValueError(f"roundup_power2_divisions: 16 values (one per interval from 1 MiB), found {len(d)}")
        if any(v & (v - 1) for v in d):
            raise ValueError("roundup_power2_divisions: each division is 0 or a power of two")
        return self


class TrainingSetup(_Frozen):
    """One training configuration. Defaults are the seed's: 4,096 tokens, batch 1, bf16 mixed, AdamW."""

    method: Method = Method.FULL
    precision: Precision = Precision.BF16_MIXED
    optimizer: Optimizer = Optimizer.ADAMW
    batch: Batch = 1
    seq_len: SeqLen = 4_096
    grad_accum: Annotated[int, Field(strict=True, ge=1, le=65_536)] = 1
    attention: Attention = Attention.SDPA
    checkpointing: Checkpointing = Checkpointing.NONE
    gpus: GpuCount = 1
    sharding: Sharding = Sharding.NONE
    offload_optimizer: Flag = False
    offload_params: Flag = False
    lora: LoraSpec = LoraSpec()
    quant: QuantSpec = QuantSpec()
    parallel: ParallelSpec = ParallelSpec()
    #: issue 19's long-context levers; the defaults are what every estimate did before them
    loss: Loss = Loss.STANDARD
    #: chunks of a chunked loss; None: the tool's own (TRL's 256-token chunks, torchtune's 8 chunks)
    loss_chunks: LossChunks | None = None
    activation_offload: Flag = False  # saved activations to host RAM (torchtune / TRL OffloadActivations)
    #: with checkpointing full: only every k-th layer is checkpointed, the k-th, 2k-th, ... from the bottom (torchtune
    #: training/activations.py checkpoint_wrapper@0.6.1 ``ac_mode: selective`` / ``ac_option: k``; torchtitan's
    #: ``selective_ac_option = "k"`` before 0.3.0)
    checkpoint_every: Layers = 1
    #: each parameter's optimizer step runs in its gradient's hook during backward (torchtune
    #: ``optimizer_in_bwd``, training/memory.py register_optim_in_bwd_hooks@0.6.1)
    optimizer_in_backward: Flag = False
    compile: Flag = False  # torch.compile of each decoder layer (what inductor's partitioner saves)
    float8: Flag = False  # float8 linears (torchao Float8Linear, torchtitan's float8 converter)
    #: issue 25: whose code runs the step, and torch AdamW's implementation (None: the stack's, STACK_OPTIMIZER_IMPL)
    stack: Stack = Stack.HF_TRAINER
    optimizer_impl: OptimizerImpl | None = None
    #: issue 25: ``sharding`` zero2 / zero3 run by PyTorch FSDP (SHARD_GRAD_OP / FULL_SHARD) of this version
    #: instead of DeepSpeed's ZeRO; hf-trainer's FSDP is accelerate's (``engine.training.policy``)
    fsdp_version: FsdpVersion | None = None
    host: HostSetup = HostSetup()
    #: PYTORCH_CUDA_ALLOC_CONF (issue 26): the caching allocator's options
    alloc_conf: AllocConf = AllocConf()
    #: issue 27: GaLore's and APOLLO's projection rank (transformers' optim_args ``rank``, default 128)
    optimizer_rank: Annotated[int, Field(strict=True, ge=1, le=65_536)] = 128
    #: issue 27: DoRA (PEFT ``use_dora``): LoRA with a trained magnitude per output row (engine.training.saved)
    dora: Flag = False
    #: issue 27: modules trained in full beside LoRA (PEFT ``modules_to_save``), each a trained copy
    modules_to_save: tuple[SavedModule, ...] = Field(default=(), max_length=2)
    #: issue 27: token rows of the embedding trained beside LoRA (PEFT ``trainable_token_indices``: how many)
    trainable_tokens: Annotated[int, Field(strict=True, ge=0, le=4_000_000)] = 0
    #: issue 27: freeze tuning's trainable layers (LLaMA-Factory freeze_trainable_layers): n > 0 the last n,
    #: n < 0 the first -n
    freeze_layers: Annotated[int, Field(strict=True, ge=-1_024, le=1_024)] = 2
    #: issue 27: OFT's block size (PEFT OFTConfig.oft_block_size, default 32)
    oft_block_size: Annotated[int, Field(strict=True, ge=2, le=4_096)] = 32
    #: issue 27: where offloaded optimizer states and parameters go (ZeRO-Infinity's NVMe: engine.training.nvme)
    offload_optimizer_device: OffloadDevice = OffloadDevice.CPU
    offload_params_device: OffloadDevice = OffloadDevice.CPU

    #: fields added after the first release: left out of ``as_json()`` while at their defaults, so that a script's
    #: output does not change until it uses them
    OPTIONAL_IN_JSON: ClassVar[tuple[str, ...]] = ("parallel", "loss", "loss_chunks", "activation_offload", "host",
                                                   "alloc_conf", "fsdp_version", *ISSUE_27_FIELDS,
                                                   *STACK_OPTION_FIELDS)

    @model_validator(mode="after")
    def _check(self) -> TrainingSetup:
        if self.offload_params and self.sharding is not Sharding.ZERO3:
            raise ValueError("offload_params needs sharding zero3 (ZeRO-Infinity / FSDP CPU offload)")
        mp = self.parallel.model_parallel
        if self.gpus % mp:
            p = self.parallel
            raise ValueError(f"gpus ({self.gpus}) must be a whole multiple of tp x pp x cp = {p.tp} x {p.pp} x "
                             f"{p.cp} = {mp} (the rest is data parallelism)")
        if self.gpus % self.host.nodes:
            raise ValueError(f"gpus ({self.gpus}) must be a multiple of host.nodes ({self.host.nodes})")
        if self.fsdp_version is not None and self.sharding not in (Sharding.ZERO2, Sharding.ZERO3):
            raise ValueError(f"fsdp_version {self.fsdp_version} runs sharding zero2 or zero3 through FSDP "
                             f"(SHARD_GRAD_OP / FULL_SHARD); sharding is {self.sharding.value}")
        if self.optimizer_impl is not None and self.optimizer is not Optimizer.ADAMW:
            raise ValueError(f"optimizer_impl {self.optimizer_impl.value} is torch AdamW's implementation; "
                             f"optimizer {self.optimizer.value} has none to choose")
        if self.checkpoint_every > 1 and self.checkpointing is not Checkpointing.FULL:
            raise ValueError(f"checkpoint_every {self.checkpoint_every} checkpoints every k-th layer whole: it needs "
                             f"checkpointing full, not {self.checkpointing.value}")
        self._check_options()
        if self.micro_batch_tokens > MAX_MICRO_BATCH_TOKENS:
            cp = f" / cp {self.parallel.cp}" if self.parallel.cp > 1 else ""
            raise ValueError(f"batch x seq_len{cp} = {self.micro_batch_tokens:,} tokens per GPU in one micro-batch; "
                             f"the engine costs at most {MAX_MICRO_BATCH_TOKENS:,} (2^24): no GPU holds more")
        return self

    def _check_options(self) -> None:
        """Issue 27's options where their library does not run them as the engine costs them (the rules that need the
        model: engine.training.refusals)."""
        o = self.optimizer
        allowed = (Sharding.NONE, Sharding.ZERO3) if o in SHARD_OPTIMIZERS else (Sharding.NONE,)
        if o in PER_TENSOR_OPTIMIZERS and (self.sharding not in allowed or self.offload_optimizer
                                           or self.offload_params or self.parallel.model_parallel > 1):
            where = "ZeRO-1/2 partitions" if o in SHARD_OPTIMIZERS else "ZeRO / FSDP shards"
            raise ValueError(f"optimizer {o.value}: its states follow each tensor's shape; on {where}, offloaded "
                             "or tensor-parallel parameters they are not costed")
        if o in FULL_ONLY_OPTIMIZERS and self.method is not Method.FULL:  # (freeze / BAdam: _check_partial)
            raise ValueError(f"optimizer {o.value} works on the full weights: it needs method full")
        if self.method is Method.LORA_8BIT and self.sharding is Sharding.ZERO3:
            raise ValueError("an 8-bit base (bitsandbytes Int8Params) cannot be sharded by ZeRO-3 / FSDP")
        if self.dora and self.method is not Method.LORA:
            raise ValueError(f"dora is costed on LoRA over a 16-bit base (method lora), not {self.method.value}")
        if self.dora and self.parallel.model_parallel > 1:
            raise ValueError("dora under tensor, pipeline or context parallelism is not costed")
        self._check_saved_modules()
        self._check_nvme()
        self._check_partial()
        if self.method is Method.OFT:
            if self.precision not in (Precision.BF16, Precision.BF16_MIXED, Precision.FP16_MIXED):
                raise ValueError("oft is costed on a 16-bit model: with fp32 weights PEFT's oft.Linear returns each "
                                 "output in the input's fp32, which is not costed")
            if self.optimizer not in SAVED_MODULE_OPTIMIZERS or self.layout_active or self.lora.dropout > 0:
                raise ValueError(f"oft with optimizer {self.optimizer.value}, a layout or dropout is not costed")

    def _check_partial(self) -> None:
        """Freeze tuning and BAdam, where the engine costs them (engine.training.partial)."""
        if self.method not in PARTIAL_METHODS:
            return
        if self.freeze_layers == 0:
            raise ValueError("freeze_layers 0 trains no layer")
        if self.optimizer not in SAVED_MODULE_OPTIMIZERS or (self.optimizer is Optimizer.ADAMW_8BIT and \
                self.method is Method.BADAM):
            raise ValueError(f"{self.method.value} with optimizer {self.optimizer.value} is not costed")
        if self.sharding is not Sharding.NONE or self.layout_active or self.offload_optimizer:
            raise ValueError(f"{self.method.value} is costed on data parallelism without ZeRO, layouts or offload")
        if self.activation_offload or self.checkpointing is Checkpointing.SELECTIVE:
            raise ValueError(f"{self.method.value} with activation offload or selective checkpointing is not costed")
        if self.checkpointing is Checkpointing.FULL and self.attention is Attention.EAGER:
            raise ValueError(f"{self.method.value} with checkpointing and eager attention is not costed")

    def _check_nvme(self) -> None:
        """ZeRO-Infinity's NVMe offload, as DeepSpeed 0.19.8 runs it (engine.training.nvme)."""
        nvme_opt = self.offload_optimizer_device is OffloadDevice.NVME
        nvme_params = self.offload_params_device is OffloadDevice.NVME
        if nvme_opt and not self.offload_optimizer:
            raise ValueError("offload_optimizer_device nvme needs offload_optimizer")
        if nvme_params and not self.offload_params:
            raise ValueError("offload_params_device nvme needs offload_params")
        if nvme_opt and self.sharding is not Sharding.ZERO3:
            raise ValueError("DeepSpeed swaps optimizer states to NVMe under ZeRO-3 only (runtime/zero/stage3.py)")
        if nvme_params and self.method is not Method.FULL:
            raise ValueError("parameter offload to NVMe is costed for full fine-tuning (a LoRA base's frozen "
                             "partitions swap through other buffers)")

    def _check_saved_modules(self) -> None:
        """PEFT's ``modules_to_save`` and ``trainable_token_indices``, where the engine costs them."""
        if not (self.modules_to_save or self.trainable_tokens):
            return
        what = "modules_to_save" if self.modules_to_save else "trainable_tokens"
        if self.method not in LORA_METHODS:
            raise ValueError(f"{what} trains modules beside LoRA: it needs a LoRA method, not {self.method.value}")
        if len(set(self.modules_to_save)) < len(self.modules_to_save):
            raise ValueError("modules_to_save names a module twice")
        if self.optimizer not in SAVED_MODULE_OPTIMIZERS:
            raise ValueError(f"{what} with optimizer {self.optimizer.value} is not costed (its states follow each "
                             "tensor's shape)")
        if self.layout_active:
            raise ValueError(f"{what} under tensor, pipeline, context or expert parallelism is not costed")
        if self.method is Method.QLORA and SavedModule.LM_HEAD in self.modules_to_save and \
                not self.quant.keep_lm_head_16bit:
            raise ValueError("modules_to_save lm_head with a 4-bit output layer is not costed")
        if self.trainable_tokens and SavedModule.EMBED_TOKENS in self.modules_to_save:
            raise ValueError("trainable_tokens and modules_to_save embed_tokens train the same table")

    @property
    def adamw_impl(self) -> OptimizerImpl | None:
        """torch AdamW's implementation this step runs: the one asked for, else the stack's; None for the other
        optimizers (bitsandbytes', Adafactor, Lion, SGD)."""
        if self.optimizer is not Optimizer.ADAMW:
            return None
        return self.optimizer_impl or STACK_OPTIMIZER_IMPL[self.stack]

    @property
    def micro_batch_tokens(self) -> int:
        """Tokens one GPU holds in one micro-batch: batch x seq_len, split over the context-parallel ranks."""
        return -(-self.batch * self.seq_len // self.parallel.cp)

    @property
    def processes_per_node(self) -> int:
        """One training process per GPU, spread evenly over the nodes."""
        return self.gpus // self.host.nodes

    @property
    def dp(self) -> int:
        """Data-parallel size: the GPUs left after tensor, pipeline and context parallelism."""
        return self.gpus // self.parallel.model_parallel

    @property
    def layout_active(self) -> bool:
        """Whether any parallelism beyond data parallelism (or pipeline micro-batching) is asked for."""
        return self.parallel != ParallelSpec()

    def _nested_skip(self) -> dict[str, Any]:
        """Nested fields issue 27 added, left out while at their defaults (``parallel.cp_comm_type``)."""
        return {"parallel": {"cp_comm_type"}} if self.parallel.cp_comm_type is CpCommType.P2P else {}

    def as_json(self) -> dict[str, Any]:
        """The setup as JSON, without the later fields still at their defaults (``OPTIONAL_IN_JSON``); ``stack``
        and ``optimizer_impl`` always (issue 25's contract), the latter as costed: the stack's when none is asked
        for, None for an optimizer that is not torch's AdamW."""
        defaults = TrainingSetup()
        skip: Any = {f: True for f in self.OPTIONAL_IN_JSON if getattr(self, f) == getattr(defaults, f)}
        if "parallel" not in skip:
            skip |= self._nested_skip()
        return self._costed(self.model_dump(mode="json", exclude=skip))

    def full_json(self) -> dict[str, Any]:
        """Every field as JSON (the timeline's setup), ``optimizer_impl`` as costed, the allocator's options and the
        FSDP version once they are set, issue 27's and the stacks' options (``ISSUE_27_FIELDS``,
        ``STACK_OPTION_FIELDS``) only when not at their defaults, so that the
        output does not change until a script uses them."""
        defaults = TrainingSetup()
        quiet = {"alloc_conf"} if self.alloc_conf == AllocConf() else set()
        quiet |= {"fsdp_version"} if self.fsdp_version is None else set()
        quiet |= {f for f in (*ISSUE_27_FIELDS, *STACK_OPTION_FIELDS) if getattr(self, f) == getattr(defaults, f)}
        return self._costed(self.model_dump(mode="json", exclude={**dict.fromkeys(quiet, True),
                                                                  **self._nested_skip()}))

    def _costed(self, out: dict[str, Any]) -> dict[str, Any]:
        impl = self.adamw_impl
        out["optimizer_impl"] = None if impl is None else impl.value
        return out

    def with_(self, **changes: Any) -> TrainingSetup:
        """A copy with fields changed and re-validated."""
        return TrainingSetup.model_validate({**self.model_dump(), **changes})

    def on_one_gpu(self, **changes: Any) -> TrainingSetup:
        """The same training on one GPU of one node: no sharding, no parameter offload, no parallel layout (what
        the whole model's states are counted on); ``changes`` on top. A derived setup (:meth:`derived`), not
        re-validated: with context parallelism its one GPU would hold more tokens than a request may ask for."""
        return self.derived(gpus=1, sharding=Sharding.NONE, offload_params=False, parallel=ParallelSpec(),
                            host=self.host.model_copy(update={"nodes": 1}), **changes)

    def derived(self, **changes: Any) -> TrainingSetup:
        """A copy for a step the engine derives from this setup, not one a user asks for (DPO's chosen and
        rejected pairs, 2 x batch; GRPO's groups, batch x G): top-level fields changed without the bounds of a
        request (``Batch``, ``MAX_MICRO_BATCH_TOKENS``), which this setup passed already."""
        return self.model_copy(update=changes)


class GpuSpec(_Frozen):
    id: Annotated[str, Field(min_length=1, max_length=200)]
    name: Annotated[str, Field(min_length=1, max_length=200)]
    #: the memory the driver reports to CUDA (cudaMemGetInfo's total, torch's total_memory): what vLLM's
    #: gpu_memory_utilization multiplies and what one training process can allocate (see ``memory_kind``)
    memory_bytes: GpuBytes
    vendor: Name = "NVIDIA"
    #: what the CUDA/ROCm context and libraries take outside the allocator (measured: ~0.55 GB on an H200)
    context_bytes: Annotated[int, Field(strict=True, ge=0, le=2**50)] = 550_000_000
    bf16: Flag = True
    #: the share of ``memory_bytes`` one process may use where the vendor caps it (macOS: Metal's
    #: ``recommendedMaxWorkingSetSize``); 1 where no cap is documented
    usable_fraction: Annotated[float, Field(gt=0.0, le=1.0)] = 1.0
    #: memory shared with the CPU (Apple silicon): the operating system and other programs live in it too
    unified_memory: Flag = False
    #: where ``memory_bytes`` comes from (a datasheet, or nvidia-smi on a real card)
    source: Annotated[str, Field(max_length=1000)] = ""
    #: where ``usable_fraction`` comes from
    usable_source: Annotated[str, Field(max_length=1000)] = ""
    #: the capacity printed on the box (80 GB), for reference: ``memory_bytes`` is what the driver reports
    nominal_bytes: Annotated[int, Field(strict=True, ge=1, le=2**50)] | None = None
    #: how ``memory_bytes`` was obtained: "cuda" (cudaMemGetInfo / torch's total_memory measured on the card, as vLLM
    #: and PyTorch see it), "derived" (from a published driver figure by a sourced rule), "smi" (the vendor tool's
    #: total), "vendor" (the capacity in JEDEC units where no driver figure is published: CUDA sees 0.3-0.8 GiB less)
    memory_kind: Literal["cuda", "derived", "smi", "vendor"] = "vendor"
    #: CUDA compute capability (8.0 A100, 8.6 / 8.9 RTX 30 / 40, 9.0 Hopper, 10.0 Blackwell): it picks vLLM's kernels
    #: (Marlin needs 8.0, mxfp4's padding, FlashMLA's block size); 0 where the GPU is not NVIDIA's
    capability: Annotated[float, Field(strict=True, ge=0.0, le=20.0)] = 8.0
    #: how GPUs of one node talk: "pcie" (no peer links), "nvlink" (bridged pairs), "nvswitch" (SXM boards), "none"
    interconnect: Literal["pcie", "nvlink", "nvswitch", "xgmi", "none"] = "pcie"
    #: other names that mean this GPU exactly (``H100`` for the SXM 80 GB, not the NVL), checked before prefixes
    aliases: tuple[Annotated[str, Field(max_length=200)], ...] = Field(default=(), max_length=16)

    @property
    def usable_bytes(self) -> int:
        """The memory one process may use: ``memory_bytes`` times ``usable_fraction``."""
        return int(self.memory_bytes * self.usable_fraction)


def field_bounds(model: type[BaseModel], name: str) -> tuple[float | None, float | None]:
    """(lower, upper) of a numeric field, read from its ``Annotated`` constraints (those of ``X`` in an optional
    ``X | None`` field too)."""
    info = model.model_fields[name]
    metadata = list(info.metadata)
    for arg in get_args(info.annotation):  # ``HeadDim | None``: the bounds sit on the union's member
        for meta in getattr(arg, "__metadata__", ()):
            metadata += meta.metadata if isinstance(meta, FieldInfo) else [meta]
    lo: float | None = None
    hi: float | None = None
    for meta in metadata:
        lo = getattr(meta, "ge", None) if getattr(meta, "ge", None) is not None else lo
        hi = getattr(meta, "le", None) if getattr(meta, "le", None) is not None else hi
    return lo, hi
