"""What a memory term still lacks before the app can show it: a label in each language, a colour in each palette,
a formula and a source. ``tests/test_terms.py`` asks this of every term, and of a throwaway one.

A term is complete when the engine defines it (``engine.terms.TERMS``: its English label), the shipped
translation holds its label in every language the app offers (``assets/translations/vramlab_<lang>.qm``, context
``words``), ``gui.look.palette`` gives it a colour in the light, dark and presentation sets, and the engine result that
carries it has a formula and a source.
"""

from __future__ import annotations

from functools import cache

from PySide6.QtCore import QTranslator

from engine.results import Term
from engine.terms import TERMS
from gui.look.palette import DARK, HIGH_CONTRAST, LIGHT
from gui.resources import find_asset
from gui.text.i18n import LANGUAGES

_PALETTES = {"light": LIGHT, "dark": DARK, "presentation": HIGH_CONTRAST}


@cache
def _translator(language: str) -> QTranslator | None:
    qm = find_asset(f"translations/vramlab_{language}.qm")
    translator = QTranslator()
    return translator if qm is not None and translator.load(str(qm)) else None


def _translated(language: str, text: str) -> bool:
    translator = _translator(language)
    return translator is not None and bool(translator.translate("words", text))


def missing(name: str, result: Term | None = None) -> list[str]:
    """What term ``name`` lacks, in words (empty when complete); ``result`` is a term the engine computed."""
    defined = TERMS.get(name)
    if defined is None:
        return ["a definition in engine.terms.TERMS (and so an English label)"]
    gaps = [f"a {lang} label" for lang in LANGUAGES if lang != "en" and not _translated(lang, defined.label)]
    gaps += [f"a colour in the {which} palette" for which, p in _PALETTES.items() if name not in p.terms]
    if result is not None:
        gaps += [f"a {what}" for what, text in (("formula", result.formula), ("source", result.source))
                 if not text.strip()]
    return gaps
