"""The Levers page's sentences (translated, context ``LeversPage``), filled with the engine's numbers.

Texts paraphrase the seed page (三個槓桿); every number comes from ``engine.levers`` / ``engine.lever_facts``.
"""

from __future__ import annotations

from PySide6.QtCore import QCoreApplication

from engine.lever_facts import COMMUNICATION_SOURCE, Communication, LoraShare
from engine.levers import Advice, LeverKind
from engine.specs import Method, Sharding, TrainingSetup
from engine.training.estimate import Estimate
from engine.units import Unit, format_bytes
from gui.text.choices import method_label, short_label
from gui.text.words import term_name

CardTexts = tuple[str, str, str, list[str]]  # title, subtitle, what it moves, position labels


def zero3_steps(n: int, s: TrainingSetup | None) -> list[str]:
    off = QCoreApplication.translate("LeversPage", "1 GPU")
    if s is not None and s.gpus > 1 and s.sharding is not Sharding.ZERO3:
        off = QCoreApplication.translate("LeversPage", "{n} GPUs, {sharding}").format(
            n=s.gpus, sharding=short_label(s.sharding))
    return [off, QCoreApplication.translate("LeversPage", "ZeRO-3 × {n}").format(n=n)]


def card_texts(kind: LeverKind, n: int = 8, s: TrainingSetup | None = None) -> CardTexts:
    """Title, subtitle, "moves" line and position labels of a lever's card."""
    if kind is LeverKind.LORA:
        return ("LoRA · QLoRA",
                QCoreApplication.translate("LeversPage", "Shrinks what is trained: the weights W₀ stay frozen and a "
                                           "low-rank update (α/r)·BA is learned, so gradients and optimizer states "
                                           "follow the adapters only. QLoRA also stores the frozen weights in "
                                           "4-bit NF4."),
                QCoreApplication.translate("LeversPage", "Moves: gradients, optimizer states (QLoRA: weights too)"),
                [method_label(m) for m in (Method.FULL, Method.LORA, Method.QLORA)])  # engine.levers' positions
    if kind is LeverKind.ACTIVATIONS:
        return (QCoreApplication.translate("LeversPage", "FlashAttention · checkpointing"),
                QCoreApplication.translate("LeversPage", "Shrinks activations: FlashAttention computes attention "
                                           "in tiles and never writes the s×s scores to memory, with the same "
                                           "result; checkpointing keeps each layer's input and recomputes the rest "
                                           "in backward."),
                QCoreApplication.translate("LeversPage", "Moves: activations"),
                [QCoreApplication.translate("LeversPage", "Eager"),
                 QCoreApplication.translate("LeversPage", "Flash / SDPA"),
                 QCoreApplication.translate("LeversPage", "Flash + checkpointing")])
    if kind is LeverKind.LONG_CONTEXT:
        return long_context_texts()
    return ("ZeRO-3 · FSDP",
            QCoreApplication.translate("LeversPage", "Splits the model states over N GPUs: each holds 1/N of the "
                                       "weights, gradients and optimizer states. Activations do not shrink."),
            QCoreApplication.translate("LeversPage", "Moves: weights, gradients, optimizer states (÷N)"),
            zero3_steps(n, s))


def long_context_texts() -> CardTexts:
    """The fourth card: the loss over the vocabulary and the saved activations (``engine.levers``)."""
    return (QCoreApplication.translate("LeversPage", "Long context: chunked loss · activation offload"),
            QCoreApplication.translate("LeversPage", "Shrinks what grows with the sequence and what LoRA does not "
                                       "touch: a chunked loss runs the output layer and the loss over a few hundred "
                                       "tokens at a time, so the fp32 logits are never whole; a fused linear "
                                       "cross-entropy does it in one kernel; activation offloading moves the saved "
                                       "activations to host RAM and brings them back in backward."),
            QCoreApplication.translate("LeversPage", "Moves: logits, activations (offload: to host RAM)"),
            [QCoreApplication.translate("LeversPage", "Standard"),
             QCoreApplication.translate("LeversPage", "Chunked"),
             QCoreApplication.translate("LeversPage", "Fused CE"),
             QCoreApplication.translate("LeversPage", "+ offload")])


