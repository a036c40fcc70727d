"""The importers' sentences are written once (issue 24, "near-copies"): no English template is defined in two
places, so a sentence and its translation have one home (engine/config_import/messages.py for the shared ones)."""

from __future__ import annotations

import ast
from collections import defaultdict
from pathlib import Path

import engine.config_import

PACKAGE = Path(engine.config_import.__file__).parent


def _templates() -> dict[str, list[str]]:
    """Each ``QT_TRANSLATE_NOOP("engine", "...")`` template of the package -> the ``module.NAME`` that define it."""
    found: dict[str, list[str]] = defaultdict(list)
    for path in sorted(PACKAGE.glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Assign) and isinstance(node.value, ast.Call) \
                    and getattr(node.value.func, "id", "") == "QT_TRANSLATE_NOOP":
                template = ast.literal_eval(node.value.args[1])
                found[template] += [f"{path.stem}.{t.id}" for t in node.targets if isinstance(t, ast.Name)]
    return found


def test_no_sentence_is_defined_twice() -> None:
    twice = {t[:60]: names for t, names in _templates().items() if len(names) > 1}
    assert twice == {}


def test_the_shared_sentences_live_in_the_messages_module() -> None:
    """The five sentences issue 24 found copied (not modelled x4, DoRA x3, packing x3, 8-bit x2, not training x2)."""
    homes = {names[0] for t, names in _templates().items() if len(names) == 1}
    assert {"messages.NOT_MODELLED", "messages.DORA", "messages.PACKING", "messages.EIGHT_BIT",
            "messages.NOT_TRAINING_RUN", "messages.NOT_TRAINING_CONFIG"} <= homes
