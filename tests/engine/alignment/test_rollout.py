"""engine.alignment.rollout and the RL stages: generations, lengths and the rollout engine, by hand."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from engine.alignment import AlignmentOptions, Holding, Role, RoleCost, RolloutEngine, Stage, StageMemory, stage_memory
from engine.alignment.roles import frozen_weights
from engine.catalog import get_gpu, get_model
from engine.params import count_params
from engine.specs import Checkpointing, Method, Sharding, TrainingSetup
from engine.terms import TermName
from engine.training import estimate
from engine.training.estimate import RESERVED_RATIO
from engine.training.inference import forward_bytes

QWEN = get_model("qwen2.5-7b")  # 28 layers, 4 KV heads of 128, vocabulary 152,064
H100 = get_gpu("h100-80gb")
LORA = TrainingSetup(method=Method.LORA, checkpointing=Checkpointing.FULL)
KV_PER_TOKEN = 2 * 28 * 4 * 128 * 2  # K and V, every layer, bf16


def _grpo(g: int, engine: RolloutEngine, s: TrainingSetup = LORA, **kw: object) -> StageMemory:
    o = AlignmentOptions(num_generations=g, max_prompt_length=512, max_completion_length=1_024, rollout_engine=engine,
                         **kw)
    return stage_memory(Stage.GRPO, QWEN, s, H100, o)


def _role(sm: StageMemory, role: Role) -> RoleCost:
    return next(r for r in sm.roles if r.role is role)


def test_without_rl_settings_nothing_changes() -> None:
    o = AlignmentOptions()
    assert not o.rl
    sm = stage_memory(Stage.GRPO, QWEN, LORA, H100, o)
    assert sm.rollout is None
    assert _role(sm, Role.POLICY).estimate == estimate(QWEN, LORA, H100)


def test_grpo_trains_on_g_completions_with_logits_for_the_completion_only() -> None:
    """16 completions of 512 + 1,024 tokens; TRL's logits_to_keep = 1,025 of the 1,536 positions."""
    sm = _grpo(16, RolloutEngine.VLLM_COLOCATE)
    rs = sm.rollout
    assert rs is not None
    assert (rs.train_sequences, rs.seq_len, rs.logits_to_keep) == (16, 1_536, 1_025)
    policy = _role(sm, Role.POLICY)
    assert policy.estimate == estimate(QWEN, LORA.with_(batch=16, seq_len=1_536), H100)
    whole = next(t.bytes for t in policy.estimate.terms if t.name == TermName.LOGITS)
    assert policy.transient[TermName.LOGITS] == round(whole * 1_025 / 1_536)
    ref = _role(sm, Role.REFERENCE)  # DeepSeekMath's KL 0.04: the LoRA base, adapters off
    assert ref.holding is Holding.SHARED_BASE
    assert ref.transient[TermName.FORWARD] == forward_bytes(QWEN, LORA.with_(batch=16, seq_len=1_536), 16,
                                                            logit_tokens=1_025).bytes


def test_vllm_colocate_holds_its_share_weights_included() -> None:
    """0.3 x the H100's memory, of which the 16-bit weights; the rest is KV cache, more than the 16 x 1,536 tokens
    need; the pool adds to the device total beside the training allocations."""
    sm = _grpo(16, RolloutEngine.VLLM_COLOCATE)
    vllm = _role(sm, Role.ROLLOUT)
    budget = round(0.3 * H100.memory_bytes)
    weights = count_params(QWEN).total * 2
    assert vllm.resident == {TermName.WEIGHTS: weights, TermName.KV_CACHE: budget - weights}
    assert budget - weights > 16 * 1_536 * KV_PER_TOKEN
    assert vllm.note == ""
    assert sm.device_bytes == round(sm.allocated_bytes * RESERVED_RATIO) + budget + H100.context_bytes


def test_vllm_colocate_notes_a_batch_its_cache_cannot_hold() -> None:
    sm = _grpo(64, RolloutEngine.VLLM_COLOCATE, LORA.with_(grad_accum=8), rollout_share=0.2)
    assert _role(sm, Role.ROLLOUT).resident[TermName.KV_CACHE] < 64 * 8 * 1_536 * KV_PER_TOKEN
    assert "in turns" in _role(sm, Role.ROLLOUT).note


