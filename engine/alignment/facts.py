"""What each stage is for, stated with its context and source, and what flows between its roles in one step.

The facts are the seed page's, each with the context that makes it true; the flows are the arrows of a stage
diagram, in the order one step of the loop sends them (a GUI animates them in this order). Facts and flow labels
are marked for translation (``engine.translatable``); sources stay as written.
"""

from __future__ import annotations

from dataclasses import dataclass

from engine.alignment.stages import Stage
from engine.translatable import QT_TRANSLATE_NOOP

DPO_SOURCE = "Rafailov et al. 2023, Direct Preference Optimization (arXiv:2305.18290)"
PPO_SOURCE = "Ouyang et al. 2022, InstructGPT (arXiv:2203.02155) s3.5; Schulman et al. 2017 (PPO, arXiv:1707.06347)"
GRPO_SOURCE = "Shao et al. 2024, DeepSeekMath (arXiv:2402.03300) s4.1"


@dataclass(frozen=True, slots=True)
class Fact:
    """One claim with the context that makes it true and where it comes from."""

    text: str
    context: str
    source: str


@dataclass(frozen=True, slots=True)
class Flow:
    """An arrow of the diagram: what goes from one node to another. Nodes are role names or 'data', 'loss'."""

    source: str
    target: str
    label: str


FACTS: dict[Stage, tuple[Fact, ...]] = {
    Stage.SFT: (
        Fact(QT_TRANSLATE_NOOP("engine", "Prompt / answer pairs teach the model a format and a task; one model "
                                         "trains."),
             QT_TRANSLATE_NOOP("engine", "Supervised fine-tuning, the step before preference learning."),
             PPO_SOURCE),
    ),
    Stage.DPO: (
        Fact(QT_TRANSLATE_NOOP("engine", "No reward model and no sampling: the loss is computed directly on "
                                         "(better, worse) answer pairs."),
             QT_TRANSLATE_NOOP("engine", "The reward is implicit in the policy / reference log-probability ratio."),
             DPO_SOURCE + " s4"),
        Fact(QT_TRANSLATE_NOOP("engine", "The frozen reference is part of the loss."),
             QT_TRANSLATE_NOOP("engine", "Without it nothing holds the policy near the SFT model it starts from."),
             DPO_SOURCE + " s4"),
        Fact(QT_TRANSLATE_NOOP("engine", "A small learning rate, about 5e-7, for 1 to 2 epochs."),
             QT_TRANSLATE_NOOP("engine", "Zephyr-7B-beta's DPO recipe uses 5e-7 for one epoch; the DPO paper's own "
                                         "default is 1e-6 with RMSprop."),
             "huggingface/alignment-handbook recipes/zephyr-7b-beta/dpo/config_full.yaml; Tunstall et al. 2023 "
             "(Zephyr, arXiv:2310.16944); " + DPO_SOURCE + " App. B"),
    ),
    Stage.PPO: (
        Fact(QT_TRANSLATE_NOOP("engine", "Four models: policy and critic trained, reference and reward model "
                                         "frozen."),
             QT_TRANSLATE_NOOP("engine", "The classic RLHF recipe; the most flexible, and the hungriest and hardest "
                                         "to tune."),
             PPO_SOURCE),
        Fact(QT_TRANSLATE_NOOP("engine", "The critic is as large as the model it judges."),
             QT_TRANSLATE_NOOP("engine", "InstructGPT initialises its value function from its 6B reward model."),
             PPO_SOURCE),
    ),
    Stage.GRPO: (
        Fact(QT_TRANSLATE_NOOP("engine", "Removes the critic, not the reward."),
             QT_TRANSLATE_NOOP("engine", "The baseline is the group's mean reward instead of a learned value."),
             GRPO_SOURCE),
        Fact(QT_TRANSLATE_NOOP("engine", "Samples a group of answers per prompt and normalises each reward by the "
                                         "group's mean and standard deviation: that is the advantage."),
             QT_TRANSLATE_NOOP("engine", "DeepSeekMath samples 64 outputs per question, with a KL coefficient of "
                                         "0.04."),
             "Shao et al. 2024, DeepSeekMath (arXiv:2402.03300) s4.2"),
        Fact(QT_TRANSLATE_NOOP("engine", "The reward is often a verifiable rule: unit tests, matching a math answer "
                                         "(RLVR)."),
             QT_TRANSLATE_NOOP("engine", "Used by DeepSeekMath's successors (DeepSeek-R1) for reasoning; a reward "
                                         "model works too."),
             GRPO_SOURCE + "; DeepSeek-AI 2025, DeepSeek-R1 (arXiv:2501.12948) s2.2.2"),
    ),
}  # fmt: skip

FLOWS: dict[Stage, tuple[Flow, ...]] = {
    Stage.SFT: (
        Flow("data", "policy", QT_TRANSLATE_NOOP("engine", "prompt + answer")),
        Flow("policy", "loss", QT_TRANSLATE_NOOP("engine", "log-probs")),
        Flow("loss", "policy", QT_TRANSLATE_NOOP("engine", "gradients")),
    ),
    Stage.DPO: (
        Flow("data", "policy", QT_TRANSLATE_NOOP("engine", "chosen + rejected")),
        Flow("data", "reference", QT_TRANSLATE_NOOP("engine", "chosen + rejected")),
        Flow("reference", "loss", QT_TRANSLATE_NOOP("engine", "log-probs")),
        Flow("policy", "loss", QT_TRANSLATE_NOOP("engine", "log-probs")),
        Flow("loss", "policy", QT_TRANSLATE_NOOP("engine", "gradients")),
    ),
    Stage.PPO: (
        Flow("data", "policy", QT_TRANSLATE_NOOP("engine", "prompts")),
        Flow("policy", "reward", QT_TRANSLATE_NOOP("engine", "samples")),
        Flow("policy", "reference", QT_TRANSLATE_NOOP("engine", "samples")),
        Flow("policy", "critic", QT_TRANSLATE_NOOP("engine", "samples")),
        Flow("reward", "loss", QT_TRANSLATE_NOOP("engine", "rewards")),
        Flow("reference", "loss", QT_TRANSLATE_NOOP("engine", "log-probs (KL)")),
        Flow("critic", "loss", QT_TRANSLATE_NOOP("engine", "values")),
        Flow("loss", "policy", QT_TRANSLATE_NOOP("engine", "advantages")),
        Flow("loss", "critic", QT_TRANSLATE_NOOP("engine", "returns")),
    ),
    Stage.GRPO: (
        Flow("data", "policy", QT_TRANSLATE_NOOP("engine", "prompts")),
        Flow("policy", "reward", QT_TRANSLATE_NOOP("engine", "G samples")),
        Flow("policy", "reference", QT_TRANSLATE_NOOP("engine", "G samples")),
        Flow("reward", "loss", QT_TRANSLATE_NOOP("engine", "rewards")),
        Flow("reference", "loss", QT_TRANSLATE_NOOP("engine", "log-probs (KL)")),
        Flow("loss", "policy", QT_TRANSLATE_NOOP("engine", "advantages")),
    ),
}
