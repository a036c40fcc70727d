"""Communication and gathering buffers of data parallelism and ZeRO / FSDP, per GPU.

* DDP (``sharding none`` on several GPUs) copies every gradient into its all-reduce buckets unless
  ``gradient_as_bucket_view=True``: one more gradient-sized buffer (PyTorch ``DistributedDataParallel`` docs,
  argument ``gradient_as_bucket_view``: "the saved memory size will be equal to the total gradients size").
* ZeRO-1/2 (DeepSpeed) reduce gradients through a bucket of ``reduce_bucket_size`` = 5e8 elements by default
  and gather updated weights through ``allgather_bucket_size`` = 5e8 (DeepSpeed config docs, "ZeRO").
* ZeRO-3 / FSDP full shard gathers one wrapped unit (a decoder layer) at a time, prefetching the next one, and
  holds that unit's unsharded gradients until their reduce-scatter; the root unit (embeddings, final norm,
  output layer) stays gathered through the step (PyTorch FSDP docs, ``FullyShardedDataParallel``: "the root
  FSDP instance does not reshard after forward"; Zhao et al. 2023, arXiv:2304.11277, section 3.3).
"""

from __future__ import annotations

from engine.layers import runs
from engine.params import count_params, layer_params, norm_params
from engine.specs import Method, ModelSpec, Sharding, TrainingSetup
from engine.training.precision import dtype_plan
from engine.training.states import ModelStates, grad_dtype_bytes

DEEPSPEED_BUCKET = 500_000_000  # elements


def _layer_weight_bytes(m: ModelSpec, s: TrainingSetup, st: ModelStates) -> float:
    """Bytes of the largest decoder layer's weights as stored (4-bit for QLoRA's base)."""
    biggest = max(layer_params(m, r) for r in runs(m))
    return biggest * st.weights_full / max(st.counts.total, 1)


def sharding_buffers(m: ModelSpec, s: TrainingSetup, st: ModelStates) -> dict[str, float]:
    """Bytes of buffers live in each phase (forward, backward, optimizer_step)."""
    n = s.gpus
    if n == 1:
        return {}
    trainable = st.counts.trainable
    grad = grad_dtype_bytes(s)
    if s.sharding is Sharding.NONE:
        return {"backward": float(trainable * grad)}
    if s.sharding in (Sharding.ZERO1, Sharding.ZERO2):
        bucket = float(min(DEEPSPEED_BUCKET, trainable) * grad)
        gather = float(min(DEEPSPEED_BUCKET, st.counts.total) * dtype_plan(s.precision).weight)
        return {"backward": bucket, "optimizer_step": gather}
    pc = count_params(m)
    share = (n - 1) / n
    weight_bytes = st.weights_full / max(st.counts.total, 1)
    root = (pc.embedding + pc.lm_head + norm_params(m)) * weight_bytes * share
    units = 2 * _layer_weight_bytes(m, s, st) * share
    layer_grads = 0.0
    if s.method is Method.FULL:
        layer_grads = max(layer_params(m, r) for r in runs(m)) * grad * share
    return {"forward": root + units, "backward": root + units + layer_grads}
