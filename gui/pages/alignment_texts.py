"""The Alignment page's sentences (translated, context ``AlignmentPage``): per stage its name, what it does, and the
subtitles of the diagram's data and loss nodes. They paraphrase the seed page (對齊階段); numbers come from the
engine, facts with their context and source from ``engine.alignment.FACTS``.
"""

from __future__ import annotations

from html import escape

from PySide6.QtCore import QCoreApplication

from engine.alignment import FACTS, RolloutShape, Stage
from engine.units import Unit, format_bytes
from gui.text.words import engine_text


def stage_name(stage: Stage) -> str:
    return {Stage.SFT: "SFT", Stage.DPO: "DPO", Stage.PPO: "PPO", Stage.GRPO: "GRPO"}[stage]


def stage_blurb(stage: Stage) -> str:
    """What the stage does, in one or two sentences."""
    return {
        Stage.SFT: QCoreApplication.translate(
            "AlignmentPage", "Supervised fine-tuning: prompt / answer pairs teach the model a format and a task. "
            "One model trains."),
        Stage.DPO: QCoreApplication.translate(
            "AlignmentPage", "Direct preference optimisation: the loss comes straight from (better, worse) answer "
            "pairs, and a frozen reference sits inside it."),
        Stage.PPO: QCoreApplication.translate(
            "AlignmentPage", "The classic RLHF recipe: the policy and a critic (value model) train, the reference "
            "and the reward model stay frozen, and the policy samples its own answers."),
        Stage.GRPO: QCoreApplication.translate(
            "AlignmentPage", "DeepSeekMath's and R1's choice: no critic. Each prompt gets a group of answers; their "
            "rewards, normalised within the group, are the advantages."),
    }[stage]


def node_labels(stage: Stage) -> dict[str, str]:
    """Subtitles of the data and loss boxes."""
    data = {
        Stage.SFT: QCoreApplication.translate("AlignmentPage", "prompt / answer pairs"),
        Stage.DPO: QCoreApplication.translate("AlignmentPage", "chosen / rejected pairs"),
        Stage.PPO: QCoreApplication.translate("AlignmentPage", "prompts"),
        Stage.GRPO: QCoreApplication.translate("AlignmentPage", "prompts"),
    }[stage]
    loss = {
        Stage.SFT: QCoreApplication.translate("AlignmentPage", "cross-entropy"),
        Stage.DPO: QCoreApplication.translate("AlignmentPage", "−log σ(β · log-ratio margin)"),
        Stage.PPO: QCoreApplication.translate("AlignmentPage", "GAE advantages, clipped ratio"),
        Stage.GRPO: QCoreApplication.translate("AlignmentPage", "(reward − group mean) / group std"),
    }[stage]
    return {"data": data, "loss": loss}


def facts_html(stage: Stage) -> str:
    """The stage's facts, each with its context and source."""
    items = "".join(
        f"<li>{escape(engine_text(f.text))} <i>{escape(engine_text(f.context))}</i>"
        f"<br><small>{escape(f.source)}</small></li>"
        for f in FACTS[stage]
    )
    return f"<ul style='margin-left:-20px'>{items}</ul>"


def intro() -> str:
    return QCoreApplication.translate(
        "AlignmentPage", "After SFT, preference learning differs not only in its algorithm but in how many models "
        "sit on the GPU at once, a practical reason DPO and GRPO caught on.")


def rollout_text(rs: RolloutShape | None, elsewhere: int, unit: Unit) -> str:
    """The engine's shape of a PPO / GRPO step (``engine.alignment.rollout``), or what is counted without one;
    ``elsewhere``: a vLLM server's bytes on GPUs of its own."""
    if rs is None:
        return QCoreApplication.translate("AlignmentPage", "Completions not sampled: the stage counts the setup's "
                                          "batch and sequence length.")
    text = QCoreApplication.translate(
        "AlignmentPage", "This step trains on {train} sequences of {p} + {c} tokens and samples {gen} completions "
        "at once.").format(train=f"{rs.train_sequences:,}", p=f"{rs.prompt:,}", c=f"{rs.completion:,}",
                           gen=f"{rs.generate_sequences:,}")
    if rs.logits_to_keep is not None:
        text += " " + QCoreApplication.translate(
            "AlignmentPage", "Logits for the last {n} positions only (TRL's logits_to_keep).").format(
            n=f"{rs.logits_to_keep:,}")
    if elsewhere:
        text += " " + QCoreApplication.translate(
            "AlignmentPage", "The vLLM server needs {bytes} on GPUs of its own.").format(
            bytes=format_bytes(elsewhere, unit))
    return text
