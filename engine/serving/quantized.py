"""A checkpoint's weights as vLLM holds them on one GPU: each module in its stored format, split by tensor parallelism.

What ``Model loading took X GiB`` reports is PyTorch's allocated bytes after the load (``DeviceMemoryProfiler``:
``torch.cuda.memory_allocated`` before and after ``load_model``, once ``process_weights_after_loading`` has repacked
the weights): every parameter and buffer on the GPU. The modules come from the model's layer runs
(``engine.params``, exact counts per module kind); each is then sized in its format:

* 16-bit (bf16, fp16): 2 bytes a weight;
* ``fp8`` (``--quantization fp8``, FP8 checkpoints): 1 byte a weight plus float32 scales (per tensor, per channel or
  per 128 x 128 block: under 0.01 bit a weight; vllm/model_executor/layers/quantization/fp8.py);
* ``int8`` (W8A8, compressed-tensors): 1 byte a weight plus a float32 scale per output channel;
* ``int4-gptq`` (group 128): ``qweight`` int32 [K/8, N] (4 bits) and fp16 ``scales`` [K/128, N]; the Marlin kernel
  (compute capability 8.0+, gptq_marlin.py ``process_weights_after_loading``) drops the symmetric ``qzeros`` and the
  unused ``g_idx``; the exllama path (older GPUs, gptq.py) keeps ``qzeros`` int32 [K/128, N/8] and ``g_idx`` int32 [K];
* ``int4-awq`` (group 128): ``qweight`` int32 [K, N/8], ``qzeros`` int32 [K/128, N/8], fp16 ``scales`` [K/128, N]
  (awq.py, awq_marlin.py keeps all three, repacked to the same sizes);
* ``nf4`` (bitsandbytes, blocks of 64): packed uint8 (4 bits) and one absmax per block, double-quantized (uint8 plus
  a float32 per 256 blocks, ``quantize_4bit(compress_statistics=True)``) until 0.9, dequantized to float32 at load
  from 0.10.0 (bitsandbytes_loader.py ``_dequantize_dq``);
* ``mxfp4`` (gpt-oss): the routed experts only, uint8 pairs of 4-bit values and a uint8 (e8m0) scale per 32, padded
  by the MoE kernel the GPU gets (mxfp4.py ``Mxfp4MoEMethod.create_weights``: Marlin below compute capability 9.0
  pads the intermediate size to 128 and the hidden size to 256; FlashInfer on 10.0 both to 256; Triton on 9.0 the
  intermediate size to 64); attention, router, embeddings and output layer stay bf16;
* ``nvfp4``: 4 bits and one fp8 scale per 16 weights (modelopt.py ``ModelOptNvFp4LinearMethod``);
* GGUF (gguf.py: the file's blocks are loaded as they are, ``GGUFLinearMethod`` / ``GGUFEmbeddingMethod``): Q8_0 is
  34 bytes per 32 weights (8.5 bits), Q4_K 144 bytes per 256 (4.5 bits), Q6_K 210 per 256 (6.5625 bits). Q4_K_M files
  keep ``output.weight`` in Q6_K, and ``attn_v`` and ``ffn_down`` in Q6_K in the layers llama.cpp's ``use_more_bits``
  picks (the first and last eighth, and every third between), Q4_K elsewhere, embeddings included
  (llama.cpp src/llama-quant.cpp ``llama_tensor_get_type``).

Every quantized format but GGUF and mxfp4 keeps the token embedding, the output layer (``lm_head``), the norms, the
MoE router and the shared-expert gate in 16 bits (``ParallelLMHead``, ``VocabParallelEmbedding`` and
``ReplicatedLinear(..., quant_config=None)`` routers); biases stay 16-bit everywhere.

Tensor parallelism (vllm/model_executor/layers/linear.py): column-parallel layers (q, k, v, gate, up, the experts'
intermediate) split their outputs over T GPUs, row-parallel ones (o, down) their inputs; K and V keep at least one
head per GPU (``QKVParallelLinear``: ``num_kv_head_replicas``); MLA's ``q_a`` / ``kv_a`` and the router are
replicated; the vocabulary is padded to a multiple of 64 (``DEFAULT_VOCAB_PADDING_SIZE``) and split. The rotary
embedding's ``cos_sin_cache`` (max_position x rotary_dim in the model dtype, one shared by every layer:
rotary_embedding ``get_rope``) is a buffer on every GPU.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from dataclasses import dataclass
from enum import StrEnum

from engine.layers import attention_of, expand, mlp_of, runs
from engine.params import Linear, attention_linears, attention_norm_params, mlp_linears, norm_params
from engine.specs import AttentionSpec, LayerSpec, ModelSpec, PositionKind

VOCAB_PADDING = 64
#: what the refusals of a layer kind name (vLLM refuses such models first: engine.serving.vllm.schedule)
WEIGHTS = "vLLM's weights"
GROUP = 128  # GPTQ / AWQ group size
NF4_BLOCK = 64


class WeightFormat(StrEnum):
    BF16 = "bf16"
    FP16 = "fp16"
    FP8 = "fp8"
    INT8 = "int8"
    INT4_GPTQ = "int4-gptq"
    INT4_AWQ = "int4-awq"
    NF4 = "nf4"
    MXFP4 = "mxfp4"
    GGUF_Q8_0 = "gguf-q8_0"
    GGUF_Q4_K_M = "gguf-q4_k_m"
    NVFP4 = "nvfp4"


#: formats whose checkpoints keep the activations in fp16 (vLLM casts bf16 to fp16 for GPTQ / AWQ / GGUF)
FP16_FORMATS = frozenset({WeightFormat.FP16, WeightFormat.INT4_GPTQ, WeightFormat.INT4_AWQ,
                          WeightFormat.GGUF_Q8_0, WeightFormat.GGUF_Q4_K_M})
#: the linears no format quantizes: the router and the shared-expert gate (``ReplicatedLinear``, no quant_config)
_NEVER_QUANTIZED = frozenset({"router", "shared_expert_gate"})
_COLUMN = frozenset({"q", "k", "v", "qkv", "gate", "up", "gate_up", "q_b", "kv_b", "experts_gate_up",
                     "experts_gate", "experts_up", "shared_gate", "shared_up", "shared_gate_up"})
_ROW = frozenset({"o", "down", "experts_down", "shared_down"})
# GGUF blocks: (weights per block, bytes per block)
_Q8_0, _Q4_K, _Q6_K = (32, 34), (256, 144), (256, 210)


@dataclass(frozen=True, slots=True)
class Module:
    """One tensor kind on one GPU: ``count`` copies of ``rows x cols`` weights (``rows``: outputs)."""

    kind: str  # embedding, lm_head, attention, mlp, experts, router, norms, rope
    role: str
    rows: int
    cols: int
    count: int = 1
    layer: int = -1
    bias: int = 0  # bias elements (16-bit)
    quantizable: bool = True

    @property
    def weights(self) -> int:
        return self.count * self.rows * self.cols


@dataclass(frozen=True, slots=True)
class Kernel:
    """What decides a format's layout beyond the checkpoint: the GPU's compute capability, vLLM's version."""

    capability: float = 9.0
    bnb_fp32_absmax: bool = True


