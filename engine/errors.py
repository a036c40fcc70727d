"""How a rejected value is told: one line naming the field at fault, the same on the command line and in the GUI.

Pydantic reports every problem of a validation with its location (``("setup", "lora", "rank")``); a user needs
only the first, as ``setup.lora.rank: Input should be greater than or equal to 1``. Every caller (the CLI, the
config importer, the GUI's scenario and page states, saved scenario files) formats it here.
"""

from __future__ import annotations

from pydantic import ValidationError


def first_error(err: ValidationError, prefix: str = "", fallback: str = "input") -> tuple[str, str]:
    """The first problem as ``(where, message)``: its dotted location under ``prefix``, or ``fallback`` when the
    rule that failed belongs to no single field (a model-level check at the top)."""
    first = err.errors()[0]
    where = ".".join(p for p in (prefix, *(str(x) for x in first["loc"])) if p)
    return where or fallback, first["msg"].removeprefix("Value error, ")  # a rule's own words, as it wrote them


def one_line(err: ValidationError, prefix: str = "", fallback: str = "input") -> str:
    """``where: message`` for the first problem (see ``first_error``)."""
    where, message = first_error(err, prefix, fallback)
    return f"{where}: {message}"
