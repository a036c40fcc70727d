"""One pipeline stage of a layout, as one of its GPUs computes it: its activation coefficients and its
communication buffers (what it holds of the weights: ``engine.training.split``).

What a GPU of stage i keeps (Megatron-LM's layout: Shoeybi et al. 2019, arXiv:1909.08053, s3; Korthikanti et al.
2022, arXiv:2205.05198; Megatron-LM ``megatron/training/theoretical_memory_usage.py``):

* **activations** (Korthikanti et al. 2022, Table 2): with TP and no sequence parallelism the attention and MLP
  internals are split t ways but the norms' inputs and the linears' (replicated) inputs are whole; with sequence
  parallelism everything is split t ways; context parallelism splits the sequence c ways. The engine's own
  tensor-by-tensor coefficients are rescaled accordingly: TP alone counts the layer with heads / t and MLP widths
  / t (the plan's tensor-parallel view); TP + SP divides the whole layer by t; CP divides by c. Only the last
  stage computes the (vocab-parallel) logits and the loss. Pipeline stages keep several micro-batches'
  activations (``engine.training.layout``).
* **parallel buffers**: what the layout's communication keeps in flight (:func:`parallel_buffers`).

Its gradients and optimizer states, of what it trains, are sharded as the ZeRO stage says over the data- and
context-parallel ranks (experts over the expert data-parallel ranks): ``engine.training.context``.
"""

from __future__ import annotations

from engine.specs import CpCommType, LayerSpec
from engine.training.activations import ActivationCoeffs, LayerCoeffs, same_weights
from engine.training.moments import Cost
from engine.training.plan import Plan
from engine.training.saved.inputs import residual_bytes
from engine.training.split import Split, linear_weights


def _scaled(lc: LayerCoeffs, k: float, copies: int, fixed_k: float) -> LayerCoeffs:
    """A layer's coefficients on one GPU: ``k`` for what scales with its tokens, ``fixed_k`` for PEFT's merged
    expert weights (the GPU's experts, ep of them, each split etp ways)."""
    return LayerCoeffs(lc.saved * k, lc.saved_bs2 * k, lc.transient * k, lc.transient_bs2 * k, lc.checkpoint * k,
                       copies, lc.dequantized, lc.recomputed * k, lc.recomputed_bs2 * k, lc.saved_again * k,
                       lc.checkpoint_again * k, round(lc.saved_fixed * fixed_k))


def _segments(layers: list[LayerCoeffs], kinds: tuple[LayerSpec, ...]) -> tuple[tuple[tuple[int, LayerCoeffs],
                                                                                       ...], tuple[LayerSpec, ...]]:
    """Consecutive layers that cost the same and hold the same weights, as one segment each (the whole model's
    rule, ``engine.training.activations.model_coeffs``)."""
    segments: list[tuple[int, LayerCoeffs]] = []
    seg_kinds: list[LayerSpec] = []
    for lc, kind in zip(layers, kinds, strict=True):
        if segments and segments[-1][1] == lc and same_weights(seg_kinds[-1], kind):
            segments[-1] = (segments[-1][0] + 1, lc)
        else:
            segments.append((1, lc))
            seg_kinds.append(kind)
    return tuple(segments), tuple(seg_kinds)


def stage_coeffs(plan: Plan, stage: int) -> ActivationCoeffs:
    """Activation coefficients per token of one GPU of ``stage`` (module docstring, "activations"); a GPU that
    computes every layer whole (no tensor, pipeline, context or expert split) has the whole model's."""
    lay = plan.layout
    if lay.pp == lay.tp == lay.cp == lay.ep == lay.etp == 1:
        return plan.coeffs
    sp, t, c = lay.sequence_parallel, lay.tp, lay.cp
    base = plan.view
    k = (1 / t if sp else 1.0) / c
    first, last = lay.stages[stage]
    kinds = plan.kinds[first : last + 1]
    split = Split.of(lay)
    compute = plan.dtypes.compute
    # autocast's copies of this GPU's share of the weights, and of the fp32 adapters it holds (engine.training.policy)
    adapters = [round(compute * h.adapters) if plan.dtypes.adapter_copies else 0 for h in plan.held[first : last + 1]]
    copies = [(round(compute * linear_weights(plan.model, kind, split)) if plan.dtypes.autocast_copies else 0) + own
              for kind, own in zip(kinds, adapters, strict=True)]
    fixed_k = (1 / lay.etp if sp else 1.0) / lay.ep  # without sp the view's experts are already split etp ways
    scaled = [_scaled(lc, k, cp, fixed_k) for lc, cp in zip(base.per_layer[first : last + 1], copies, strict=True)]
    segments, seg_kinds = _segments(scaled, kinds)
    head = stage == lay.pp - 1
    logits_k = 1 / (t * c) if sp else 1 / c  # without sp the view's vocabulary is already V / t
    return ActivationCoeffs(
        segments=segments,
        kinds=seg_kinds,
        head_saved=base.head_saved * k if head else 0.0,
        head_input=base.head_input * k if head else 0.0,
        head_copies=round(base.head_copies / (t if sp else 1)) if head else 0,
        # the loss's per-token bytes split like the logits; fused-linear-ce's weight gradient like the output layer
        loss=base.loss.scaled(logits_k if head else 0.0, (1 / t if sp else 1.0) if head else 0.0),
        end_transient=base.end_transient * k,
    )


