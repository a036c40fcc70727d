"""Every alignment stage costs every valid setup (issue 17's fuzz test found the opposite).

A frozen model's weights were read from a copy of the setup on one GPU without ZeRO (``s.with_(gpus=1, ...)``),
re-validated: a setup with tensor parallelism (1 GPU is no multiple of tp 4), several nodes (1 GPU is no multiple
of 2 nodes) or a PPO / GRPO step whose derived batch is past a request's bound (batch x G sequences of P + C
tokens) was refused, and the Alignment page raised in its recompute. The whole frozen copy is the model's
weights before any ZeRO divisor (``weights_full``), read from the setup itself.
"""

from __future__ import annotations

import pytest

from engine.alignment import AlignmentOptions, Role, Stage, stage_memory
from engine.alignment.roles import frozen_weights, frozen_whole
from engine.catalog import get_gpu, get_model
from engine.params import count_params
from engine.specs import HostSetup, Method, ParallelSpec, SavedModule, Sharding, TrainingSetup

GPT2 = get_model("gpt2")
H100 = get_gpu("h100-80gb")
#: batch 4,096 x G 8 = 32,768 sequences of 512 + 512 tokens in GRPO's derived step: past a request's batch
#: (4,096) and its 2^24 tokens
RL = AlignmentOptions(num_generations=8, max_prompt_length=512, max_completion_length=512)

SETUPS = {
    "tp 4 of 8 GPUs": (TrainingSetup(gpus=8, parallel=ParallelSpec(tp=4)), AlignmentOptions()),
    "2 nodes of 8": (TrainingSetup(gpus=16, host=HostSetup(nodes=2)), AlignmentOptions()),
    "2 nodes, ZeRO-3": (TrainingSetup(gpus=16, sharding=Sharding.ZERO3, host=HostSetup(nodes=2)), AlignmentOptions()),
    "RL step past 2^24 tokens": (TrainingSetup(batch=4_096, seq_len=512), RL),
    "RL step past 2^24 tokens, ZeRO-3 on 2 nodes": (
        TrainingSetup(batch=4_096, seq_len=512, gpus=16, sharding=Sharding.ZERO3, host=HostSetup(nodes=2)), RL),
}


@pytest.mark.parametrize("name", sorted(SETUPS))
@pytest.mark.parametrize("stage", list(Stage))
def test_every_stage_costs_the_setup(name: str, stage: Stage) -> None:
    s, options = SETUPS[name]
    sm = stage_memory(stage, GPT2, s, H100, options)
    assert sm.roles
    assert all(r.bytes >= 0 for r in sm.roles)


def test_the_frozen_copy_is_the_whole_models_weights_wherever_it_runs() -> None:
    """By hand: a bf16-mixed model's stored weights are its parameters x 2 bytes (the fp32 master copy is an
    optimizer state, ``engine.training.precision``), the same on one GPU, with tp 4 or on two nodes; ZeRO-3
    shards them."""
    whole = count_params(GPT2).total * 2
    for s, _ in SETUPS.values():
        assert frozen_whole(GPT2, s) == whole
    z3 = TrainingSetup(gpus=16, sharding=Sharding.ZERO3, host=HostSetup(nodes=2))
    assert frozen_weights(GPT2, z3) == -(-whole // 16)
    lora = TrainingSetup(method=Method.LORA, gpus=8, parallel=ParallelSpec(tp=4))
    assert frozen_whole(GPT2, lora) == whole  # the bf16 base; the fp32 adapters are the policy's own


def test_the_grpo_reference_of_a_step_past_a_requests_bounds_holds_its_weights() -> None:
    """GRPO's step trains on 32,768 sequences (a request's batch is at most 4,096): its reference was refused."""
    s, options = SETUPS["RL step past 2^24 tokens"]
    reference = next(r for r in stage_memory(Stage.GRPO, GPT2, s, H100, options).roles if r.role is Role.REFERENCE)
    assert reference.resident["weights"] == count_params(GPT2).total * 2


def test_the_critic_and_reward_models_have_no_lm_head_to_save() -> None:
    """Fuzz seed 106 (a bug): LoRA with modules_to_save lm_head raised on PPO's critic, a value model with no LM
    head (``roles.value_model``). PEFT's ``_set_trainable`` (peft/utils/other.py) wraps the modules whose names end
    with a listed one, so on the value model lm_head wraps nothing: its critic is the setup without it."""
    m, gpu = get_model("llama-2-7b"), get_gpu("a100-80gb")
    s = TrainingSetup(method=Method.LORA, modules_to_save=(SavedModule.LM_HEAD, SavedModule.EMBED_TOKENS))
    ppo = stage_memory(Stage.PPO, m, s, gpu)
    critic = next(r for r in ppo.roles if r.role is Role.CRITIC)
    assert critic.estimate is not None
    assert critic.estimate.setup.modules_to_save == (SavedModule.EMBED_TOKENS,)
    policy = next(r for r in ppo.roles if r.role is Role.POLICY)
    assert policy.estimate is not None
    assert policy.estimate.setup == s
    rl = AlignmentOptions(max_prompt_length=256)  # fuzz seed 202: the rollout-shaped step (RL settings given) too
    for stage in (Stage.PPO, Stage.GRPO):
        roles = stage_memory(stage, m, s, gpu, rl.model_copy(update={"grpo_reward_model": True})).roles
        assert any(r.role is Role.CRITIC for r in roles) == (stage is Stage.PPO)
        assert all(r.estimate.setup.modules_to_save == (SavedModule.EMBED_TOKENS,)
                   for r in roles if r.role is Role.CRITIC and r.estimate is not None)
