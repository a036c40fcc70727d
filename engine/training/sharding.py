"""Communication and gathering buffers of data parallelism and ZeRO / FSDP, per GPU.

* DDP (``sharding none`` on several GPUs) copies every gradient into its all-reduce buckets unless
  ``gradient_as_bucket_view=True``: one more gradient-sized buffer (PyTorch ``DistributedDataParallel`` docs,
  argument ``gradient_as_bucket_view``: "the saved memory size will be equal to the total gradients size").
* ZeRO-1/2 (DeepSpeed) reduce gradients through a bucket of ``reduce_bucket_size`` = 5e8 elements by default
  and gather updated weights through ``allgather_bucket_size`` = 5e8 (DeepSpeed config docs, "ZeRO").
* ZeRO-3 / FSDP full shard gathers one wrapped unit (a decoder layer) at a time, prefetching the next one, and
  holds that unit's unsharded gradients until their reduce-scatter; the root unit (embeddings, final norm,
  output layer) stays gathered through the step (PyTorch FSDP docs, ``FullyShardedDataParallel``: "the root
  FSDP instance does not reshard after forward"; Zhao et al. 2023, arXiv:2304.11277, section 3.3). With FSDP's
  mixed precision (accelerate's, ``engine.training.policy``) the units are gathered, and their gradients made, in
  the 16-bit ``param_dtype`` over fp32 shards.
"""

from __future__ import annotations

from engine.specs import Method, Sharding
from engine.training.plan import Plan
from engine.training.states import ModelStates

DEEPSPEED_BUCKET = 500_000_000  # elements


def buffers(plan: Plan, st: ModelStates, largest_layer: float, root: float) -> dict[str, float]:
    """Bytes of buffers live in each phase (forward, backward, optimizer_step) on one of the layout's ZeRO group
    of data-parallel GPUs (module docstring): ``largest_layer`` is the parameters of the biggest ZeRO-3 unit (a
    decoder layer) and ``root`` those of the root unit (embedding, final norm, output layer) that this GPU holds."""
    group = plan.layout.zero_group
    if group == 1:
        return {}
    s = plan.setup
    trainable = st.counts.trainable
    grad = plan.trained.grad
    if s.sharding is Sharding.NONE:
        return {"backward": float(trainable * grad)}
    if s.sharding in (Sharding.ZERO1, Sharding.ZERO2):
        bucket = float(min(DEEPSPEED_BUCKET, trainable) * grad)
        gather = float(min(DEEPSPEED_BUCKET, st.counts.total) * plan.dtypes.weight)
        return {"backward": bucket, "optimizer_step": gather}
    share = (group - 1) / group
    # as stored (4-bit for QLoRA's base), or FSDP's 16-bit gathers of fp32 shards (engine.training.policy)
    per_weight = plan.dtypes.gathered or st.weights_full / max(st.counts.total, 1)
    units = 2 * largest_layer * per_weight * share
    layer_grads = largest_layer * (plan.dtypes.gathered or grad) * share if s.method is Method.FULL else 0.0
    return {"forward": root * per_weight * share + units, "backward": root * per_weight * share + units + layer_grads}
