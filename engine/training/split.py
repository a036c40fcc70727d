"""How a parallel layout splits the model: what one GPU holds of each layer, and the model as one tensor-parallel
rank computes it.

Megatron-LM's layout (Shoeybi et al. 2019, arXiv:1909.08053, s3; Megatron-LM
``megatron/training/theoretical_memory_usage.py``): tensor parallelism splits the attention and MLP linears t ways:
q, k, v, gate and up by their output ("column parallel", their biases too), o and down by their input ("row
parallel", their biases whole); norms, MoE routers and MLA's down-projections are replicated. Expert parallelism
spreads the routed experts over ep GPUs and each expert over etp. The first stage holds the vocab-parallel
embedding (V/t rows), the last the output layer (V/t) and the final norm; with tied embeddings and p > 1 the last
stage keeps its own copy of the embedding for the output layer (Megatron-LM ``LanguageModule``
``setup_embeddings_and_output_layer``). LoRA's adapters split along the dimension their base linear splits
(Megatron-Bridge / NeMo ``ParallelLinearAdapter``).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from functools import lru_cache

from engine.layers import runs
from engine.params import (
    Linear,
    count_params,
    layer_linears,
    layer_norm_params,
    lora_targets,
    mixer_other_params,
    norm_params,
)
from engine.specs import LayerRun, LayerSpec, LoraSpec, ModelSpec
from engine.training.layout import Layout

COLUMN = frozenset({"q", "k", "v", "qkv", "q_b", "kv_b", "gate", "up", "gate_up", "shared_gate", "shared_up",
                    "shared_gate_up", "experts_gate", "experts_up", "experts_gate_up"})
ROW = frozenset({"o", "down", "shared_down", "experts_down"})


@dataclass(frozen=True, slots=True)
class Held:
    """Parameters one GPU holds, split by how they are sharded: dense (over dp x cp) and experts (over the
    expert data-parallel ranks); each both as weights and as LoRA adapters."""

    dense: float = 0.0
    expert: float = 0.0
    dense_adapters: float = 0.0
    expert_adapters: float = 0.0

    def __add__(self, o: Held) -> Held:
        return Held(self.dense + o.dense, self.expert + o.expert, self.dense_adapters + o.dense_adapters,
                    self.expert_adapters + o.expert_adapters)

    @property
    def weights(self) -> float:
        return self.dense + self.expert

    @property
    def adapters(self) -> float:
        return self.dense_adapters + self.expert_adapters


@dataclass(frozen=True, slots=True)
class Split:
    """How a layer's linears are split: tensor, expert and expert-tensor parallel sizes."""

    tp: int
    ep: int
    etp: int

    @staticmethod
    def of(lay: Layout) -> Split:
        return Split(lay.tp, lay.ep, lay.etp)


def _is_expert(x: Linear) -> bool:
    return x.role.startswith("experts_")


def _linear(x: Linear, sp: Split) -> tuple[float, bool]:
    """(parameters on one GPU, whether they are expert parameters) of one linear (module docstring)."""
    weight, bias = x.n_in * x.n_out, (x.n_out if x.bias else 0)
    if _is_expert(x):
        split_bias = bias / sp.etp if x.role in COLUMN else bias
        return x.count / sp.ep * (weight / sp.etp + split_bias), True
    if x.role in COLUMN:
        return x.count * (weight + bias) / sp.tp, False
    if x.role in ROW:
        return x.count * (weight / sp.tp + bias), False
    return float(x.params), False


def _adapter(x: Linear, sp: Split, rank: int) -> tuple[float, bool]:
    """LoRA's A (r x n_in) and B (n_out x r) on one GPU: split along the dimension the base linear splits
    (B for a column-parallel linear, A for a row-parallel one), whole for a replicated one."""
    expert = _is_expert(x)
    split = sp.etp if expert else sp.tp
    copies = x.count / sp.ep if expert else x.count
    r = rank * x.rank_mult
    if x.role in COLUMN:
        return copies * r * (x.n_in + x.n_out / split), expert
    if x.role in ROW:
        return copies * r * (x.n_in / split + x.n_out), expert
    return copies * r * (x.n_in + x.n_out), expert