def long_context_tips() -> list[str]:
    """The fourth card's positions in full (its buttons' tooltips)."""
    return [QCoreApplication.translate("LeversPage", "Standard loss: transformers' cross-entropy over the whole "
                                       "fp32 logits"),
            QCoreApplication.translate("LeversPage", "Chunked loss: TRL's loss_type='chunked_nll', 256-token "
                                       "checkpointed chunks"),
            QCoreApplication.translate("LeversPage", "Fused linear cross-entropy: Liger-Kernel "
                                       "(use_liger_kernel=True)"),
            QCoreApplication.translate("LeversPage", "Fused linear cross-entropy with the saved activations "
                                       "offloaded to host RAM")]


def long_context_note(recompute: float, offloaded: Estimate | None, unit: Unit) -> str:
    """The chunked loss's extra compute for this model; what the offload step moves to host RAM (its estimate; None
    where the setup cannot offload activations)."""
    if offloaded is None:
        return QCoreApplication.translate(
            "LeversPage", "The chunked loss runs the output layer again in backward: about {r:.0%} more compute for "
            "this model.").format(r=recompute)
    return QCoreApplication.translate(
        "LeversPage", "The chunked loss runs the output layer again in backward: about {r:.0%} more compute for "
        "this model. Offloading moves {moved} per GPU to host RAM (host RAM at its peak: {host} per node).").format(
        r=recompute, moved=format_bytes(offloaded.offloaded_bytes, unit), host=format_bytes(offloaded.host_bytes, unit))


def lead_text(biggest: str) -> str:
    """The badge of the card that leads: the page's rule says to start with it."""
    return QCoreApplication.translate("LeversPage", "Start here: {term} are the biggest term").format(term=biggest)


def lora_note(share: LoraShare) -> str:
    return QCoreApplication.translate(
        "LeversPage", "Rank {r}: {n} trainable parameters, {a:.2f}% of all {t} parameters, {b:.2f}% of the {ne} "
        "outside the embedding and output layers.").format(
        r=share.rank, n=f"{share.trainable:,}", a=100 * share.of_total, t=f"{share.total:,}",
        b=100 * share.of_non_embedding, ne=f"{share.non_embedding:,}")


def zero3_note(c: Communication, unit: Unit, lora: bool) -> str:
    why = QCoreApplication.translate("LeversPage", " With LoRA the frozen weights are still gathered, but only the "
                                     "adapters have gradients to send: the ratio grows.") if lora else ""
    return QCoreApplication.translate(
        "LeversPage", "Communication: {f:.2f}× plain data parallelism per step ({z} against {d}): the weights are "
        "gathered in forward and again in backward, three volumes instead of two ({source}).").format(
        f=c.factor, z=format_bytes(c.zero3, unit), d=format_bytes(c.data_parallel, unit),
        source=COMMUNICATION_SOURCE) + why


def rule_text(tip: Advice, biggest: str, after: str, lever_title: str, step_label: str) -> str:
    """The rule with its answer for this scenario (``lever_title`` / ``step_label``: empty when no lever)."""
    rule = "<b>" + QCoreApplication.translate("LeversPage", "Find the biggest term first, then pick the lever that "
                                              "moves it.") + "</b>"
    here = QCoreApplication.translate("LeversPage", "Here the biggest term is {term} ({bytes}).").format(
        term=term_name(tip.term.name), bytes=biggest)
    if tip.lever is None:
        return f"{rule} {here} " + QCoreApplication.translate("LeversPage", "None of these levers moves it.")
    return f"{rule} {here} " + QCoreApplication.translate(
        "LeversPage", "{lever}, set to “{step}”, moves it to {after}.").format(
        lever=lever_title, step=step_label, after=after)
