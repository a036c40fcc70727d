"""Model states per GPU: weights, gradients and optimizer states, with LoRA, QLoRA and ZeRO sharding.

Sources, one per rule:

* 16 bytes per parameter for mixed-precision AdamW (2 weights + 2 gradients + 4 master + 4 m + 4 v) and the
  ZeRO stages dividing optimizer states (1), gradients (2) and weights (3) by the GPU count N:
  Rajbhandari et al. 2020, "ZeRO", arXiv:1910.02054, sections 3.1 and 5 (Figure 1).
* LoRA trains ``r * (n_in + n_out)`` per adapted linear, the frozen base gets no gradient or state:
  Hu et al. 2021, arXiv:2106.09685, section 4.1.
* QLoRA stores the frozen linears in 4 bits with one absmax per 64-weight block; double quantization stores those
  absmax values in 8 bits with one fp32 constant per 256 blocks: 0.5 -> 0.127 bits per parameter:
  Dettmers et al. 2023, arXiv:2305.14314, section 3 ("Double Quantization").
* An 8-bit base (``lora-8bit``, transformers ``load_in_8bit``): every ``nn.Linear`` of the decoder blocks becomes a
  bitsandbytes ``Linear8bitLt`` whose ``Int8Params`` hold the weight as int8 (``CB``, 1 byte a weight) and one fp32
  absmax per output row (``SCB``): bitsandbytes 0.50.2 ``nn/modules.py`` ``Int8Params._quantize``
  (``int8_vectorwise_quant``), transformers 5.24 ``integrations/bitsandbytes.py`` ``replace_with_bnb_linear``
  (the output layer is left alone; transformers 5's fused 3-D expert tensors are no ``nn.Linear`` and stay in 16
  bits); Dettmers et al. 2022, LLM.int8(), arXiv:2208.07339, s3.
* Modules trained in full beside LoRA (PEFT 0.21.2 ``modules_to_save``, peft/utils/other.py
  ``ModulesToSaveWrapper.update``: ``copy.deepcopy(self.original_module)``, trained, the original frozen): a copy of
  the token table or the output layer in the model's dtype, with gradients and optimizer states in that dtype
  (torch's AdamW keeps ``zeros_like(p)``); PEFT's ``cast_adapter_dtype`` upcasts only tuner layers' adapters.
  Trained token rows (``trainable_token_indices``, peft/tuners/trainable_tokens/layer.py ``TrainableTokensLayer``):
  an fp32 delta of ``n x h`` (upcast as an adapter) beside a copy of the original rows in the model's dtype.
* 8-bit optimizers hold each state in 1 byte plus one fp32 absmax per block (Dettmers et al. 2022,
  arXiv:2110.02861, section 2), as bitsandbytes 0.50.2 does it tensor by tensor (optim/optimizer.py
  ``Optimizer2State.init_state``): 256-element blocks, fp32 states for a tensor under ``min_8bit_size`` (4,096
  elements), the two code maps (256 fp32 each) once. Paged optimizers keep their states in CUDA unified memory,
  outside PyTorch's caching allocator (bitsandbytes docs, "Paged optimizers"), but only the state buffers of a
  tensor of 1e5 elements or more (``Optimizer8bit.get_state_buffer``); the absmax vectors stay on the device.
  Traced through transformers' Trainer (calibration/stacks/NOTES.md section 1, rule 9).
* Adafactor factors each matrix's second moment into a row and a column vector and keeps no first moment
  by default: Shazeer & Stern 2018, arXiv:1804.04235, section 3. Lion keeps one momentum:
  Chen et al. 2023, arXiv:2302.06675, Algorithm 2.
"""

from __future__ import annotations

from dataclasses import dataclass

