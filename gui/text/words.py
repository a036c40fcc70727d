"""The engine's words as the user reads them: memory terms, alignment roles and modes, translated.

The engine names things in snake case (``optimizer_states``, ``shared-base``); pages show these names through
one table each, marked for ``pyside6-lupdate`` in context ``words``, so one term has one name everywhere. The
memory terms' labels are defined with the terms themselves (``engine.terms.TERMS``, also in context ``words``).
Text that the engine writes in full (facts, formulas, sources) is translated at run time in context ``engine``.
"""

from __future__ import annotations

from engine.terms import TERMS
from gui.text.tr import QT_TRANSLATE_NOOP, translate

_ROLES = {
    "policy": QT_TRANSLATE_NOOP("words", "policy"),
    "reference": QT_TRANSLATE_NOOP("words", "reference"),
    "reward": QT_TRANSLATE_NOOP("words", "reward"),
    "critic": QT_TRANSLATE_NOOP("words", "critic"),
    "rollout": QT_TRANSLATE_NOOP("words", "rollout engine"),
    "data": QT_TRANSLATE_NOOP("words", "data"),
    "loss": QT_TRANSLATE_NOOP("words", "loss"),
}

_MODES = {
    "trained": QT_TRANSLATE_NOOP("words", "trained"),
    "frozen": QT_TRANSLATE_NOOP("words", "frozen"),
    "rule": QT_TRANSLATE_NOOP("words", "rule"),
    "own": QT_TRANSLATE_NOOP("words", "own copy"),
    "shared-base": QT_TRANSLATE_NOOP("words", "base with adapters off: no copy"),
    "precomputed": QT_TRANSLATE_NOOP("words", "log-probs precomputed"),
    "not-loaded": QT_TRANSLATE_NOOP("words", "not loaded (KL coefficient 0)"),
    "program": QT_TRANSLATE_NOOP("words", "a rule: a program, not a model"),
    "policy": QT_TRANSLATE_NOOP("words", "the policy (model.generate)"),
    "server": QT_TRANSLATE_NOOP("words", "vLLM server, own GPUs"),
    "colocated": QT_TRANSLATE_NOOP("words", "vLLM colocated"),
}


# the phases of a training step (``engine.training.timeline``, ``engine.snapshot.frames.Phase``)
_PHASES = {
    "forward": QT_TRANSLATE_NOOP("words", "forward"),
    "backward": QT_TRANSLATE_NOOP("words", "backward"),
    "optimizer_step": QT_TRANSLATE_NOOP("words", "optimizer step"),
    "setup": QT_TRANSLATE_NOOP("words", "setup"),
    "other": QT_TRANSLATE_NOOP("words", "outside the step"),
    "unknown": QT_TRANSLATE_NOOP("words", "unknown"),
}

# what a measured snapshot has beside the memory terms (``engine.snapshot.attribution.UNATTRIBUTED``)
_NOT_TERMS = {"unattributed": QT_TRANSLATE_NOOP("words", "unattributed")}


def _look_up(table: dict[str, str], key: str) -> str:
    return translate("words", table[key]) if key in table else key.replace("_", " ")


def term_name(name: str) -> str:
    """``optimizer_states`` -> "optimizer states" (translated): the label ``engine.terms`` defines for it."""
    defined = TERMS.get(name)
    return translate("words", defined.label) if defined is not None else _look_up(_NOT_TERMS, name)


def term_title(name: str) -> str:
    """The term's name starting with a capital, for a label or a legend entry ("Optimizer states")."""
    text = term_name(name)
    return text[:1].upper() + text[1:]


def role_name(name: str) -> str:
    """``rollout`` -> "rollout engine" (translated); also the diagram's ``data`` and ``loss`` nodes."""
    return _look_up(_ROLES, name)


def mode_name(name: str) -> str:
    """A role's mode (trained, frozen, rule) or holding (own, shared-base, ...), translated."""
    return _look_up(_MODES, name)


def held_as(role: str, mode: str, holding: str) -> str:
    """How a role is held, as a table cell or a diagram box says it: its mode (trained, frozen) when it has its
    own copy, else its holding (a colocated rollout engine: a vLLM with its share of the GPU)."""
    if holding != "own":
        return mode_name(holding)
    return mode_name("colocated" if role == "rollout" else mode)


def engine_text(text: str) -> str:
    """A sentence the engine wrote (a fact, a flow label), translated when a translation exists."""
    return translate("engine", text)


def phase_name(name: str) -> str:
    """A step's phase (``optimizer_step`` -> "optimizer step"), translated."""
    return _look_up(_PHASES, name)
