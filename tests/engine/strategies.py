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
    ModelSpec,
    Optimizer,
    Precision,
    Sharding,
    TrainingSetup,
)
from engine.training import refusals

#: the checkpointing and losses of every stack's setups; op-level selective checkpointing (dense full fine-tuning
#: only) and torchtitan's chunked-backward loss (--stack torchtitan under FSDP2) have strategies of their own
#: (tests/engine/training/test_stack_rules.py)
CHECKPOINTING = [c for c in Checkpointing if c is not Checkpointing.OP_SELECTIVE]
LOSSES = [x for x in Loss if x is not Loss.CHUNKED_BACKWARD]

def _valid(fields: dict[str, object]) -> bool:
    """A combination the setup accepts (issue 27's optimizers refuse sharding and adapters by name)."""
    try:
        TrainingSetup(**fields)
    except ValueError:
        return False
    return True


def costed(m: ModelSpec, s: TrainingSetup) -> bool:
    """The model can take the setup's options as the engine costs them (engine.training.refusals)."""
    try:
        refusals.check(m, s)
    except refusals.OptionError:
        return False
    return True


def valid_setups(**fields: st.SearchStrategy[object]) -> st.SearchStrategy[TrainingSetup]:
    """Setups built from ``fields``' strategies, the combinations the setup refuses left out."""
    return st.fixed_dictionaries(fields).filter(_valid).map(lambda f: TrainingSetup(**f))


setups = valid_setups(
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
