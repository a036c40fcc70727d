"""Translation markers with real types (PySide6's stubs type ``QT_TRANSLATE_NOOP`` as returning ``object``).

``QT_TRANSLATE_NOOP(context, text)`` marks a source text for ``pyside6-lupdate`` (which finds the call by its
name) and returns it unchanged; ``translate(context, text)`` looks it up at run time.
"""

from __future__ import annotations

from PySide6.QtCore import QCoreApplication


def QT_TRANSLATE_NOOP(context: str, text: str) -> str:
    """Mark ``text`` for translation in ``context``; returns it untranslated."""
    del context
    return text


def translate(context: str, text: str) -> str:
    """``text`` in the user's language (the source text when no translation is loaded)."""
    return QCoreApplication.translate(context, text)
