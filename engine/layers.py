"""A model's decoder layers as data: runs of identical layers, first layer first.

Every count and every activation term walks :func:`runs`. A model imported from a config.json carries its list
(``ModelSpec.layers``, read from ``layer_types``, ``first_k_dense_replace``, ``interleave_moe_layer_step`` and
kin by ``engine.hf_import``); a model written with the flat fields only (the catalog before the list existed, and
every scenario file saved then) gets one derived here from those fields, so that old files load and cost the same:

* attention: ``num_heads`` / ``num_kv_heads`` / ``head_dim`` (or MLA), biases, soft-capping; the sliding window
  on ``round(num_layers * sliding_layers_fraction)`` layers spread evenly, the last of each group full
  (Gemma 2's alternation, ``transformers`` Gemma2Config.layer_types: even layers slide);
* MLP: dense, or routed after ``moe.first_dense_layers`` dense layers (DeepSeek's ``first_k_dense_replace``).
"""

from __future__ import annotations

from functools import cache
from typing import Any

from engine.specs import AttentionSpec, LayerRun, LayerSpec, MlpSpec, ModelSpec


class UnsupportedLayerError(ValueError):
    """A layer kind the engine cannot cost (a state-space or linear-attention layer): refused by name."""


def attention_of(layer: LayerSpec, what: str) -> AttentionSpec:
    """The layer's softmax attention, for ``what`` (a calculation that models attention layers only, refused
    before it meets issue 27's other kinds); :class:`UnsupportedLayerError` naming it where there is none."""
    if layer.attention is None:
        raise UnsupportedLayerError(f"{what} of {layer.mixer_kind} layers is not modelled")
    return layer.attention


def mlp_of(layer: LayerSpec, what: str) -> MlpSpec:
    """The layer's MLP, for ``what`` (as :func:`attention_of`)."""
    if layer.mlp is None:
        raise UnsupportedLayerError(f"{what} of {layer.mixer_kind} layers without an MLP is not modelled")
    return layer.mlp


def runs(m: ModelSpec) -> tuple[LayerRun, ...]:
    """The decoder layers as runs of identical layers, first layer first."""
    return m.layers if m.layers is not None else _derived(m)


def group(layers: list[LayerSpec]) -> tuple[LayerRun, ...]:
    """Consecutive identical layers folded into runs."""
    out: list[LayerRun] = []
    for layer in layers:
        if out and kind_of(out[-1]) == layer:
            out[-1] = out[-1].model_copy(update={"count": out[-1].count + 1})
        else:
            out.append(LayerRun(count=1, **_fields(layer)))
    return tuple(out)


def kind_of(run: LayerSpec) -> LayerSpec:
    """The layer kind of a run (its count dropped)."""
    return LayerSpec(**_fields(run))


def _fields(layer: LayerSpec) -> dict[str, Any]:
    """A layer kind's fields (a run's count left out)."""
    return {name: getattr(layer, name) for name in LayerSpec.model_fields}


def expand(layer_runs: tuple[LayerRun, ...]) -> list[LayerSpec]:
    """One entry per layer (the inverse of :func:`group`)."""
    return [kind_of(r) for r in layer_runs for _ in range(r.count)]


def sliding_layers(n: int, fraction: float) -> list[bool]:
    """Which of ``n`` layers slide when ``fraction`` of them do, spread evenly with the last of a group full."""
    full = n - round(n * fraction)
    return [(i + 1) * full // n == i * full // n for i in range(n)]


@cache
def _derived(m: ModelSpec) -> tuple[LayerRun, ...]:
    """The layer list the flat fields describe (module docstring), as runs: a layer is keyed by (sliding, routed),
    and equal keys are equal layers, so consecutive equal keys fold into one run (what :func:`group` would give,
    without building a spec per layer: the catalog's 80 models are counted at start-up)."""
    first_dense = m.moe.first_dense_layers if m.moe is not None else 0
    slides = sliding_layers(m.num_layers, m.sliding_layers_fraction if m.sliding_window else 0.0)
    fused = m.fused_gate_up
    dense = MlpSpec(kind=m.mlp, intermediate_size=m.intermediate_size, bias=m.mlp_bias, fused_gate_up=fused)
    routed = None
    if m.moe is not None:
        moe = m.moe.model_copy(update={"first_dense_layers": 0})
        routed = MlpSpec(kind=m.mlp, bias=m.mlp_bias, fused_gate_up=fused, moe=moe)
    keys = [(slides[i], routed is not None and i >= first_dense) for i in range(m.num_layers)]
    folded: list[tuple[tuple[bool, bool], int]] = []
    for key in keys:
        if folded and folded[-1][0] == key:
            folded[-1] = (key, folded[-1][1] + 1)
        else:
            folded.append((key, 1))
    attention = {
        slide: AttentionSpec(
            num_heads=m.num_heads, num_kv_heads=m.num_kv_heads, head_dim=max(1, m.head_size),
            window=m.sliding_window if slide else None, qkv_bias=m.qkv_bias, o_bias=m.o_bias,
            fused_qkv=m.fused_qkv, softcap=m.attn_softcap, mla=m.mla,
        )
        for slide in {k[0] for k in keys}
    }
    return tuple(
        LayerRun(count=n, attention=attention[slide], mlp=routed if is_routed and routed is not None else dense,
                 norms=m.norms_per_layer)
        for (slide, is_routed), n in folded
    )
