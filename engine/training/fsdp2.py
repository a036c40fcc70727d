"""torchtitan's FSDP2 units on one GPU: what is gathered, and what its gradients' reduction holds, at each moment.

torchtitan 0.3.0 wraps the embedding, each decoder block and ``[norm, lm_head]`` (one ``[tok_embeddings, norm,
lm_head]`` unit when tied) with ``fully_shard`` (torchtitan/distributed/fsdp.py ``apply_fsdp_to_decoder``), with
``MixedPrecisionPolicy(param_dtype=bf16, reduce_dtype=fp32)``. torch 2.13's FSDP2
(torch/distributed/fsdp/_fully_shard/):

* **gathering** (``_fsdp_param_group.py`` ``unshard`` / ``reshard``; ``_fsdp_collectives.py``
  ``foreach_all_gather`` / ``foreach_all_gather_copy_out``): a unit's parameters are all-gathered in bf16 before
  its forward and again before its backward (``p`` = 2 bytes each, the unit's whole parameters); a unit whose
  ``reshard_after_forward`` is False stays gathered from its forward to its backward. The blocks and the
  embedding reshard after their forward unless pipelining (torchtitan's "default" policy, ``not pp_enabled``);
  the head's unit never does (``policy == "always"``). In the backward the next unit to run is prefetched
  (``_backward_prefetch``): two blocks are gathered while one runs, the embedding's unit beside the first block.
  (The all-gather's flat output and the parameters it is copied into coexist for a moment at each gather, twice
  the unit: not counted.)
* **reducing** (``post_backward``; ``_fsdp_collectives.py`` ``foreach_reduce``): when a unit's backward ends, its
  unsharded bf16 gradients (``p`` per parameter) are resharded, copied into an fp32 reduce-scatter input
  (``q`` = 4 bytes per parameter) and scattered into the sharded fp32 gradients (the gradients term). The input
  buffer is kept until the next unit reduces (``reduce_scatter_max_input_buffers`` = 1: "Recycle prior modules'
  reduce-scatter input buffers"): a block's backward runs beside the reduce-scatter input of the unit below it in
  order, the top block's beside the head's (4 (V h + h) bytes, with the standard loss; torchtitan's chunked loss
  reduces the head inside the loss call and the final norm's tiny unit after it). The embedding's reduction ends
  the backward: its bf16 gradient and its fp32 input, ``(p + q) V h``.
* **pipelining** (torch/distributed/pipelining/stage.py ``backward_maybe_with_nosync``@2.13): every micro-batch's
  backward runs with ``set_requires_gradient_sync(False)`` and ``set_reshard_after_backward(False)``: the stage's
  parameters stay gathered (``p`` x stage) through the step, and each unit's gradient is accumulated unsharded in
  the reduce dtype (``to_accumulated_grad_if_needed``: ``q`` x stage) until ``perform_reduce_grad`` reduces them
  all after the last micro-batch. So a stage holds ``(p + q)`` x its parameters beside its activations (read, not
  traced: the issue's "about 50% low" with pipelining).

Traced without pipelining: calibration/stacks/torchtitan_step.py, 4- and 2-block Llama 3 8B over 8 fake ranks
(the ``reshard-never`` case: the pipelining default's gathering, without its gradient accumulation).
"""

from __future__ import annotations

from dataclasses import dataclass

from engine.params import norm_params
from engine.specs import Loss
from engine.training.moments import Moment, MomentKind
from engine.training.plan import Plan
from engine.training.split import ends_held
from engine.training.stacks import FsdpPlan

SOURCE = ("torchtitan 0.3.0 distributed/fsdp.py apply_fsdp_to_decoder; torch 2.13 distributed/fsdp/_fully_shard/"
          "_fsdp_param_group.py (unshard, post_backward, reduce-scatter input recycling) and _fsdp_collectives.py "
          "(foreach_all_gather, foreach_reduce); distributed/pipelining/stage.py backward_maybe_with_nosync")


@dataclass(frozen=True, slots=True)
class Units:
    """What one GPU of one stage holds of torchtitan's FSDP2 units (module docstring), parameters unsharded."""

    fsdp: FsdpPlan
    blocks: tuple[float, ...]  # each decoder layer's parameters, bottom first
    embedding: float  # the embedding's unit (first stage; 0 when it is part of the tied head unit)
    head: float  # the [norm, lm_head] unit (last stage), or the tied [tok_embeddings, norm, lm_head]
    tied: bool
    chunked_head: bool  # the loss reduces the output layer's gradient inside the forward (ChunkedLossWrapper)

    @property
    def stage(self) -> float:
        """Every parameter this GPU's units hold."""
        return sum(self.blocks) + self.embedding + self.head

    def at(self, mo: Moment) -> float:
        """Bytes gathered and in reduction at moment ``mo`` (module docstring)."""
        f = self.fsdp
        p, q = f.param_bytes, f.reduce_bytes
        if mo.kind is MomentKind.OPTIMIZER_STEP:
            return 0.0
        if not f.sync_each_backward:  # pipelining: everything gathered, every gradient accumulated unsharded
            top = max(self.blocks, default=0.0) if mo.kind is MomentKind.BACKWARD_END else 0.0
            return (p + q) * self.stage + q * top
        if mo.kind is MomentKind.BACKWARD_END:
            last = self.head if self.tied else self.embedding
            return (p + q) * last
        held = p * self.head if self.tied else 0.0
        kept = 0.0 if f.reshard_blocks else p * self.embedding  # "never": gathered from its forward to its backward
        i = mo.layer or 0
        if mo.kind is MomentKind.FORWARD_LAYER:
            return held + kept + p * (self.blocks[i] if f.reshard_blocks else sum(self.blocks[: i + 1]))
        if mo.kind in (MomentKind.FORWARD_END, MomentKind.BACKWARD_START):
            return p * self.head + kept + (0.0 if f.reshard_blocks else p * sum(self.blocks))
        above = self.blocks[i + 1] if i + 1 < len(self.blocks) else (0.0 if self.chunked_head else self.head)
        if not f.reshard_blocks:  # the blocks below still gathered, each resharded after its backward
            return held + kept + p * (sum(self.blocks[: i + 1]) + self.blocks[i]) + q * above
        below = self.blocks[i - 1] if i > 0 else self.embedding
        # the layer and the one prefetched gathered, its own bf16 gradients, the reduce-scatter input kept above it
        return held + p * (2 * self.blocks[i] + below) + q * above


def units(plan: Plan, stage: int) -> Units | None:
    """torchtitan's FSDP2 units on one GPU of ``stage`` (None without FSDP2)."""
    if plan.fsdp is None:
        return None
    m, lay = plan.model, plan.layout
    first, last = lay.stages[stage]
    blocks = tuple(h.weights for h in plan.held[first : last + 1])
    ends = ends_held(m, lay, stage).weights
    tied = m.tie_embeddings and lay.pp == 1
    head = norm_params(m) + (ends - norm_params(m) if tied else m.vocab_size * m.hidden_size / lay.tp)
    head = head if stage == lay.pp - 1 else 0.0
    embedding = 0.0 if tied else ends - head
    return Units(plan.fsdp, blocks, embedding, head, tied, plan.setup.loss is Loss.CHUNKED_BACKWARD)