def test_hf_generate_is_one_more_working_set() -> None:
    """model.generate with the policy's weights: its KV cache for the generation batch (batch x G x gradient
    accumulation, TRL's steps_per_generation default) is a transient, outside any vLLM pool."""
    s = LORA.with_(grad_accum=2)
    sm = _grpo(16, RolloutEngine.HF_GENERATE, s)
    gen = _role(sm, Role.ROLLOUT)
    assert gen.holding is Holding.POLICY
    assert gen.resident == {}
    # the larger of the prefill (the prompts' cache + a no-grad forward over 32 x 512 tokens, logits for the last)
    # and the last decoding step (the whole cache + one token's forward): here the prefill
    prefill = 32 * 512 * KV_PER_TOKEN + forward_bytes(QWEN, s.with_(seq_len=512), 32, logit_tokens=1).bytes
    decode = 32 * 1_536 * KV_PER_TOKEN + forward_bytes(QWEN, s.with_(seq_len=1), 32).bytes
    assert gen.transient_bytes == max(prefill, decode) == prefill
    assert gen.transient[TermName.KV_CACHE] == 32 * 512 * KV_PER_TOKEN
    assert sm.rollout_bytes == 0
    resident = sum(r.resident_bytes for r in sm.roles)
    assert sm.allocated_bytes == resident + max(r.transient_bytes for r in sm.roles)


def test_hf_generate_under_zero3_gathers_the_whole_policy() -> None:
    s = LORA.with_(gpus=8, sharding=Sharding.ZERO3)
    gen = _role(_grpo(2, RolloutEngine.HF_GENERATE, s), Role.ROLLOUT)
    whole = frozen_weights(QWEN, s.with_(gpus=1, sharding=Sharding.NONE))
    assert gen.transient[TermName.WEIGHTS] == whole - frozen_weights(QWEN, s)


def test_vllm_server_runs_on_gpus_of_its_own() -> None:
    s = LORA.with_(gpus=4)
    sm = _grpo(16, RolloutEngine.VLLM_SERVER, s)
    server = _role(sm, Role.ROLLOUT)
    assert server.bytes == 0
    assert server.elsewhere == {TermName.WEIGHTS: count_params(QWEN).total * 2,
                                TermName.KV_CACHE: 4 * 16 * 1_536 * KV_PER_TOKEN}
    assert sm.elsewhere_bytes == sum(server.elsewhere.values())
    assert sm.device_bytes == round(sm.allocated_bytes * RESERVED_RATIO) + H100.context_bytes


def test_ppo_samples_one_completion_and_keeps_every_logit() -> None:
    o = AlignmentOptions(num_generations=16, max_completion_length=1_024, rollout_engine=RolloutEngine.HF_GENERATE)
    sm = stage_memory(Stage.PPO, QWEN, LORA, H100, o)
    assert sm.rollout is not None
    assert (sm.rollout.generations, sm.rollout.train_sequences, sm.rollout.logits_to_keep) == (1, 1, None)
    assert _role(sm, Role.POLICY).estimate == estimate(QWEN, LORA.with_(seq_len=1_536), H100)
    assert sm.models == 4


def test_the_engine_defaults_to_the_share() -> None:
    assert AlignmentOptions(num_generations=4).engine is RolloutEngine.VLLM_COLOCATE
    assert AlignmentOptions(num_generations=4, rollout_share=0.0).engine is RolloutEngine.HF_GENERATE
    with pytest.raises(ValidationError, match="vllm-colocate"):
        AlignmentOptions(rollout_engine=RolloutEngine.VLLM_COLOCATE, rollout_share=0.0)


def test_readme_figures_two_and_sixteen_generations() -> None:
    """Qwen2.5 7B, LoRA r16, checkpointing, 512 + 1,024 tokens, vLLM colocated at 0.3 on an H100 80GB: 16
    generations train on 8x the sequences of 2; the pool is the same; both fit, sixteen with little room."""
    two, sixteen = _grpo(2, RolloutEngine.VLLM_COLOCATE), _grpo(16, RolloutEngine.VLLM_COLOCATE)
    assert two.rollout_bytes == sixteen.rollout_bytes == round(0.3 * H100.memory_bytes)
    p2, p16 = _role(two, Role.POLICY).transient, _role(sixteen, Role.POLICY).transient
    assert p16[TermName.LOGITS] == pytest.approx(8 * p2[TermName.LOGITS], rel=1e-6)
    assert two.fits
    assert sixteen.fits
    assert sixteen.device_bytes > 0.9 * H100.memory_bytes
