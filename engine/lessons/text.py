"""Words a lesson shows, in both of the app's languages: English and Traditional Chinese (Taiwan).

A lesson carries its own translations (unlike the GUI's texts, which go through Qt's ``.ts`` files), so that a
new lesson is one data file and no code. :class:`Text` refuses a missing or empty language and a "translation"
with no Han character in it (an English sentence pasted twice), so an untranslated lesson fails to load.
"""

from __future__ import annotations

import re
from enum import StrEnum
from typing import Annotated

from pydantic import AfterValidator, BaseModel, ConfigDict, Field

_HAN = re.compile(r"[\u3400-\u9fff]")
_CJK_THEN_LATIN = re.compile(r"(?<=[\u3400-\u9fff])(?=[A-Za-z0-9(])")
_LATIN_THEN_CJK = re.compile(r"(?<=[A-Za-z0-9%)])(?=[\u3400-\u9fff])")


class Lang(StrEnum):
    EN = "en"
    ZH_TW = "zh_TW"


def _has_han(text: str) -> str:
    if not _HAN.search(text):
        raise ValueError("zh_TW holds no Chinese: translate it")
    return text


class Strict(BaseModel):
    """The base of every lesson model: frozen, and an unknown field is an error (a typo never goes unseen)."""

    model_config = ConfigDict(frozen=True, extra="forbid")


class Text(Strict):
    """One text in English and in Traditional Chinese as written in Taiwan (the seed guide's words)."""

    en: Annotated[str, Field(min_length=1)]
    zh_TW: Annotated[str, Field(min_length=1), AfterValidator(_has_han)]  # noqa: N815 (the language code)

    def get(self, lang: Lang | str) -> str:
        """The text in ``lang`` (``en`` or ``zh_TW``)."""
        return self.zh_TW if Lang(lang) is Lang.ZH_TW else self.en

    def as_dict(self) -> dict[str, str]:
        return {"en": self.en, "zh_TW": self.zh_TW}


def spaced(zh: str) -> str:
    """Chinese with a space between Han characters and Latin words or digits, as Taiwanese technical writing
    does ("微調 Llama 2 7B 時"), so that labels and numbers can be put together from parts."""
    return _LATIN_THEN_CJK.sub(" ", _CJK_THEN_LATIN.sub(" ", zh))


def text(en: str, zh: str) -> Text:
    """A :class:`Text` built by code (labels, the why-sentences), the Chinese spaced by :func:`spaced`; not
    validated (a label such as "GPU" has no Han character, and this runs on every slider move)."""
    return Text.model_construct(en=en, zh_TW=spaced(zh))
