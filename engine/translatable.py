"""The engine's translation marker: ``QT_TRANSLATE_NOOP("engine", text)`` marks a sentence the GUI shows.

The engine never imports Qt, so the marker is a plain function; ``pyside6-lupdate`` finds its calls by name when
the module that calls it is among its sources (``assets/translations/README.md`` lists them), and the GUI looks
the texts up at run time in the context ``engine`` (``gui.text.words.engine_text``). It is the one definition of the
marker: ``gui.text.tr`` re-exports it for the GUI's own texts.
"""

from __future__ import annotations

CONTEXT = "engine"  # the context of every marked engine text (lupdate needs it literally in each call)


def QT_TRANSLATE_NOOP(context: str, text: str) -> str:  # the name lupdate looks for
    """Mark ``text`` for translation in ``context``; returns it unchanged."""
    del context
    return text
