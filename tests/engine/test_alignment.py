"""Alignment stages: how many models each holds and what they cost, against hand-derived sums."""

import json

import pytest

from engine.alignment import (
    FACTS,
    FLOWS,
    AlignmentOptions,
    Holding,
    Mode,
    Role,
    RoleCost,
    Stage,
    StageMemory,
    stage_memory,
    stages,
)
from engine.alignment.roles import frozen_weights, value_model
from engine.catalog import get_gpu, get_model
from engine.cli import main
from engine.specs import Attention, Method, Sharding, TrainingSetup
from engine.training import estimate
from engine.training.estimate import RESERVED_RATIO
from engine.training.inference import forward_bytes

M = get_model("llama-2-7b")
A100 = get_gpu("a100-80gb")
FULL, LORA = TrainingSetup(), TrainingSetup(method=Method.LORA)
PSI = 6_738_415_616


def _role(sm: StageMemory, role: Role) -> RoleCost:
    return next(r for r in sm.roles if r.role is role)


def test_inference_forward_by_hand():
    # per token: residual 2 x 2 x 4096, MLP working set 2 x (4096 + 3 x 11008) > attention 2 x 6 x 4096,
    # log-probs 32,000 x (2 + 4 + 4)
    per_token = 2 * 2 * 4096 + 2 * (4096 + 3 * 11008) + 32_000 * 10
    assert forward_bytes(M, FULL, 2).bytes == 2 * 4096 * per_token
    eager = forward_bytes(M, FULL.with_(attention=Attention.EAGER), 1).bytes - forward_bytes(M, FULL, 1).bytes
    assert eager == 32 * 4096**2 * 6
    assert forward_bytes(M, FULL, 1, logits=False).bytes == 4096 * (per_token - 320_000)


def test_sft_is_the_training_estimate():
    sm = stage_memory(Stage.SFT, M, FULL, A100)
    e = estimate(M, FULL, A100)
    assert sm.models == 1
    assert sm.allocated_bytes == sm.sum_bytes == e.peak_allocated_bytes
    assert sm.device_bytes == e.device_bytes


def test_dpo_full_is_policy_plus_reference_weights_plus_its_forward():
    sm = stage_memory(Stage.DPO, M, FULL, A100)
    policy = estimate(M, FULL.with_(batch=2), A100)  # chosen and rejected, concatenated
    ref = _role(sm, Role.REFERENCE)
    assert ref.mode is Mode.FROZEN
    assert ref.resident == {"weights": PSI * 2}
    assert ref.transient == {"forward": forward_bytes(M, FULL, 2).bytes}
    assert sm.sum_bytes == policy.peak_allocated_bytes + PSI * 2 + forward_bytes(M, FULL, 2).bytes
    # the reference's forward ends before the policy's: only the larger working set counts at the peak
    assert sm.allocated_bytes == policy.peak_allocated_bytes + PSI * 2
    assert sm.device_bytes == round(sm.allocated_bytes * RESERVED_RATIO) + A100.context_bytes
    assert sm.models == 2
    assert sm.weight_copies == 2


def test_lora_dpo_holds_one_base_copy():
    sm = stage_memory(Stage.DPO, M, LORA, A100)
    ref = _role(sm, Role.REFERENCE)
    assert ref.holding is Holding.SHARED_BASE
    assert ref.resident_bytes == 0
    assert ref.transient_bytes > 0
    assert sm.models == 2
    assert sm.weight_copies == 1
    own = stage_memory(Stage.DPO, M, LORA, A100, AlignmentOptions(reference_shares_base=False))
    assert own.weight_copies == 2
    assert own.allocated_bytes - sm.allocated_bytes == PSI * 2


def test_dpo_precomputed_reference_leaves_the_policy_alone():
    sm = stage_memory(Stage.DPO, M, FULL, A100, AlignmentOptions(dpo_precomputed_reference=True))
    assert _role(sm, Role.REFERENCE).holding is Holding.PRECOMPUTED
    assert _role(sm, Role.REFERENCE).bytes == 0
    assert sm.allocated_bytes == estimate(M, FULL.with_(batch=2), A100).peak_allocated_bytes
    assert sm.models == 1


def test_ppo_holds_four_models_two_trained():
    sm = stage_memory(Stage.PPO, M, FULL, A100)
    assert sm.models == 4
    modes = {r.role: r.mode for r in sm.roles}
    assert modes[Role.POLICY] is modes[Role.CRITIC] is Mode.TRAINED
    assert modes[Role.REFERENCE] is modes[Role.REWARD] is Mode.FROZEN
    critic, reward = _role(sm, Role.CRITIC), _role(sm, Role.REWARD)
    no_head = PSI - 32_000 * 4096  # a value head instead of the LM head
    assert critic.resident == {"weights": no_head * 2, "optimizer_states": no_head * 12}
    assert "logits" not in critic.transient
    assert reward.resident == {"weights": no_head * 2}
    assert reward.transient == {"forward": forward_bytes(value_model(M), FULL, 1, logits=False).bytes}


