"""Display names of the engine's memory terms, translated; one place, so every page says the same word."""

from __future__ import annotations

from gui.tr import QT_TRANSLATE_NOOP, translate

_NAMES = {
    "weights": QT_TRANSLATE_NOOP("terms", "Weights"),
    "gradients": QT_TRANSLATE_NOOP("terms", "Gradients"),
    "optimizer_states": QT_TRANSLATE_NOOP("terms", "Optimizer states"),
    "activations": QT_TRANSLATE_NOOP("terms", "Activations"),
    "logits": QT_TRANSLATE_NOOP("terms", "Logits and loss"),
    "sharding_buffers": QT_TRANSLATE_NOOP("terms", "Sharding buffers"),
    "temporaries": QT_TRANSLATE_NOOP("terms", "Temporaries"),
    "kv_cache": QT_TRANSLATE_NOOP("terms", "KV cache"),
    "cuda_context": QT_TRANSLATE_NOOP("terms", "CUDA context"),
    "allocator_reserve": QT_TRANSLATE_NOOP("terms", "Allocator reserve"),
}


def term_name(name: str) -> str:
    """The translated display name of an engine term (the raw name if unknown)."""
    return translate("terms", _NAMES[name]) if name in _NAMES else name