from engine.layers import expand, runs
from engine.params import (
    count_params,
    dora_params,
    layer_linears,
    layer_params,
    lora_params,
    lora_targets,
    oft_params,
)
from engine.specs import PARTIAL_METHODS, ExpertStorage, Method, ModelSpec, Optimizer, OptimizerImpl, TrainingSetup
from engine.training.optimizers import PER_TENSOR, OptimizerBytes, optimizer_bytes
from engine.training.partial import trained_layers, trained_plan
from engine.training.precision import FP32, DtypePlan
from engine.training.tensors import trained_tensors

QUANT_BLOCK = 64
DQ_BLOCKS = 256
#: bitsandbytes 0.50.2 optim/optimizer.py: ``Optimizer2State.init_state`` (``blocksize = 256``, ``min_8bit_size``
#: 4,096, ``name2qmap`` "dynamic" and "udynamic") and ``Optimizer8bit.get_state_buffer`` (``p.numel() < 1e5``)
BNB_BLOCK = 256
BNB_MIN_8BIT = 4_096
BNB_PAGED_MIN = 100_000
BNB_QMAPS = 2 * 256 * FP32


@dataclass(frozen=True, slots=True)
class Counts:
    """Parameter counts by how they are held."""

    total: int
    trainable: int
    frozen_16bit: int  # frozen base held at the regime's weight dtype (LoRA) or 16 bits (QLoRA's rest)
    quantized: int  # QLoRA's 4-bit linears, or the 8-bit base's int8 ones
    int8_rows: int = 0  # the 8-bit base: output rows of its int8 linears (one fp32 absmax each, SCB)
    copies: int = 0  # of ``trainable``, the modules trained in full beside LoRA (modules_to_save), model dtype
    token_rows: int = 0  # trainable_token_indices: the original rows kept beside the fp32 delta (model dtype)

    @property
    def method_is_full(self) -> bool:
        return self.frozen_16bit == 0 and self.quantized == 0


def block_linear_params(m: ModelSpec) -> int:
    """Weights of every linear in the decoder blocks (what QLoRA quantizes)."""
    return sum(r.count * x.count * x.n_in * x.n_out for r in runs(m) for x in layer_linears(r, m.hidden_size))


def int8_linears(m: ModelSpec) -> tuple[int, int]:
    """(weights, output rows) of the decoder blocks' ``nn.Linear`` modules, which ``load_in_8bit`` stores in int8
    (fused 3-D expert parameters are not ``nn.Linear``: left in 16 bits)."""
    weights = rows = 0
    for r in runs(m):
        moe = r.mlp.moe if r.mlp is not None else None
        fused = moe is not None and moe.storage is ExpertStorage.FUSED
        for x in layer_linears(r, m.hidden_size):
            if fused and x.role.startswith("experts_"):
                continue
            weights += r.count * x.count * x.n_in * x.n_out
            rows += r.count * x.count * x.n_out
    return weights, rows


def adapter_params(m: ModelSpec, s: TrainingSetup) -> int:
    """What a LoRA setup trains in fp32: the factors, DoRA's magnitude vectors (``engine.params.dora_params``) and
    trained token rows' delta; OFT's rotations (``engine.params.oft_params``)."""
    if s.method is Method.OFT:
        return oft_params(m, s.lora.targets, s.oft_block_size)
    return (lora_params(m, s.lora.rank, s.lora.targets) + (dora_params(m, s.lora.targets) if s.dora else 0)
            + s.trainable_tokens * m.hidden_size)


def copied_params(m: ModelSpec, s: TrainingSetup) -> int:
    """What ``modules_to_save`` trains: a copy of each named module (the token table, the output layer)."""
    return len(s.modules_to_save) * m.vocab_size * m.hidden_size


def partial_params(m: ModelSpec, s: TrainingSetup) -> int:
    """What freeze tuning or BAdam trains: the trained decoder layers' parameters (``engine.training.partial``)."""
    flags = trained_layers(m, s)
    return sum(layer_params(m, kind) for kind, trains in zip(expand(runs(m)), flags, strict=True) if trains)


