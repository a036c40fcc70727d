"""Alignment stages counted in models held in memory: SFT, DPO, PPO, GRPO (the seed page's last training section).

``stages(model, setup, gpu, options)`` gives, per stage, each role (policy, reference, reward, critic, rollout
engine) as trained, frozen or a rule, its bytes per GPU, and the per-GPU total; ``FACTS`` and ``FLOWS`` hold what
each stage is for and what flows between its roles. Roles are costed in ``engine.alignment.roles``, stages
composed in ``engine.alignment.stages``; RL's rollout (generations, lengths, the sampling engine) in
``engine.alignment.rollout``.
"""

from engine.alignment.facts import FACTS, FLOWS, Fact, Flow
from engine.alignment.roles import Holding, Mode, Role, RoleCost, value_model
from engine.alignment.rollout import RolloutEngine, RolloutShape
from engine.alignment.stages import AlignmentOptions, Stage, StageMemory, stage_memory, stages

__all__ = [
    "FACTS",
    "FLOWS",
    "AlignmentOptions",
    "Fact",
    "Flow",
    "Holding",
    "Mode",
    "Role",
    "RoleCost",
    "RolloutEngine",
    "RolloutShape",
    "Stage",
    "StageMemory",
    "stage_memory",
    "stages",
    "value_model",
]
