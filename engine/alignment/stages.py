"""The four stages counted in models held in memory, and their per-GPU total.

* SFT: the policy, trained.
* DPO (Rafailov et al. 2023, arXiv:2305.18290): the policy trained on (chosen, rejected) pairs, concatenated into
  2b sequences as TRL's ``DPOTrainer`` does, and a frozen reference over the same pairs: an own copy, the LoRA
  base with adapters off, or none when its log-probabilities were precomputed (TRL ``precompute_ref_log_probs``).
* PPO for RLHF (Ouyang et al. 2022, arXiv:2203.02155): policy and critic trained, reference and reward frozen, and
  a rollout engine sampling the responses.
* GRPO (Shao et al. 2024, DeepSeekMath, arXiv:2402.03300, s4.1): policy trained, reference frozen (none with a KL
  coefficient of 0, TRL's ``beta=0.0``), the reward a rule or a model, a rollout engine sampling G answers a prompt.

With any of the RL settings (``num_generations``, ``max_prompt_length``, ``max_completion_length``,
``rollout_engine``), PPO and GRPO train on generated sequences (``engine.alignment.rollout``: G completions of C
tokens per prompt of P tokens, the rollout engine's KV cache); without them, on the setup's batch and sequence
length, with a colocated engine of ``rollout_share`` (the counts before issue 19, unchanged).

The step's roles run one after another, so the per-GPU peak is every role's resident bytes plus the largest
transient: ``sum(resident) + max(transient)`` (a rollout by ``model.generate`` is one more transient).
``sum_bytes`` adds every transient too: an upper bound, as if all roles ran at once. The device total adds the
allocator's reserve (``RESERVED_RATIO``) to the allocated bytes, then the rollout engine's share (a pool of its
own) and the CUDA context.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import Annotated

from pydantic import BaseModel, ConfigDict, Field, model_validator

from engine.alignment.roles import Holding, Mode, Role, RoleCost, absent, frozen, rollout, trained, value_model
from engine.alignment.rollout import (
    DEFAULT_COMPLETION,
    DEFAULT_GENERATIONS,
    DEFAULT_PROMPT,
    RolloutEngine,
    RolloutShape,
    rollout_role,
    shape,
)
from engine.specs import Flag, GpuSpec, Method, ModelSpec, SavedModule, TrainingSetup
from engine.terms import TermName
from engine.training.estimate import RESERVED_RATIO, estimate

Share = Annotated[float, Field(strict=True, allow_inf_nan=False, ge=0.0, lt=1.0)]
Generations = Annotated[int, Field(strict=True, ge=1, le=1_024)]
Tokens = Annotated[int, Field(strict=True, ge=1, le=524_288)]


class Stage(StrEnum):
    SFT = "sft"
    DPO = "dpo"
    PPO = "ppo"
    GRPO = "grpo"


class AlignmentOptions(BaseModel):
    """The variants that change how many models are held. Defaults follow the seed page."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    reference_shares_base: Flag = True  # LoRA / QLoRA: the reference is the base with adapters off
    dpo_precomputed_reference: Flag = False  # reference log-probs computed once before training
    #: DeepSeekMath's beta; TRL's default is 0.0
    grpo_kl_coef: Annotated[float, Field(strict=True, allow_inf_nan=False, ge=0.0, le=10.0)] = 0.04
    grpo_reward_model: Flag = False  # False: a rule (verifiable reward); True: a reward model
    rollout_share: Share = 0.3  # vLLM gpu_memory_utilization (TRL colocate default); 0: no separate engine
    #: issue 19's RL settings (engine.alignment.rollout); all None: the counts as before them
    num_generations: Generations | None = None  # GRPO's G (TRL default 8); PPO samples 1
    max_prompt_length: Tokens | None = None  # P (default 512)
    max_completion_length: Tokens | None = None  # C (TRL default 512)
    rollout_engine: RolloutEngine | None = None  # default: vllm-colocate with a rollout share, else hf-generate

    @model_validator(mode="after")
    def _check(self) -> AlignmentOptions:
        if self.rollout_engine is RolloutEngine.VLLM_COLOCATE and self.rollout_share == 0:
            raise ValueError("rollout_engine vllm-colocate needs a vllm_gpu_memory_utilization (rollout_share) above 0")
        return self

    @property
    def rl(self) -> bool:
        """Whether any RL setting was given (then PPO and GRPO train on generated sequences)."""
        return any(v is not None for v in (self.num_generations, self.max_prompt_length,
                                           self.max_completion_length, self.rollout_engine))

    @property
    def engine(self) -> RolloutEngine:
        """The rollout engine: as given, else a colocated vLLM when a share is set, else model.generate."""
        if self.rollout_engine is not None:
            return self.rollout_engine
        return RolloutEngine.VLLM_COLOCATE if self.rollout_share > 0 else RolloutEngine.HF_GENERATE