def parallel_buffers(plan: Plan, stage: int) -> tuple[Cost, str]:
    """Per token, while forward and backward run, on one GPU (bytes per b*s):

    * pipeline: the activation received from the previous stage and the gradient received from the next, one
      ``b x s/c x h`` tensor each (÷ t with sequence parallelism) (Megatron-LM ``p2p_communication.py``);
    * sequence parallelism: the all-gathered ``b x s/c x h`` input of a column-parallel linear, one at a time
      (Korthikanti et al. 2022, s4.2.2: gathered in forward, re-gathered in backward);
    * context parallelism: ring attention's key/value chunks, the one in use and the one arriving, each
      ``b x s/c x 2 x kv width / t`` (Liu et al. 2023, Ring Attention, arXiv:2310.01889, s3;
      Megatron-Core ``TEDotProductAttention`` with ``cp_comm_type=p2p``); with ``a2a`` (DeepSpeed-Ulysses,
      Jacobs et al. 2023, arXiv:2309.14509, s3): each of q, k, v and the output goes through an all-to-all from
      ``s/c`` tokens of every head to every token of ``heads/c`` heads (the same bytes on each rank, so the saved
      activations are the sequence split's), one tensor at a time, and each exchange holds a contiguous copy of the
      input, the receive buffer and the re-permuted result: three of the query's (or output's) width at most
      (DeepSpeed 0.19.8 ``sequence/layer.py`` ``single_all_to_all``: ``pre_all2all_fun``, ``torch.empty_like``,
      ``post_all2all``; LLaMA-Factory 0.9.5 ``v1/.../parallelization/seq_comm.py`` ``all_to_all_tensor``: the
      split inputs made contiguous, the outputs, their ``torch.cat``);
    * expert parallelism: the all-to-all's dispatched and received token copies, ``b x s/c x k x h`` each way
      (÷ t with sequence parallelism) (Megatron-Core ``MoEAlltoAllTokenDispatcher``).
    """
    m, lay = plan.model, plan.layout
    r, c, h = residual_bytes(m, plan.dtypes), plan.dtypes.compute, m.hidden_size
    sp = lay.tp if lay.sequence_parallel else 1
    per = 0.0
    parts: list[str] = []
    if lay.pp > 1:
        n = (1 if stage in (0, lay.pp - 1) else 2)
        per += n * r * h / sp
        parts.append(f"{n} x b x s x h x {r} B (pipeline send/receive)")
    if lay.sequence_parallel:
        per += c * h
        parts.append(f"b x s x h x {c} B (sequence-parallel all-gather)")
    if lay.cp > 1 and plan.setup.parallel.cp_comm_type is CpCommType.A2A:
        width = m.num_heads * m.head_size
        per += 3 * c * width
        parts.append(f"3 x b x s x heads x d x {c} B (Ulysses all-to-all)")
    elif lay.cp > 1:
        kv = 2 * (m.num_kv_heads * m.head_size if m.mla is None else m.mla.kv_lora_rank + m.mla.qk_rope_head_dim)
        per += 2 * c * kv / (lay.tp if m.mla is None else 1)
        parts.append(f"2 x b x s x (k, v) / t x {c} B (ring attention)")
    if lay.ep > 1 and m.moe is not None:
        per += 2 * c * m.moe.experts_per_token * h / sp
        parts.append(f"2 x b x s x top-k x h x {c} B (expert all-to-all)")
    formula = " + ".join(parts) + (" ÷ cp" if lay.cp > 1 else "")
    return Cost(0.0, per / lay.cp), formula or "none"
