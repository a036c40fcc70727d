"""What trains, tensor by tensor: the shape and role of every trainable parameter, as the libraries create them.

An optimizer that treats tensors differently by their shape or role (torchao's low-bit AdamW quantizes only
tensors of at least 4,096 values; Muon orthogonalizes 2-D matrices and leaves the rest to AdamW; GaLore and APOLLO
project the decoder blocks' linear weights; Adam-mini keeps one second moment per output row or per head) needs
more than a parameter count. The shapes follow the modules ``engine.params`` counts (transformers 5.24):

* full fine-tuning: the token table ``(V, h)`` (and a learned position table), every linear weight
  ``(n_out, n_in)`` and bias ``(n_out,)`` of the decoder blocks (fused experts are one 3-D parameter per
  projection, ``(E, n_out, n_in)``, e.g. ``Qwen3MoeExperts``), every norm's weight (and LayerNorm's bias), q/k
  norms, MLA's latent norms, attention sinks, a token mixer's tensors beside its linears (flattened:
  ``engine.params.mixer_tensors``), the final norm and an untied output layer ``(V, h)`` (and its bias);
* LoRA: each adapted ``nn.Linear`` trains ``lora_A.weight (r, n_in)`` and ``lora_B.weight (n_out, r)``
  (peft/tuners/lora/layer.py ``LoraLayer.update_layer``, PEFT 0.21.2); a fused expert parameter wrapped by
  ``ParamWrapper`` trains ``lora_A (r * E, n_in)`` and ``lora_B (n_out, r * E)`` (``ParamWrapper.update_layer``:
  ``nn.Linear(in_features, r * num_experts)``), at rank 2r for ``gate_up_proj``.

The tensors add up to ``engine.params.count_params`` (full) and ``engine.params.lora_params`` (LoRA): tested.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache

from engine.layers import runs
from engine.params import Linear, layer_linears, lora_targets, mixer_tensors, oft_params
from engine.specs import (
    ExpertStorage,
    LayerRun,
    LoraTargets,
    Method,
    ModelSpec,
    NormKind,
    PositionKind,
    QkNorm,
    TrainingSetup,
)


@dataclass(frozen=True, slots=True)
class Tensor:
    """``count`` trainable tensors of one ``shape`` and ``role``."""

    role: str  # embedding, positions, linear, experts, bias, norm, mixer, lm_head, lora_A, lora_B
    shape: tuple[int, ...]
    count: int = 1
    proj: str = ""  # the linear's role (engine.params.Linear.role: q, k, v, o, gate, ...), for a weight or a bias

    @property
    def numel(self) -> int:
        """Values in one tensor."""
        return math.prod(self.shape)

    @property
    def total(self) -> int:
        """Values in all ``count`` tensors."""
        return self.numel * self.count

    @property
    def matrix(self) -> bool:
        """A 2-D weight of the decoder blocks (a linear's, or a LoRA factor): what Muon and GaLore take."""
        return self.role in ("linear", "lora_A", "lora_B")


def _fused(run: LayerRun, x: Linear) -> bool:
    """A fused 3-D expert parameter (one per projection for all experts)."""
    e = run.mlp.moe if run.mlp is not None else None
    return x.role.startswith("experts_") and e is not None and e.storage is ExpertStorage.FUSED


def _norms(m: ModelSpec, run: LayerRun) -> list[Tensor]:
    """One layer's norm weights (LayerNorm's biases too), q/k norms, MLA's latent norms and attention sinks; a
    token mixer's tensors outside its linears (``engine.params.mixer_tensors``: its convolution, decay and skip
    parameters, its norms)."""
    h, a, c = m.hidden_size, run.attention, run.count
    per_norm = 2 if m.norm is NormKind.LAYERNORM else 1
    out = [Tensor("norm", (h,), c * run.norms * per_norm)] if run.norms else []
    if run.mixer is not None:
        out += [Tensor("mixer", (n,), c) for n in mixer_tensors(run.mixer, h)]
    if a is None:
        return out
    if a.qk_norm is QkNorm.HEAD:
        out.append(Tensor("norm", (a.head_dim,), 2 * c))
    elif a.qk_norm is QkNorm.PROJECTION:
        out += [Tensor("norm", (a.num_heads * a.head_dim,), c), Tensor("norm", (a.num_kv_heads * a.head_dim,), c)]
    if a.mla is not None:
        out.append(Tensor("norm", (a.mla.kv_lora_rank,), c))
        if a.mla.q_lora_rank is not None:
            out.append(Tensor("norm", (a.mla.q_lora_rank,), c))
    if a.sinks:
        out.append(Tensor("norm", (a.num_heads,), c))
    return out


def _linears(m: ModelSpec, run: LayerRun) -> list[Tensor]:
    out: list[Tensor] = []
    for x in layer_linears(run, m.hidden_size):
        if _fused(run, x):
            out.append(Tensor("experts", (x.count, x.n_out, x.n_in), run.count, x.role))
            if x.bias:
                out.append(Tensor("bias", (x.count, x.n_out), run.count, x.role))
            continue
        out.append(Tensor("linear", (x.n_out, x.n_in), run.count * x.count, x.role))
        if x.bias:
            out.append(Tensor("bias", (x.n_out,), run.count * x.count, x.role))
    return out


@lru_cache(maxsize=256)
def full_tensors(m: ModelSpec) -> tuple[Tensor, ...]:
    """Every parameter of the model, as full fine-tuning trains it (module docstring)."""
    h = m.hidden_size
    out = [Tensor("embedding", (m.vocab_size, h))]
    if m.positions is PositionKind.LEARNED:
        out.append(Tensor("positions", (m.max_position, h)))
    for run in runs(m):
        out += _linears(m, run) + _norms(m, run)
    out.append(Tensor("norm", (h,), 2 if m.norm is NormKind.LAYERNORM else 1))
    if not m.tie_embeddings:
        out.append(Tensor("lm_head", (m.vocab_size, h)))
    if m.lm_head_bias:  # GPT-J's and Phi's output layer has a bias (ModelSpec.lm_head_bias)
        out.append(Tensor("bias", (m.vocab_size,), proj="lm_head"))
    return tuple(t for t in out if t.count)


@lru_cache(maxsize=256)
def lora_tensors(m: ModelSpec, rank: int, targets: LoraTargets, dora: bool = False) -> tuple[Tensor, ...]:
    """The LoRA factors PEFT 0.21.2 creates for ``rank`` and ``targets`` (module docstring), and with ``dora`` each
    adapted linear's magnitude vector (``lora_magnitude_vector``, one value per output row)."""
    out: list[Tensor] = []
    for run in runs(m):
        for x in lora_targets(m, run, targets):
            if dora:
                out.append(Tensor("magnitude", (x.n_out,), run.count * x.count, x.role))
            r = rank * x.rank_mult
            if _fused(run, x):
                out += [Tensor("lora_A", (r * x.count, x.n_in), run.count, x.role),
                        Tensor("lora_B", (x.n_out, r * x.count), run.count, x.role)]
            else:
                out += [Tensor("lora_A", (r, x.n_in), run.count * x.count, x.role),
                        Tensor("lora_B", (x.n_out, r), run.count * x.count, x.role)]
    return tuple(out)


def trained_tensors(m: ModelSpec, s: TrainingSetup) -> tuple[Tensor, ...]:
    """What ``s`` trains of ``m``, tensor by tensor: every parameter (full fine-tuning) or the LoRA factors."""
    if s.method is Method.FULL:
        return full_tensors(m)
    if s.method is Method.OFT:  # no per-tensor optimizer takes OFT (TrainingSetup): its count
        return (Tensor("oft", (oft_params(m, s.lora.targets, s.oft_block_size),)),)
    return lora_tensors(m, s.lora.rank, s.lora.targets, s.dora)