@dataclass(frozen=True, slots=True)
class StageMemory:
    """One stage: its roles, what each costs on one GPU, and the per-GPU totals."""

    stage: Stage
    roles: tuple[RoleCost, ...]
    gpu: GpuSpec
    gpus: int
    rollout: RolloutShape | None = None  # the RL step's shape, when RL settings were given (PPO, GRPO)

    @property
    def allocated_bytes(self) -> int:
        """Training allocations at the peak: every resident part plus the largest transient (a vLLM engine's
        share is a pool of its own, outside; a model.generate rollout is a transient)."""
        alloc = [r for r in self.roles if r.role is not Role.ROLLOUT]
        return sum(r.resident_bytes for r in alloc) + max((r.transient_bytes for r in self.roles), default=0)

    @property
    def elsewhere_bytes(self) -> int:
        """Bytes the step needs on GPUs of their own (a vLLM server's weights and KV cache)."""
        return sum(sum(r.elsewhere.values()) for r in self.roles)

    @property
    def sum_bytes(self) -> int:
        """Every role's full cost added up: an upper bound, as if all roles ran at the same moment."""
        return sum(r.bytes for r in self.roles)

    @property
    def rollout_bytes(self) -> int:
        return sum(r.resident_bytes for r in self.roles if r.role is Role.ROLLOUT)

    @property
    def device_bytes(self) -> int:
        return round(self.allocated_bytes * RESERVED_RATIO) + self.rollout_bytes + self.gpu.context_bytes

    @property
    def fits(self) -> bool:
        return self.device_bytes <= self.gpu.memory_bytes

    @property
    def peak_role(self) -> RoleCost | None:
        """The role whose working set sets the peak (the largest transient; None when nothing runs)."""
        running = [r for r in self.roles if r.transient_bytes]
        return max(running, key=lambda r: r.transient_bytes, default=None)

    def segments(self) -> tuple[tuple[str, str, int], ...]:
        """(role, part, bytes) adding up to ``device_bytes``: each role's resident bytes, the peak working set,
        then the allocator's reserve with the CUDA context (part ``resident``, ``working_set``, ``reserve``)."""
        out = [(r.role.value, "resident", r.resident_bytes) for r in self.roles if r.resident_bytes]
        peak = self.peak_role
        if peak is not None:
            out.append((peak.role.value, "working_set", peak.transient_bytes))
        out.append(("", "reserve", self.device_bytes - self.allocated_bytes - self.rollout_bytes))
        return tuple(out)

    @property
    def models(self) -> int:
        """Models of the algorithm loaded for training (the seed's count; the rollout engine is not one)."""
        return sum(1 for r in self.roles if r.role is not Role.ROLLOUT and r.holding in (Holding.OWN,
                                                                                         Holding.SHARED_BASE))

    @property
    def weight_copies(self) -> int:
        """Distinct copies of weights in GPU memory (the rollout engine's included)."""
        return sum(1 for r in self.roles if r.resident.get(TermName.WEIGHTS, 0) > 0)


def _reference(m: ModelSpec, s: TrainingSetup, o: AlignmentOptions, sequences: int,
               logit_tokens: int | None = None) -> RoleCost:
    shared = s.method is not Method.FULL and o.reference_shares_base
    return frozen(Role.REFERENCE, m, s, sequences, holding=Holding.SHARED_BASE if shared else Holding.OWN,
                  logit_tokens=logit_tokens)


def rl_shape(stage: Stage, s: TrainingSetup, o: AlignmentOptions) -> RolloutShape | None:
    """The shape of a PPO or GRPO step when RL settings were given (``engine.alignment.rollout``), else None."""
    if stage not in (Stage.PPO, Stage.GRPO) or not o.rl:
        return None
    grpo = stage is Stage.GRPO
    generations = (o.num_generations or DEFAULT_GENERATIONS) if grpo else 1
    return shape(s, o.engine, generations=generations, prompt=o.max_prompt_length or DEFAULT_PROMPT,
                 completion=o.max_completion_length or DEFAULT_COMPLETION, completion_only_logits=grpo,
                 share=o.rollout_share)


