"""Untranslated English in the Traditional Chinese interface: which visible words are allowed, and why.

A word is a run of Latin letters and digits (joined by ``. _ - / '``). It is allowed when it is not English prose
but a name or a symbol that Taiwanese ML engineers write as it is (``assets/translations/README.md``):

- an **identifier**: it has a digit (``bf16``, ``H200``, ``ZeRO-3``, ``8-bit``), a capital after its first letter
  (``LoRA``, ``QLoRA``, ``PyTorch``, ``FlashAttention``, ``vLLM``, ``AdamW``), is all capitals (``GPU``, ``KV``,
  ``DPO``, ``GB``), or carries code punctuation (``config.json``, ``chunked_nll``, ``model.generate``);
- a **proper name**, capitalised (``Llama``, ``Hugging Face``, ``Rafailov``, a paper's title, ``VRAM Lab``): names
  of people, products and papers stay as they are;
- a **single letter** (a formula's ``s``, ``b``, ``h``);
- a word of a **model or GPU name** in the catalog, or of text the user typed (an editor's content, such as the
  attention page's sentence, and the tokens shown from it);
- a **gloss**: Latin text in parentheses right after a Chinese word (``對數機率（log-probs）``) names the original
  term for the reader who knows it; the Chinese comes first;
- one of ``ALLOWED`` below, each with its reason.

Everything else (``activations``, ``tokens``, ``heads``, ``full``, ``none``, ``policy``...) is a finding.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from gui.visual_audit.boxes import Finding, Kind, TextBox

#: lower-case words allowed in zh_TW, each kept as written for a stated reason
ALLOWED: dict[str, str] = {
    "token": "a token is written 'token' in Taiwanese ML writing (the translation guide's usage; 詞元 is mainland "
             "usage); never the plural 'tokens' (Chinese counts with 個)",
    "head": "an attention head, as Taiwanese ML engineers write it ('每個 head'), singular",
    "query": "attention's query, key and value: the names of the three projections, kept as written",
    "key": "attention's key (see 'query')",
    "value": "attention's value (see 'query')",
    "adapter": "a LoRA adapter: PEFT's term, kept as written",
    "rank": "LoRA's rank r (the hyper-parameter's name in PEFT's config), and a process's rank",
    "batch": "the batch size's usual name in Taiwanese ML writing ('batch 1')",
    "prompt": "a prompt, as written in Taiwanese ML writing (singular)",
    "cache": "the KV cache ('KV cache', the translation guide's usage)",
    "softmax": "the function's name (attention's softmax step)",
    "log": "the logarithm in a formula (−log σ(...))",
    "et": "'et al.' in a citation",
    "al": "'et al.' in a citation",
}

_WORD = re.compile(r"[A-Za-z0-9]+(?:[._\-/'][A-Za-z0-9]+)*")
_GLOSS = re.compile(r"(?<=[\u3400-\u9fff])\s*[（(][^（）()\u3400-\u9fff]*[）)]")


def _is_identifier(word: str) -> bool:
    return (len(word) == 1 or any(ch.isdigit() for ch in word) or word.isupper()
            or any(ch.isupper() for ch in word[1:]) or any(ch in "._/" for ch in word))


def _is_name(word: str) -> bool:
    return word[:1].isupper() and word[1:].islower()


def english_words(text: str, allowed: Iterable[str] = ()) -> list[str]:
    """The words of ``text`` that are English prose, not identifiers, names, glosses nor allowed words."""
    extra = {w.lower() for w in allowed}
    found = []
    for word in _WORD.findall(_GLOSS.sub("", text)):
        if not any(ch.isalpha() for ch in word) or _is_identifier(word):
            continue
        for part in word.split("-"):
            lower = part.lower()
            if part and not _is_identifier(part) and not _is_name(part) and lower not in ALLOWED \
                    and lower not in extra:
                found.append(part)
    return found


def name_words(names: Iterable[str]) -> set[str]:
    """Every word of the given names (the catalog's models and GPUs, the user's own texts)."""
    return {w.lower() for name in names for w in _WORD.findall(name)}


def untranslated(boxes: list[TextBox], names: Iterable[str] = ()) -> list[Finding]:
    """Visible texts with English prose in them; ``names`` are allowed too (catalog names). The user's own text
    (an editor's) is allowed everywhere it shows, and is itself never a finding."""
    allowed = name_words(names) | name_words(b.text for b in boxes if b.user_data)
    found: list[Finding] = []
    for box in boxes:
        words = [] if box.user_data else english_words(box.text, allowed)
        if words:
            found.append(Finding(Kind.UNTRANSLATED, box.owner, "English: " + ", ".join(dict.fromkeys(words))))
    return found
