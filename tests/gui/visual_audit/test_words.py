"""gui.visual_audit.words: which English a zh_TW screen may show (identifiers, names, glosses, the allow-list)."""

from __future__ import annotations

import pytest

from gui.visual_audit.words import ALLOWED, english_words, name_words


@pytest.mark.parametrize("text", [
    "8-bit 優化器", "LoRA rank 16", "4,096 個 token", "每個 head", "bf16-mixed", "ZeRO-3 × 8", "config.json",
    "對數機率（log-probs）", "Rafailov et al. 2023, Direct Preference Optimization", "VRAM Lab", "−log σ(x)",
    "A100 80 GB", "Hugging Face", "FlashAttention · 梯度檢查點",
])
def test_identifiers_names_glosses_and_allowed_words_pass(text: str) -> None:
    assert english_words(text) == []


@pytest.mark.parametrize(("text", "words"), [
    ("4096 tokens", ["tokens"]),  # issue 17: the spin box's suffix
    ("動到：activations", ["activations"]),  # issue 17: term names
    ("32 個 query heads", ["heads"]),
    ("你的設定：full，adamw，sdpa 注意力，梯度檢查點 none", ["full", "adamw", "sdpa", "none"]),  # the setup line
    ("policy 要訓練", ["policy"]),  # diagram labels
    ("FlashAttention · checkpointing", ["checkpointing"]),  # a card title
    ("log-probs", ["probs"]),  # a gloss needs a Chinese word before it
])
def test_english_prose_is_found(text: str, words: list[str]) -> None:
    assert english_words(text) == words


def test_the_users_words_and_catalog_names_pass_when_given() -> None:
    assert english_words("The cat sat on the mat") == ["cat", "sat", "on", "the", "mat"]
    assert english_words("The cat sat on the mat", name_words(["The cat sat on the mat"])) == []


def test_every_allowed_word_says_why() -> None:
    assert all(word == word.lower() and len(reason) > 20 for word, reason in ALLOWED.items())
    assert "tokens" not in ALLOWED  # plurals are English prose
    assert "heads" not in ALLOWED