def _rl_roles(stage: Stage, m: ModelSpec, s: TrainingSetup, gpu: GpuSpec, o: AlignmentOptions, *,
              rs: RolloutShape) -> list[RoleCost]:
    """PPO / GRPO over generated sequences: every model runs over ``batch x G`` sequences of ``P + C`` tokens;
    GRPO's policy and reference make logits for the completion only (``engine.alignment.rollout``)."""
    st, n = s.derived(batch=rs.train_sequences, seq_len=rs.seq_len), rs.train_sequences
    share = 1.0 if rs.logits_to_keep is None else min(rs.logits_to_keep, rs.seq_len) / rs.seq_len
    roles = [trained(Role.POLICY, estimate(m, st, gpu), logit_share=share)]
    if stage is Stage.PPO:
        vs = value_setup(st)
        roles += [trained(Role.CRITIC, estimate(value_model(m), vs, gpu), logits=False), _reference(m, st, o, n),
                  frozen(Role.REWARD, value_model(m), vs, n, logits=False)]
    else:
        roles.append(_reference(m, st, o, n, rs.logits_to_keep) if o.grpo_kl_coef > 0
                     else absent(Role.REFERENCE, Holding.NOT_LOADED))
        roles.append(frozen(Role.REWARD, value_model(m), value_setup(st), n, logits=False) if o.grpo_reward_model
                     else absent(Role.REWARD, Holding.PROGRAM, Mode.RULE))
    return [*roles, rollout_role(m, s, rs, gpu.memory_bytes)]


def value_setup(s: TrainingSetup) -> TrainingSetup:
    """The setup of a value model (PPO's critic, the reward model): the policy's, less ``modules_to_save`` lm_head.
    A value model has no LM head (``roles.value_model``), and PEFT's ``_set_trainable`` (peft/utils/other.py) wraps
    the modules whose names end with a listed one, so lm_head wraps nothing there."""
    if SavedModule.LM_HEAD not in s.modules_to_save:
        return s
    return s.derived(modules_to_save=tuple(x for x in s.modules_to_save if x is not SavedModule.LM_HEAD))


def _roles(stage: Stage, m: ModelSpec, s: TrainingSetup, gpu: GpuSpec, o: AlignmentOptions) -> list[RoleCost]:
    b = s.batch
    rs = rl_shape(stage, s, o)
    if rs is not None:
        return _rl_roles(stage, m, s, gpu, o, rs=rs)
    if stage is Stage.SFT:
        return [trained(Role.POLICY, estimate(m, s, gpu))]
    if stage is Stage.DPO:
        policy = trained(Role.POLICY, estimate(m, s.derived(batch=2 * b), gpu))
        ref = absent(Role.REFERENCE, Holding.PRECOMPUTED) if o.dpo_precomputed_reference else _reference(m, s, o, 2 * b)
        return [policy, ref]
    roles = [trained(Role.POLICY, estimate(m, s, gpu))]
    if stage is Stage.PPO:
        vs = value_setup(s)
        roles += [trained(Role.CRITIC, estimate(value_model(m), vs, gpu), logits=False), _reference(m, s, o, b),
                  frozen(Role.REWARD, value_model(m), vs, b, logits=False)]
    else:
        roles.append(_reference(m, s, o, b) if o.grpo_kl_coef > 0 else absent(Role.REFERENCE, Holding.NOT_LOADED))
        roles.append(frozen(Role.REWARD, value_model(m), value_setup(s), b, logits=False) if o.grpo_reward_model
                     else absent(Role.REWARD, Holding.PROGRAM, Mode.RULE))
    if o.rollout_share > 0:
        roles.append(rollout(m, o.rollout_share, gpu.memory_bytes))
    return roles


def stage_memory(stage: Stage, m: ModelSpec, s: TrainingSetup, gpu: GpuSpec,
                 options: AlignmentOptions | None = None) -> StageMemory:
    """One stage for the model, setup (method, GPUs, sharding, ...) and GPU."""
    o = options or AlignmentOptions()
    return StageMemory(stage, tuple(_roles(stage, m, s, gpu, o)), gpu, s.gpus, rl_shape(stage, s, o))


def stages(m: ModelSpec, s: TrainingSetup, gpu: GpuSpec,
           options: AlignmentOptions | None = None) -> tuple[StageMemory, ...]:
    """SFT, DPO, PPO, GRPO, in the seed's order."""
    return tuple(stage_memory(st, m, s, gpu, options) for st in Stage)
