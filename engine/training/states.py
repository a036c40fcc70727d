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
* 8-bit optimizers hold each state in 1 byte plus one fp32 absmax per 2,048-element block:
  Dettmers et al. 2022, arXiv:2110.02861, section 2. Paged optimizers keep their states in CUDA unified memory,
  outside PyTorch's caching allocator (bitsandbytes docs, "Paged optimizers").
* Adafactor factors each matrix's second moment into a row and a column vector and keeps no first moment
  by default: Shazeer & Stern 2018, arXiv:1804.04235, section 3. Lion keeps one momentum:
  Chen et al. 2023, arXiv:2302.06675, Algorithm 2.
"""

from __future__ import annotations

from dataclasses import dataclass

from engine.layers import runs
from engine.params import count_params, layer_linears, lora_params, lora_targets
from engine.specs import Method, ModelSpec, Optimizer, OptimizerImpl, TrainingSetup
from engine.training.precision import FP32, HALF, DtypePlan

QUANT_BLOCK = 64
DQ_BLOCKS = 256
OPT8_BLOCK = 2_048


@dataclass(frozen=True, slots=True)
class Counts:
    """Parameter counts by how they are held."""

    total: int
    trainable: int
    frozen_16bit: int  # frozen base held at the regime's weight dtype (LoRA) or 16 bits (QLoRA's rest)
    quantized: int  # QLoRA's 4-bit linears

    @property
    def method_is_full(self) -> bool:
        return self.frozen_16bit == 0 and self.quantized == 0


def block_linear_params(m: ModelSpec) -> int:
    """Weights of every linear in the decoder blocks (what QLoRA quantizes)."""
    return sum(r.count * x.count * x.n_in * x.n_out for r in runs(m) for x in layer_linears(r, m.hidden_size))


def counts(m: ModelSpec, s: TrainingSetup) -> Counts:
    pc = count_params(m)
    if s.method is Method.FULL:
        return Counts(pc.total, pc.total, 0, 0)
    adapters = lora_params(m, s.lora.rank, s.lora.targets)
    if s.method is Method.LORA:
        return Counts(pc.total + adapters, adapters, pc.total, 0)
    quantized = block_linear_params(m)
    if not s.quant.keep_lm_head_16bit:
        quantized += pc.lm_head
    if not s.quant.keep_embeddings_16bit:
        quantized += m.vocab_size * m.hidden_size  # the token table (a tied output layer shares it)
    return Counts(pc.total + adapters, adapters, pc.total - quantized, quantized)


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


def optimizer_state_bytes(m: ModelSpec, s: TrainingSetup, trainable: int, plan: DtypePlan) -> int:
    """Optimizer states plus the fp32 master copy of ``trainable`` parameters held as ``plan`` says (the
    trainable tensors' dtypes, ``engine.training.plan.Plan.trained``), before sharding."""
    master = trainable * plan.master
    o = s.optimizer
    if o is Optimizer.PAGED_ADAMW:  # bitsandbytes' 32-bit states are fp32 whatever the parameter's dtype
        return master + 2 * trainable * FP32  # (bitsandbytes/optim/optimizer.py Optimizer2State.init_state@0.50.2)
    if o is Optimizer.ADAMW:
        return master + 2 * trainable * plan.state
    if o in (Optimizer.ADAMW_8BIT, Optimizer.PAGED_ADAMW_8BIT):
        return master + 2 * (trainable + FP32 * -(-trainable // OPT8_BLOCK))
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


def weight_parts(s: TrainingSetup, c: Counts, dtypes: DtypePlan, adapter: int = FP32) -> dict[str, int]:
    """The weights of ``c`` by how they are stored: trainable, frozen 16-bit (or the regime's dtype ``dtypes``),
    quantized 4-bit and the quantization constants (Dettmers et al. 2023, section 3); LoRA's adapters in
    ``adapter`` bytes (fp32 under PEFT; the model's dtype under torchtune, ``engine.training.stacks``)."""
    if c.method_is_full:
        return {"trainable": c.total * dtypes.weight, "frozen": 0, "quantized_4bit": 0, "quant_constants": 0}
    four_bit = c.quantized // 2
    constants = round(c.quantized * (quant_bits_per_param(s) - 4) / 8) if c.quantized else 0
    frozen = c.frozen_16bit * (HALF if c.quantized else dtypes.weight)
    return {"trainable": c.trainable * adapter, "frozen": frozen, "quantized_4bit": four_bit,
            "quant_constants": constants}


def weights_formula(s: TrainingSetup, c: Counts, dtypes: DtypePlan, adapter: int = FP32) -> str:
    """How the weights of ``c`` are stored, in words (the weights term's detail)."""
    if c.method_is_full:
        return f"{c.total:,} x {dtypes.weight} B"
    if c.quantized:
        return (f"{c.quantized:,} x {quant_bits_per_param(s):.3f} bit (4-bit + constants) + "
                f"{c.frozen_16bit:,} x 2 B (16-bit) + {c.trainable:,} x {adapter} B adapters")
    return f"{c.frozen_16bit:,} x {dtypes.weight} B frozen + {c.trainable:,} x {adapter} B adapters"
