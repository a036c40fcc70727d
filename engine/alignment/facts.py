"""What each stage is for, stated with its context and source, and what flows between its roles in one step.

The facts are the seed page's, each with the context that makes it true; the flows are the arrows of a stage
diagram, in the order one step of the loop sends them (a GUI animates them in this order).
"""

from __future__ import annotations

from dataclasses import dataclass

from engine.alignment.stages import Stage

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
        Fact("Prompt / answer pairs teach the model a format and a task; one model trains.",
             "Supervised fine-tuning, the step before preference learning.", PPO_SOURCE),
    ),
    Stage.DPO: (
        Fact("No reward model and no sampling: the loss is computed directly on (better, worse) answer pairs.",
             "The reward is implicit in the policy / reference log-probability ratio.", DPO_SOURCE + " s4"),
        Fact("The frozen reference is part of the loss.",
             "Without it nothing holds the policy near the SFT model it starts from.", DPO_SOURCE + " s4"),
        Fact("A small learning rate, about 5e-7, for 1 to 2 epochs.",
             "Zephyr-7B-beta's DPO recipe uses 5e-7 for one epoch; the DPO paper's own default is 1e-6 with "
             "RMSprop.",
             "alignment-handbook recipes/zephyr-7b-beta/dpo/config_full.yaml; Tunstall et al. 2023 (Zephyr, "
             "arXiv:2310.16944); " + DPO_SOURCE + " appendix B"),
    ),
    Stage.PPO: (
        Fact("Four models: policy and critic trained, reference and reward model frozen.",
             "The classic RLHF recipe; the most flexible, and the hungriest and hardest to tune.", PPO_SOURCE),
        Fact("The critic is as large as the model it judges.",
             "InstructGPT initialises its value function from its 6B reward model.", PPO_SOURCE),
    ),
    Stage.GRPO: (
        Fact("Removes the critic, not the reward.",
             "The baseline is the group's mean reward instead of a learned value.", GRPO_SOURCE),
        Fact("Samples a group of answers per prompt and normalises each reward by the group's mean and standard "
             "deviation: that is the advantage.",
             "DeepSeekMath samples 64 outputs per question, with a KL coefficient of 0.04.",
             "Shao et al. 2024, DeepSeekMath (arXiv:2402.03300) s4.2"),
        Fact("The reward is often a verifiable rule: unit tests, matching a math answer (RLVR).",
             "Used by DeepSeekMath's successors (DeepSeek-R1) for reasoning; a reward model works too.",
             GRPO_SOURCE + "; DeepSeek-AI 2025, DeepSeek-R1 (arXiv:2501.12948) s2.2.2"),
    ),
}

FLOWS: dict[Stage, tuple[Flow, ...]] = {
    Stage.SFT: (
        Flow("data", "policy", "prompt + answer"),
        Flow("policy", "loss", "log-probs"),
        Flow("loss", "policy", "gradients"),
    ),
    Stage.DPO: (
        Flow("data", "policy", "chosen + rejected"),
        Flow("data", "reference", "chosen + rejected"),
        Flow("reference", "loss", "log-probs"),
        Flow("policy", "loss", "log-probs"),
        Flow("loss", "policy", "gradients"),
    ),
    Stage.PPO: (
        Flow("data", "policy", "prompts"),
        Flow("policy", "reward", "samples"),
        Flow("policy", "reference", "samples"),
        Flow("policy", "critic", "samples"),
        Flow("reward", "loss", "rewards"),
        Flow("reference", "loss", "log-probs (KL)"),
        Flow("critic", "loss", "values"),
        Flow("loss", "policy", "advantages"),
        Flow("loss", "critic", "returns"),
    ),
    Stage.GRPO: (
        Flow("data", "policy", "prompts"),
        Flow("policy", "reward", "G samples"),
        Flow("policy", "reference", "G samples"),
        Flow("reward", "loss", "rewards"),
        Flow("reference", "loss", "log-probs (KL)"),
        Flow("loss", "policy", "advantages"),
    ),
}
