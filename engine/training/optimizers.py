"""Optimizers whose memory depends on each trainable tensor: their states and what their ``step()`` allocates.

Every rule reads the trainable tensors (``engine.training.tensors``) and two byte sizes from the plan's dtypes of
what trains: ``g``, one state element as the optimizer creates it (``zeros_like`` of the parameter, or of its
gradient: the same dtype in every regime the engine costs) and ``grad``, one gradient element as ``step()`` sees it.
The step walks the parameters one at a time unless said otherwise, so its temporaries are those of the largest
tensor. Sources, read at these versions:

* ``adamw-4bit`` / ``adamw-8bit-torchao``: torchao 0.18.0 ``torchao/optim/adam.py`` (``_AdamBase._new_buffer``:
  a tensor of at least 4,096 values whose count the block size divides gets quantized states, any other
  ``zeros_like(p)``), with transformers' ``optim: adamw_torch_4bit`` / ``adamw_torch_8bit``, which pass
  ``block_size=256`` to both (``trainer_optimizer.py`` ``_get_torchao_optimizer``; torchao's own default for
  ``AdamW4bit`` is 128: 0.016 bytes a value less of scales), ``subclass_4bit.py``
  (``OptimState4bit.zeros``: codes packed two to a byte, one fp32 scale per block, a 16-entry fp32 map per state;
  the first moment on a signed dynamic-tree map, the second on a linear unsigned one) and ``subclass_8bit.py``
  (one byte per value, a 256-entry map). ``step()`` runs ``single_param_adam`` under ``torch.compile``; the
  buffers inductor's generated code allocates for one quantized tensor of n values (torch 2.13.0, read from its
  output code and its allocator peak on this CPU): per state the unpacked 4-bit codes (n bytes), the rescaled
  fp32 state (4n), the int64 codes (8n) and the block scales (4n/256); for the 8-bit one the rescaled fp32 state
  and its scales (4n + 4n/256).
* ``rmsprop`` / ``rmsprop-momentum``: torch 2.13.0 ``torch/optim/rmsprop.py``: ``square_avg`` (and
  ``momentum_buffer`` with momentum > 0), ``zeros_like(p)``; on CUDA ``_default_to_fused_or_foreach`` picks the
  foreach implementation, whose ``_multi_tensor_rmsprop`` makes ``avg = torch._foreach_sqrt(square_avgs)``: one
  more state's worth for every tensor at once. transformers' ``optim: rmsprop`` passes only ``optim_args``
  (``trainer_optimizer.py`` ``_get_rmsprop``): momentum 0 unless given.
* ``muon``: torch 2.13.0 ``torch/optim/_muon.py``: one ``momentum_buffer`` (``zeros_like(p.grad)``) per 2-D
  matrix; ``_single_tensor_muon`` per matrix: ``update = grad.lerp(buf)`` in the gradient's dtype, then
  ``_zeropower_via_newtonschulz``: a bf16 copy (none when the gradient is bf16), and in each of the 5 iterations
  the ``k x k`` Gram matrix (k = the smaller side) and its update while the previous ones are alive, and a new
  bf16 ``m x n`` iterate beside the previous one: ``(grad + 4) m n + 4 k^2`` at its largest. Muon takes 2-D
  parameters only (its constructor refuses others), so the recipe everyone follows (KellerJordan/Muon's README,
  Moonlight's ``examples/toy_train.py``, LLaMA-Factory's ``use_muon``) puts the decoder blocks' matrices (and
  LoRA's factors) on Muon and the embeddings, output layer, norms, biases and 3-D expert stacks on AdamW (fused:
  two states, no temporaries).
* ``galore-adamw``: galore-torch 1.0 ``galore_torch/adamw.py`` and ``galore_projector.py`` (``proj_type="std"``)
  with transformers' defaults (``trainer_optimizer.py`` ``_get_galore_optimizer``: rank 128, a new projector
  every 200 steps, the first step included) on the decoder blocks' ``nn.Linear`` weights (``optim_target_modules``
  ``["attn", "mlp"]``, LLaMA-Factory's ``galore_target: all``); every other parameter is AdamW inside the same
  loop. For an ``m x n`` weight, r = min(rank, m, n): the states are the projected gradient's, ``r x max(m, n)``
  each; the projector ``Vh[:r]`` (m >= n) or ``U[:, :r]`` cast to the gradient's dtype, or, for an fp32 gradient,
  a view that keeps the whole ``k x k`` factor alive. ``get_orthogonal_matrix`` runs ``torch.linalg.svd`` on an
  fp32 copy (the solver's own workspace is not counted); the update makes the projected gradient, ``denom``,
  ``exp_avg / denom`` and, projecting back, two ``m x n`` tensors (the product and its ``* scale``).
* ``apollo-adamw``: apollo-torch 1.0.3 ``apollo_torch/apollo.py`` and ``random_projector.py`` with transformers'
  defaults (``_get_apollo_optimizer``: rank 128, ``proj="random"``, ``scale_type="channel"``, 200 steps,
  ``proj_type="std"``): the same targets and states as GaLore's; the projector is ``stable_randn`` (``r x n`` or
  ``m x r``) of an fp32 copy's shape, divided by sqrt(r), cast to the gradient's dtype; the update makes the
  projected gradient, ``denom``, ``exp_avg / denom`` and ``p.grad * grad_scaling_factor`` (``m x n``), divided by
  the norm-growth limiter from the second step on (a second ``m x n``).
* ``adam-mini``: adam-mini 1.1.1 ``adam_mini/adam_mini.py`` (``Adam_mini.step``), as LLaMA-Factory's
  ``use_adam_mini`` builds it (``dim`` = hidden size, ``n_heads``, ``n_kv_heads``): one first moment per value;
  the second moment one per value for biases, one per head (``dim * dim / n_heads`` values) for q and k, one per
  output row for the embedding, output layer, v, o and MLP weights, one scalar for every other tensor (norms);
  each step makes ``update = m * stepsize`` and ``-update``: two tensors of the parameter's size.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from engine.specs import Optimizer
from engine.training.tensors import Tensor

#: torchao's rule: only tensors of at least this many values get quantized states (``_AdamBase._new_buffer``)
TORCHAO_MIN_NUMEL = 4_096
TORCHAO_BLOCK = {Optimizer.ADAMW_4BIT: 256, Optimizer.ADAMW_8BIT_TORCHAO: 256}  # transformers' block_size
#: bytes of one quantized state: codes per value, and the quantization map's fp32 entries per tensor
_CODE_BYTES = {Optimizer.ADAMW_4BIT: 0.5, Optimizer.ADAMW_8BIT_TORCHAO: 1.0}
_QMAP = {Optimizer.ADAMW_4BIT: 16 * 4, Optimizer.ADAMW_8BIT_TORCHAO: 256 * 4}
STEP_TENSOR = 4  # torchao's and torch's RMSprop's ``state["step"]``: an fp32 scalar tensor per parameter
GALORE_RANK = 128  # transformers' default (``optim_args`` rank)
NS_BF16 = 2  # Newton-Schulz runs in bf16

#: the optimizers this module costs (every other one is ``engine.training.states``')
PER_TENSOR = frozenset({Optimizer.ADAMW_4BIT, Optimizer.ADAMW_8BIT_TORCHAO, Optimizer.RMSPROP,
                        Optimizer.RMSPROP_MOMENTUM, Optimizer.MUON, Optimizer.GALORE_ADAMW, Optimizer.APOLLO_ADAMW,
                        Optimizer.ADAM_MINI})
LOW_RANK = frozenset({Optimizer.GALORE_ADAMW, Optimizer.APOLLO_ADAMW})


@dataclass(frozen=True, slots=True)
class OptimizerBytes:
    """An optimizer's states (without any master copy) and the most its ``step()`` allocates on top."""

    states: int
    step_temporaries: int