def counts(m: ModelSpec, s: TrainingSetup) -> Counts:
    pc = count_params(m)
    if s.method is Method.FULL:
        return Counts(pc.total, pc.total, 0, 0)
    if s.method in PARTIAL_METHODS:
        trained = partial_params(m, s)
        return Counts(pc.total, trained, pc.total - trained, 0)
    adapters = adapter_params(m, s)
    copies = copied_params(m, s)
    rows = s.trainable_tokens * m.hidden_size
    trained = adapters + copies
    if s.method in (Method.LORA, Method.OFT):
        return Counts(pc.total + trained, trained, pc.total, 0, copies=copies, token_rows=rows)
    if s.method is Method.LORA_8BIT:
        weights, int8 = int8_linears(m)
        return Counts(pc.total + trained, trained, pc.total - weights, weights, int8, copies, rows)
    quantized = block_linear_params(m)
    if not s.quant.keep_lm_head_16bit:
        quantized += pc.lm_head
    if not s.quant.keep_embeddings_16bit:
        quantized += m.vocab_size * m.hidden_size  # the token table (a tied output layer shares it)
    return Counts(pc.total + trained, trained, pc.total - quantized, quantized, copies=copies, token_rows=rows)


def quant_bits_per_param(s: TrainingSetup) -> float:
    """4 bits plus the quantization constants (Dettmers et al. 2023, section 3)."""
    q = s.quant
    if q.double_quant:
        return 4 + 8 / q.block_size + 32 / (q.block_size * DQ_BLOCKS)
    return 4 + 32 / q.block_size


def trainable_matrices(m: ModelSpec, s: TrainingSetup) -> list[tuple[int, int, int]]:
    """(rows, cols, count) of every trainable tensor; vectors have cols = 1 (Adafactor's factoring)."""
    if s.method is not Method.FULL:
        r = s.lora.rank
        return [
            shape
            for run in runs(m)
            for x in lora_targets(m, run, s.lora.targets)
            for shape in ((r * x.rank_mult, x.n_in, x.count * run.count),
                          (x.n_out, r * x.rank_mult, x.count * run.count))
        ]
    pc = count_params(m)
    mats = [(x.n_out, x.n_in, x.count * run.count) for run in runs(m) for x in layer_linears(run, m.hidden_size)]
    mats.append((m.vocab_size, m.hidden_size, 2 if pc.lm_head else 1))
    in_mats = sum(a * b * c for a, b, c in mats)
    mats.append((pc.total - in_mats, 1, 1))  # norms, biases, position table: not factored
    return mats


#: bitsandbytes' paged optimizers: their states live in CUDA unified memory (``cudaMallocManaged``), outside
#: PyTorch's caching allocator, paged to the host only when the GPU runs short (bitsandbytes docs, "Paged
#: optimizers"; Dettmers et al. 2023, QLoRA, arXiv:2305.14314, s3): on the device, not in the allocated peak
PAGED = (Optimizer.PAGED_ADAMW_8BIT, Optimizer.PAGED_ADAMW)


def per_tensor_bytes(m: ModelSpec, s: TrainingSetup, plan: DtypePlan) -> OptimizerBytes:
    """The states and step temporaries of an optimizer costed tensor by tensor (``engine.training.optimizers``)
    over what ``s`` trains, held as ``plan`` says; nothing for the others."""
    if s.optimizer not in PER_TENSOR:
        return OptimizerBytes(0, 0)
    return optimizer_bytes(s.optimizer, trained_tensors(m, s), plan.state, plan.step_grad, rank=s.optimizer_rank,
                           heads=m.num_heads, hidden=m.hidden_size)