def test_grpo_kl_zero_loads_no_reference_and_a_rule_reward_takes_nothing():
    sm = stage_memory(Stage.GRPO, M, FULL, A100, AlignmentOptions(grpo_kl_coef=0.0))
    ref, reward = _role(sm, Role.REFERENCE), _role(sm, Role.REWARD)
    assert ref.holding is Holding.NOT_LOADED
    assert ref.bytes == 0
    assert reward.mode is Mode.RULE
    assert reward.bytes == 0
    assert sm.models == 1
    with_model = stage_memory(Stage.GRPO, M, FULL, A100, AlignmentOptions(grpo_kl_coef=0.0, grpo_reward_model=True))
    assert _role(with_model, Role.REWARD).mode is Mode.FROZEN
    assert with_model.models == 2
    assert stage_memory(Stage.GRPO, M, FULL, A100).models == 2  # default: KL 0.04 keeps the reference


@pytest.mark.parametrize("share", [0.0, 0.3, 0.5])
def test_rollout_engine_takes_its_share_of_the_gpu(share):
    sm = stage_memory(Stage.GRPO, M, LORA, A100, AlignmentOptions(rollout_share=share))
    assert sm.rollout_bytes == round(share * A100.memory_bytes)
    if share:
        r = _role(sm, Role.ROLLOUT)
        assert r.resident["weights"] == PSI * 2
        assert sm.rollout_bytes == r.resident_bytes
        assert sm.device_bytes == round(sm.allocated_bytes * RESERVED_RATIO) + sm.rollout_bytes + A100.context_bytes
    else:
        assert all(r.role is not Role.ROLLOUT for r in sm.roles)


def test_zero3_splits_frozen_weights_over_the_gpus():
    z3 = FULL.with_(gpus=4, sharding=Sharding.ZERO3)
    assert frozen_weights(M, z3) == PSI * 2 // 4
    sm = stage_memory(Stage.DPO, M, z3, A100)
    assert _role(sm, Role.REFERENCE).resident["weights"] == PSI * 2 // 4
    policy = _role(sm, Role.POLICY).estimate
    assert policy is not None
    assert policy.setup.gpus == 4


def test_every_stage_has_facts_and_flows_between_its_roles():
    for sm in stages(M, FULL, A100):
        assert FACTS[sm.stage]
        nodes = {f.source for f in FLOWS[sm.stage]} | {f.target for f in FLOWS[sm.stage]}
        roles = {r.role.value for r in sm.roles if r.role is not Role.ROLLOUT}
        assert roles <= nodes | {"reward"}


def test_cli_alignment_json(capsys):
    assert main(["alignment", "--method", "lora", "--gpus", "2", "--json"]) == 0
    d = json.loads(capsys.readouterr().out)
    by_stage = {s["stage"]: s for s in d["stages"]}
    assert list(by_stage) == ["sft", "dpo", "ppo", "grpo"]
    assert by_stage["ppo"]["models"] == 4
    for s in d["stages"]:
        assert {"role", "mode", "bytes"} <= s["roles"][0].keys()
        assert s["device_bytes"] > s["allocated_bytes"] > 0
    assert main(["alignment", "--stage", "dpo", "--dpo-precomputed-reference", "--json"]) == 0
    d = json.loads(capsys.readouterr().out)
    assert [s["stage"] for s in d["stages"]] == ["dpo"]
    assert d["stages"][0]["models"] == 1
    assert main(["alignment", "--rollout-share", "1.5"]) == 2


def test_cli_levers_json(capsys):
    assert main(["levers", "--json"]) == 0
    d = json.loads(capsys.readouterr().out)
    assert d["lora"]["trainable"] == 39_976_960
    assert d["zero3"]["communication_factor"] == 1.5
    assert d["advice"] == {**d["advice"], "biggest_term": "optimizer_states", "lever": "lora"}


@pytest.mark.parametrize("stage", list(Stage))
def test_segments_add_up_to_the_device_total(stage: Stage) -> None:
    sm = stage_memory(stage, M, LORA, A100)
    assert sum(b for _, _, b in sm.segments()) == sm.device_bytes
    peak = sm.peak_role
    assert peak is not None
    assert peak.role is Role.POLICY  # the trained policy's activations outweigh every frozen forward here
