"""Hypothesis strategies shared by the engine's property tests: every training setup on one GPU a user can pick
(method, precision, optimizer, batch, tokens, accumulation, attention, checkpointing, data-parallel GPUs, sharding,
the loss and activation offload), over every catalog model."""

from __future__ import annotations

from hypothesis import strategies as st

from engine.catalog import models
from engine.specs import (
    Attention,
    Checkpointing,
    Loss,
    Method,
    Optimizer,
    Precision,
    Sharding,
    TrainingSetup,
)

#: the checkpointing and losses of every stack's setups; op-level selective checkpointing (dense full fine-tuning
#: only) and torchtitan's chunked-backward loss (--stack torchtitan under FSDP2) have strategies of their own
#: (tests/engine/training/test_stack_rules.py)
CHECKPOINTING = [c for c in Checkpointing if c is not Checkpointing.OP_SELECTIVE]
LOSSES = [x for x in Loss if x is not Loss.CHUNKED_BACKWARD]

setups = st.builds(
    TrainingSetup,
    method=st.sampled_from(Method),
    precision=st.sampled_from(Precision),
    optimizer=st.sampled_from(Optimizer),
    batch=st.integers(1, 16),
    seq_len=st.integers(1, 32_768),
    grad_accum=st.integers(1, 4),
    attention=st.sampled_from(Attention),
    checkpointing=st.sampled_from(CHECKPOINTING),
    gpus=st.integers(1, 64),
    sharding=st.sampled_from(Sharding),
    loss=st.sampled_from(LOSSES),
    activation_offload=st.booleans(),
)
catalog = st.sampled_from(models())