def bnb_state_bytes(m: ModelSpec, s: TrainingSetup) -> tuple[int, int]:
    """(on the device, paged) bytes of a bitsandbytes AdamW's states over the trainable tensors (module
    docstring), tensor by tensor (``engine.training.tensors``): 8-bit, 2 bytes per element and one fp32 absmax
    per 256 elements and state, fp32 states (8 bytes) for a tensor under 4,096 elements, the two code maps once;
    32-bit (``paged-adamw``), 8 bytes. A paged optimizer pages the state buffers of tensors of 1e5 elements or
    more; every absmax stays on the device."""
    eight_bit = s.optimizer in (Optimizer.ADAMW_8BIT, Optimizer.PAGED_ADAMW_8BIT)
    paging = s.optimizer in PAGED and not s.offload_optimizer
    device = paged = 0
    any_8bit = False
    for tensor in trained_tensors(m, s):
        n, k = tensor.numel, tensor.count
        if eight_bit and n >= BNB_MIN_8BIT:
            buffers, absmax, any_8bit = 2 * n, 2 * FP32 * -(-n // BNB_BLOCK), True
        else:
            buffers, absmax = 2 * FP32 * n, 0
        if paging and n >= BNB_PAGED_MIN:
            paged, device = paged + k * buffers, device + k * absmax
        else:
            device += k * (buffers + absmax)
    return device + (BNB_QMAPS if any_8bit else 0), paged


def optimizer_state_bytes(m: ModelSpec, s: TrainingSetup, trainable: int, plan: DtypePlan) -> int:
    """Optimizer states plus the fp32 master copy of ``trainable`` parameters held as ``plan`` says (the
    trainable tensors' dtypes, ``engine.training.plan.Plan.trained``), before sharding; bitsandbytes' (8-bit or
    paged) as :func:`bnb_state_bytes` counts them, paged or not."""
    master = trainable * plan.master
    o = s.optimizer
    if o in PER_TENSOR:
        return master + per_tensor_bytes(m, s, plan).states
    if o is Optimizer.ADAMW:
        return master + 2 * trainable * plan.state
    if o in (Optimizer.PAGED_ADAMW, Optimizer.ADAMW_8BIT, Optimizer.PAGED_ADAMW_8BIT):
        return master + sum(bnb_state_bytes(m, s))
    if o in (Optimizer.LION, Optimizer.SGD_MOMENTUM):
        return master + trainable * plan.state
    if o is Optimizer.SGD:
        return master
    factored = sum((r + c if c > 1 else r) * n for r, c, n in trainable_matrices(m, s))
    return master + factored * plan.state  # Adafactor


def step_temporary(m: ModelSpec, s: TrainingSetup, trainable: int, plan: DtypePlan, divisor: int) -> int:
    """What torch AdamW's implementation allocates in its step on top of the states, on one GPU holding
    ``trainable / divisor`` of the trainable parameters as ``plan`` says (torch/optim/adam.py@2.13):

    * foreach, ``_multi_tensor_adam``: ``exp_avg_sq_sqrt = torch._foreach_sqrt(device_exp_avg_sqs)`` (line 762), a
      new tensor for every state tensor of the (device, dtype) group at once: trainable x state bytes; the weight
      decay, ``lerp_``, ``mul_`` and ``addcmul_`` before it are in place;
    * for-loop, ``_single_tensor_adam``: ``denom = (exp_avg_sq.sqrt() / bias_correction2_sqrt).add_(eps)``, two
      tensors the size of the parameter being updated, the largest one's at most;
    * fused (``torch._fused_adamw_``): nothing the size of a parameter.

    Traced through transformers' Trainer (calibration/stacks/NOTES.md section 2): foreach adds exactly
    trainable x 2 bytes to a bf16 model's step, the for-loop two copies of the 128,256 x 2,048 embedding of
    Llama 3.2 1B."""
    impl = s.adamw_impl
    if impl is OptimizerImpl.FOREACH:
        return -(-trainable * plan.state // divisor)
    if impl is OptimizerImpl.FORLOOP:
        largest = max((r * c for r, c, _ in trainable_matrices(m, s)), default=0)
        return 2 * -(-largest * plan.state // divisor)
    return 0


@dataclass(frozen=True, slots=True)
class ModelStates:
    """Bytes of the model states on one GPU, and this GPU's share of what lives on the host (the whole model's
    is ``engine.training.plan.Plan.host_total``). Built by one rule, ``engine.training.context.gpu_states``."""

    weights: int
    gradients: int  # as held during backward
    step_gradients: int  # as the optimizer step consumes them
    optimizer_states: int  # includes the fp32 master copy; 0 here if offloaded or paged
    paged_states: int  # paged optimizer states (unified memory, outside the allocator)
    host: int  # this GPU's share of the offloaded states
    weights_full: int  # this GPU's weights as stored, before ZeRO-3 and offload (the whole model on one stage)
    counts: Counts
    weight_detail: str
    divisor_weights: int
    divisor_grads: int
    divisor_states: int
    #: what the optimizer's ``step()`` allocates on top, on this GPU (engine.training.optimizers)
    step_temporaries: int = 0


def weight_parts(s: TrainingSetup, c: Counts, dtypes: DtypePlan, adapter: int = FP32) -> dict[str, int]:
    """The weights of ``c`` by how they are stored: trainable, frozen 16-bit (or the regime's dtype ``dtypes``),
    quantized 4-bit and the quantization constants (Dettmers et al. 2023, section 3); LoRA's adapters in
    ``adapter`` bytes (fp32 under PEFT; the model's dtype under torchtune, ``engine.training.stacks``)."""
    if c.method_is_full:
        return {"trainable": c.total * dtypes.weight, "frozen": 0, "quantized_4bit": 0, "quant_constants": 0}
    if s.method in PARTIAL_METHODS:  # the trained layers as engine.training.partial keeps them
        return {"trainable": c.trainable * trained_plan(s, dtypes).weight, "frozen": c.frozen_16bit * dtypes.weight,
                "quantized_4bit": 0, "quant_constants": 0}
    # the frozen base's unquantized tensors: 16 bits beside a quantized base, or what the stack casts them to
    # (PEFT's kbit preparation: fp32, ``DtypePlan.frozen``, engine.training.policy); else the regime's weights
    base = dtypes.frozen if c.quantized else dtypes.weight
    trainable = (c.trainable - c.copies) * adapter + c.copies * base  # the adapters; modules_to_save's copies
    frozen = (c.frozen_16bit + c.token_rows) * base  # trainable tokens keep their original rows too
    if c.int8_rows:  # the 8-bit base: int8 weights and an fp32 absmax per output row (LLM.int8)
        return {"trainable": trainable, "frozen": frozen, "quantized_4bit": 0,
                "quant_constants": c.int8_rows * FP32, "quantized_8bit": c.quantized}
    four_bit = c.quantized // 2
    constants = round(c.quantized * (quant_bits_per_param(s) - 4) / 8) if c.quantized else 0
    return {"trainable": trainable, "frozen": frozen, "quantized_4bit": four_bit, "quant_constants": constants}


def weights_formula(s: TrainingSetup, c: Counts, dtypes: DtypePlan, adapter: int = FP32) -> str:
    """How the weights of ``c`` are stored, in words (the weights term's detail)."""
    if c.method_is_full:
        return f"{c.total:,} x {dtypes.weight} B"
    if s.method in PARTIAL_METHODS:
        return (f"{c.trainable:,} x {trained_plan(s, dtypes).weight} B trained layers + {c.frozen_16bit:,} x "
                f"{dtypes.weight} B frozen")
    if c.int8_rows:
        return (f"{c.quantized:,} x 1 B (int8) + {c.int8_rows:,} x 4 B row scales + {c.frozen_16bit:,} x 2 B "
                f"(16-bit) + {c.trainable:,} x 4 B adapters")
    if c.quantized:
        return (f"{c.quantized:,} x {quant_bits_per_param(s):.3f} bit (4-bit + constants) + "
                f"{c.frozen_16bit:,} x {dtypes.frozen} B ({'fp32' if dtypes.frozen == FP32 else '16-bit'}) + "
                f"{c.trainable:,} x {adapter} B adapters")
    return f"{c.frozen_16bit:,} x {dtypes.weight} B frozen + {c.trainable:,} x {adapter} B adapters"