@lru_cache(maxsize=8_192)
def kind_held(m: ModelSpec, lora: LoraSpec | None, sp: Split, kind: LayerSpec, dora: bool = False, *,
              oft_block: int = 0) -> Held:
    """What one GPU holds of a decoder layer of kind ``kind`` (``lora``: None for full fine-tuning; ``dora``: each
    adapted linear also trains a magnitude per output row, ``engine.params.dora_params``)."""
    dense = expert = 0.0
    for x in layer_linears(kind, m.hidden_size):
        n, is_expert = _linear(x, sp)
        dense, expert = (dense, expert + n) if is_expert else (dense + n, expert)
    other = mixer_other_params(kind.mixer, m.hidden_size) if kind.mixer is not None else 0
    norms = layer_norm_params(m, kind) + other  # replicated: norms, a mixer's convolution and decay parameters
    adapters = [0.0, 0.0]
    if lora is not None:
        for x in lora_targets(m, kind, lora.targets):
            n, is_expert = _adapter(x, sp, lora.rank)
            if oft_block:  # OFT: a rotation of the input instead (engine.params.oft_params; no layout)
                n = x.count * (x.n_in // oft_block) * oft_block * (oft_block - 1) // 2
            adapters[is_expert] += n + (x.count * x.n_out if dora else 0)  # DoRA: no layout (TrainingSetup)
    return Held(dense + norms, expert, adapters[0], adapters[1])


def ends_held(m: ModelSpec, lay: Layout, stage: int) -> Held:
    """The embedding (first stage), the final norm and the output layer (last stage), on one GPU."""
    pc = count_params(m)
    table = m.vocab_size * m.hidden_size / lay.tp
    held = 0.0
    if stage == 0:
        held += table + (pc.embedding - m.vocab_size * m.hidden_size)  # learned positions: replicated
    if stage == lay.pp - 1:
        held += norm_params(m) + (table if not m.tie_embeddings or lay.pp > 1 else 0.0)
        held += m.vocab_size if m.lm_head_bias else 0  # GPT-J's / Phi's output bias, replicated
    return Held(dense=held)


def linear_weights(m: ModelSpec, kind: LayerSpec, sp: Split) -> float:
    """Weights (no biases) of a layer's linears on one GPU: what autocast copies to 16 bits."""
    return sum(_linear(replace(x, bias=False), sp)[0] for x in layer_linears(kind, m.hidden_size))


def tp_view(m: ModelSpec, lay: Layout) -> ModelSpec:
    """The model as one tensor-parallel rank computes it: heads / t, MLP widths / t, experts' widths / etp, the
    vocabulary / t, layer by layer (unvalidated: a view for counting activations, not a model)."""
    t = lay.tp
    update: dict[str, object] = {"num_heads": m.num_heads // t, "num_kv_heads": max(m.num_kv_heads // t, 1),
                                 "head_dim": m.head_size, "intermediate_size": m.intermediate_size / t,
                                 "vocab_size": m.vocab_size / t}
    if m.moe is not None:
        update["moe"] = m.moe.model_copy(update={"expert_intermediate_size": m.moe.expert_intermediate_size
                                                 / lay.etp})
    update["layers"] = tuple(_tp_run(r, t, lay.etp) for r in runs(m))
    return m.model_copy(update=update)


def _tp_run(r: LayerRun, t: int, etp: int) -> LayerRun:
    """One run of layers as a tensor-parallel rank computes it (unvalidated; a layer with another token mixer is
    refused tensor parallelism by ``engine.training.layout``)."""
    update: dict[str, object] = {}
    if r.attention is not None:
        update["attention"] = r.attention.model_copy(update={"num_heads": r.attention.num_heads // t,
                                                             "num_kv_heads": max(r.attention.num_kv_heads // t, 1)})
    if r.mlp is not None:
        mlp: dict[str, object] = {"intermediate_size": r.mlp.intermediate_size / t}
        e = r.mlp.moe
        if e is not None:
            shared = e.shared_width / t
            mlp["moe"] = e.model_copy(update={"expert_intermediate_size": e.expert_intermediate_size / etp,
                                              "shared_intermediate_size": shared or None})
        update["mlp"] = r.mlp.model_copy(update=mlp)
    return r.model_copy(update=update)
