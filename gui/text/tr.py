"""Translation markers with real types (PySide6's stubs type ``QT_TRANSLATE_NOOP`` as returning ``object``).

``QT_TRANSLATE_NOOP(context, text)`` (the engine's one definition, ``engine.translatable``) marks a source text
for ``pyside6-lupdate`` (which finds the call by its name) and returns it unchanged; ``translate(context,
text)`` looks it up at run time.
"""

from __future__ import annotations

from PySide6.QtCore import QCoreApplication

from engine.translatable import QT_TRANSLATE_NOOP

__all__ = ["QT_TRANSLATE_NOOP", "translate"]


def translate(context: str, text: str) -> str:
    """``text`` in the user's language (the source text when no translation is loaded)."""
    return QCoreApplication.translate(context, text)
