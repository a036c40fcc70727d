"""Display names of the engine's choices that several views show, one translated label per value.

A method is "Full", "LoRA" or "QLoRA" on the memory page's buttons, in its comparison chart, on the levers
page's LoRA card and in the alignment page's picker: the words are defined here once (context ``choices``).
"""

from __future__ import annotations

from engine.specs import Method
from gui.tr import QT_TRANSLATE_NOOP, translate

CONTEXT = "choices"

METHODS: dict[Method, str] = {
    Method.FULL: QT_TRANSLATE_NOOP("choices", "Full"),
    Method.LORA: QT_TRANSLATE_NOOP("choices", "LoRA"),
    Method.QLORA: QT_TRANSLATE_NOOP("choices", "QLoRA"),
}


def method_label(method: Method) -> str:
    """A training method's name in the user's language."""
    return translate(CONTEXT, METHODS[method])


def method_choices() -> list[tuple[str, Method]]:
    """``(label, method)`` for every method, in the engine's order (a picker's choices)."""
    return [(method_label(m), m) for m in Method]