def _split(x: Linear, a: AttentionSpec, tp: int) -> tuple[int, int, int]:
    """(rows, cols, bias elements) of linear ``x`` of a layer with attention ``a`` on one of ``tp`` GPUs."""
    rows, cols = x.n_out, x.n_in
    kv = max(1, a.num_kv_heads // tp)
    if x.role in ("k", "v") and a.mla is None:
        rows = kv * a.head_dim
    elif x.role == "qkv":
        rows = (math.ceil(a.num_heads / tp) + 2 * kv) * a.head_dim
    elif x.role in _COLUMN:
        rows = math.ceil(x.n_out / tp)
    elif x.role in _ROW:
        cols = math.ceil(x.n_in / tp)
    return rows, cols, (rows if x.bias else 0)


def _layer_modules(m: ModelSpec, layer: LayerSpec, index: int, tp: int) -> Iterator[Module]:
    h, a = m.hidden_size, attention_of(layer, WEIGHTS)
    for x in attention_linears(a, h):
        rows, cols, bias = _split(x, a, tp)
        yield Module("attention", x.role, rows, cols, x.count, index, bias)
    for x in mlp_linears(mlp_of(layer, WEIGHTS), h):
        rows, cols, bias = _split(x, a, tp)
        kind = "experts" if x.role.startswith("experts_") else "router" if x.role in _NEVER_QUANTIZED else "mlp"
        yield Module(kind, x.role, rows, cols, x.count, index, bias * x.count, x.role not in _NEVER_QUANTIZED)
    norms = layer.norms * norm_params(m) + attention_norm_params(a)
    yield Module("norms", "norms", norms, 1, layer=index, quantizable=False)


def modules(m: ModelSpec, tp: int = 1, *, layers: tuple[int, int] | None = None, first: bool = True,
            last: bool = True) -> list[Module]:
    """Every weight tensor one GPU holds: decoder layers ``layers`` (a [start, end) range; all by default), the
    embedding on the first pipeline stage, the final norm and the output layer on the last (a tied output layer
    is the embedding on a single stage and a copy on the last of several)."""
    vocab = -(-m.vocab_size // VOCAB_PADDING) * VOCAB_PADDING
    start, end = layers if layers is not None else (0, m.num_layers)
    out: list[Module] = []
    if first:
        out.append(Module("embedding", "embedding", vocab // tp, m.hidden_size))
        if m.positions is PositionKind.LEARNED:
            out.append(Module("embedding", "positions", m.max_position, m.hidden_size, quantizable=False))
    for i, layer in enumerate(expand(runs(m))):
        if start <= i < end:
            out += _layer_modules(m, layer, i, tp)
    if last:
        out.append(Module("norms", "final_norm", norm_params(m), 1, quantizable=False))
        if not m.tie_embeddings or not first:
            out.append(Module("lm_head", "lm_head", vocab // tp, m.hidden_size))
    return out


def rope_cache_bytes(m: ModelSpec) -> int:
    """``cos_sin_cache``: max_position x rotary_dim x 2 bytes (cos and sin halves of rotary_dim), one per model."""
    if m.positions is not PositionKind.ROPE:
        return 0
    rotary = m.mla.qk_rope_head_dim if m.mla is not None else m.head_size
    if any(attention_of(r, WEIGHTS).partial_rotary for r in runs(m)):
        rotary //= 2
    return m.max_position * rotary * 2


def _gguf_q4km_type(module: Module, n_layers: int) -> tuple[int, int]:
    """Q4_K_M's block type for one tensor (llama.cpp ``llama_tensor_get_type``)."""
    if module.role == "lm_head":
        return _Q6_K
    i = module.layer
    more = i < n_layers // 8 or i >= 7 * n_layers // 8 or (i - n_layers // 8) % 3 == 2
    if more and module.role in ("v", "down", "experts_down"):
        return _Q6_K
    return _Q4_K


def _gguf_bytes(module: Module, block: tuple[int, int]) -> int:
    """Blocks run along a row (the input dimension): rows x ceil(cols / block weights) x block bytes."""
    size, nbytes = block
    return module.count * module.rows * -(-module.cols // size) * nbytes


def _quantized_bytes(module: Module, fmt: WeightFormat, kernel: Kernel) -> int:
    """One quantizable linear in ``fmt`` (module docstring)."""
    n, k, e = module.rows, module.cols, module.count
    groups = -(-k // GROUP)
    if fmt is WeightFormat.FP8:
        return e * (k * n + 4 * n)
    if fmt is WeightFormat.INT8:
        return e * (k * n + 4 * n)
    if fmt is WeightFormat.INT4_GPTQ:
        extra = 0 if kernel.capability >= 8.0 else groups * n // 2 + 4 * k
        return e * (k * n // 2 + 2 * groups * n + extra)
    if fmt is WeightFormat.INT4_AWQ:
        return e * (k * n // 2 + 2 * groups * n + groups * n // 2)
    if fmt is WeightFormat.NF4:
        blocks = -(-k * n // NF4_BLOCK)
        absmax = 4 * blocks if kernel.bnb_fp32_absmax else blocks + 4 * -(-blocks // 256)
        return e * (k * n // 2 + absmax)
    if fmt is WeightFormat.NVFP4:
        return e * (k * n // 2 + k * n // 16 + 8)
    raise ValueError(f"{fmt.value} is not a per-linear format")


def _mxfp4_pad(module: Module, kernel: Kernel) -> tuple[int, int]:
    """The (rows, cols) an mxfp4 expert tensor is allocated with (``Mxfp4MoEMethod.create_weights``)."""
    inter_pad, hidden_pad = (128, 256) if kernel.capability < 9.0 else (256, 256) if kernel.capability >= 10.0 \
        else (64, 1)
    up = module.role == "experts_gate_up"
    inter = module.rows // 2 if up else module.cols
    hidden = module.cols if up else module.rows
    inter, hidden = -(-inter // inter_pad) * inter_pad, -(-hidden // hidden_pad) * hidden_pad
    return (2 * inter, hidden) if up else (hidden, inter)


def module_bytes(module: Module, fmt: WeightFormat, kernel: Kernel, n_layers: int) -> int:
    """Bytes of ``module`` on the GPU in format ``fmt`` (biases 16-bit)."""
    bias = 2 * module.bias
    if module.kind == "norms" or not module.quantizable:
        return 2 * module.weights + bias
    if fmt in (WeightFormat.GGUF_Q8_0, WeightFormat.GGUF_Q4_K_M):
        per = _Q8_0 if fmt is WeightFormat.GGUF_Q8_0 else _gguf_q4km_type(module, n_layers)
        return _gguf_bytes(module, per) + bias
    if fmt in (WeightFormat.BF16, WeightFormat.FP16) or module.kind in ("embedding", "lm_head"):
        return 2 * module.weights + bias
    if fmt is WeightFormat.MXFP4:
        if module.kind != "experts":
            return 2 * module.weights + bias
        rows, cols = _mxfp4_pad(module, kernel)
        padded_bias = module.count * rows if module.bias else 0
        return module.count * (rows * cols // 2 + rows * cols // 32) + 2 * padded_bias
    return _quantized_bytes(module, fmt, kernel) + bias


def weights_by_kind(m: ModelSpec, fmt: WeightFormat, tp: int = 1, *, kernel: Kernel | None = None,
                    layers: tuple[int, int] | None = None, first: bool = True, last: bool = True) -> dict[str, int]:
    """Bytes on one GPU by module kind (embedding, attention, mlp, experts, router, norms, lm_head, rope)."""
    kernel = kernel or Kernel()
    out: dict[str, int] = {}
    for module in modules(m, tp, layers=layers, first=first, last=last):
        out[module.kind] = out.get(module.kind, 0) + module_bytes(module, fmt, kernel, m.num_layers)
    out["rope"] = rope_cache_bytes(m)
    return out


def bits_per_weight(m: ModelSpec, fmt: WeightFormat, kernel: Kernel | None = None) -> float:
    """The checkpoint's average bits per parameter on one GPU (TP 1), rope cache excluded."""
    kernel = kernel or Kernel()
    listed = modules(m)
    weights = sum(x.weights + x.bias for x in listed)
    return 8 * sum(module_bytes(x, fmt, kernel, m.num_layers) for x in listed) / weights