def _quantized(opt: Optimizer, t: Tensor) -> bool:
    return t.numel >= TORCHAO_MIN_NUMEL and t.numel % TORCHAO_BLOCK[opt] == 0


def _torchao(opt: Optimizer, tensors: Iterable[Tensor], g: int) -> OptimizerBytes:
    block, code, qmap = TORCHAO_BLOCK[opt], _CODE_BYTES[opt], _QMAP[opt]
    states = temps = 0
    for t in tensors:
        n = t.numel
        if _quantized(opt, t):
            one = int(n * code) + 4 * (n // block) + qmap
            buffers = (n + 4 * n + 8 * n) if opt is Optimizer.ADAMW_4BIT else 4 * n  # see the module docstring
            temps = max(temps, 2 * (buffers + 4 * (n // block)))
        else:
            one = n * g
        states += t.count * (2 * one + STEP_TENSOR)
    return OptimizerBytes(states, temps)


def _muon(tensors: Iterable[Tensor], g: int, grad: int) -> OptimizerBytes:
    states = temps = 0
    for t in tensors:
        if t.matrix:
            m, n = t.shape
            states += t.total * g
            temps = max(temps, (grad + 2 * NS_BF16) * m * n + 2 * NS_BF16 * min(m, n) ** 2)
        else:
            states += 2 * t.total * g  # AdamW (fused)
    return OptimizerBytes(states, temps)


def _svd_phase(m: int, n: int, r: int, grad: int) -> int:
    """galore_projector.py ``get_orthogonal_matrix`` (``proj_type="std"``): an fp32 copy of the gradient, the thin
    SVD's ``U``, ``S`` and ``Vh``, then the rank-r factor it keeps and its cast."""
    k = min(m, n)
    cast = 4 * m * n if grad < 4 else 0
    svd = 4 * (m * k + k + k * n)
    if m >= n:  # 'right': A = U[:, :r] @ diag(s[:r]); B = Vh[:r, :] cast
        rest = max(4 * r * r + 4 * m * r, 4 * m * r + (r * n * grad if grad < 4 else 0))
    else:  # 'left': A = U[:, :r] cast; B = diag(s[:r]) @ Vh[:r, :]
        rest = max(4 * r * r + 4 * r * n, 4 * r * n + (m * r * grad if grad < 4 else 0))
    return cast + svd + rest


def low_rank_matrix(opt: Optimizer, shape: tuple[int, int], g: int, grad: int, rank: int) -> tuple[int, int, int]:
    """(states with the projector, temporaries of a projector refresh, temporaries of an update) of GaLore or
    APOLLO on one ``m x n`` weight (module docstring)."""
    m, n = shape
    k, big = min(m, n), max(m, n)
    update = 3 * min(rank, k if opt is Optimizer.GALORE_ADAMW else rank) * big * grad + 2 * m * n * grad
    if opt is Optimizer.GALORE_ADAMW:
        r = min(rank, k)
        projector = r * k * g if g < 4 else k * k * 4
        return 2 * r * big * g + projector, _svd_phase(m, n, r, grad), update
    # APOLLO: a random projector, re-drawn every 200 steps; its step keeps the norm of the scaled gradient (a
    # scalar), and the update also holds the channel-wise scaling factor (one value per row or column of the
    # projected gradient) and the limiter's two scalars
    projector = rank * k * g
    update += big * grad + 2 * grad
    return 2 * rank * big * g + projector + grad, (4 * m * n if grad < 4 else 0) + 8 * rank * k, update


def _low_rank(opt: Optimizer, tensors: Iterable[Tensor], g: int, grad: int, rank: int) -> OptimizerBytes:
    states = temps = 0
    for t in tensors:
        if t.role != "linear":
            states += 2 * t.total * g
            temps = max(temps, 2 * t.numel * g)  # denom and exp_avg / denom
            continue
        held, refresh, update = low_rank_matrix(opt, (t.shape[0], t.shape[1]), g, grad, rank)
        states += t.count * held
        temps = max(temps, refresh, update)
    return OptimizerBytes(states, temps)


def _adam_mini(tensors: Iterable[Tensor], g: int, heads: int, hidden: int) -> OptimizerBytes:
    head_numel = hidden * hidden // heads
    states = temps = 0
    for t in tensors:
        n = t.numel
        if t.role == "bias":
            second = n
        elif t.role == "linear" and t.proj in ("q", "k"):
            second = n // head_numel  # one per head: the weight viewed as (-1, dim * dim / n_heads)
        elif t.role in ("linear", "embedding", "lm_head"):
            second = t.shape[0]  # one per output row
        else:
            second = 1  # norms and anything else: one scalar
        states += t.count * (n + second) * g
        temps = max(temps, 2 * n * g)
    return OptimizerBytes(states, temps)


#: where each rule comes from, in a term's words
SOURCES = {
    Optimizer.ADAMW_4BIT: "torchao 0.18 optim/adam.py (_AdamBase._new_buffer, compiled single_param_adam), "
                          "optim/subclass_4bit.py (OptimState4bit)",
    Optimizer.ADAMW_8BIT_TORCHAO: "torchao 0.18 optim/adam.py (_AdamBase._new_buffer, compiled single_param_adam), "
                                  "optim/subclass_8bit.py (OptimState8bit)",
    Optimizer.RMSPROP: "torch 2.13 optim/rmsprop.py (_multi_tensor_rmsprop: foreach, CUDA's default)",
    Optimizer.RMSPROP_MOMENTUM: "torch 2.13 optim/rmsprop.py (_multi_tensor_rmsprop: foreach, CUDA's default)",
    Optimizer.MUON: "torch 2.13 optim/_muon.py (_single_tensor_muon, _zeropower_via_newtonschulz); AdamW for "
                    "what is not a 2-D matrix (KellerJordan/Muon README)",
    Optimizer.GALORE_ADAMW: "galore-torch 1.0 galore_torch/adamw.py, galore_projector.py (rank 128, std)",
    Optimizer.APOLLO_ADAMW: "apollo-torch 1.0.3 apollo_torch/apollo.py, random_projector.py (rank 128, channel)",
    Optimizer.ADAM_MINI: "adam-mini 1.1.1 adam_mini/adam_mini.py (Adam_mini.step)",
}


def optimizer_bytes(opt: Optimizer, tensors: tuple[Tensor, ...], g: int, grad: int, *, rank: int,
                    heads: int, hidden: int) -> OptimizerBytes:
    """The states and step temporaries of ``opt`` (one of :data:`PER_TENSOR`) over ``tensors`` (module
    docstring), before any sharding."""
    if opt in TORCHAO_BLOCK:
        return _torchao(opt, tensors, g)
    if opt in (Optimizer.RMSPROP, Optimizer.RMSPROP_MOMENTUM):
        total = sum(t.total for t in tensors) * g
        steps = STEP_TENSOR * sum(t.count for t in tensors)  # ``state["step"]``: an fp32 scalar per tensor
        return OptimizerBytes(total * (2 if opt is Optimizer.RMSPROP_MOMENTUM else 1) + steps, total)
    if opt is Optimizer.MUON:
        return _muon(tensors, g, grad)
    if opt in LOW_RANK:
        return _low_rank(opt, tensors, g, grad, rank)
    if opt is Optimizer.ADAM_MINI:
        return _adam_mini(tensors, g, heads, hidden)
    raise ValueError(f"{opt.value} is not costed per tensor")
