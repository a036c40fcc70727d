"""What an import tells its reader: the sentences it says, what it read, ignored and assumed, and its refusals.

Every sentence is a :class:`Message`: a constant English template (marked with ``QT_TRANSLATE_NOOP`` where it is
written, so the GUI can translate it in the context ``engine``) plus the values it names. ``str(message)`` is the
English sentence the command line prints; a GUI translates ``message.template`` and formats it with
``message.args`` itself.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from engine.translatable import QT_TRANSLATE_NOOP

#: longest value quoted in a message (a longer one is cut with an ellipsis)
MAX_SHOWN = 80


class Format(StrEnum):
    """The tools whose files are recognised (the ``imported.format`` contract of issue 16)."""

    AXOLOTL = "axolotl"
    LLAMA_FACTORY = "llama-factory"
    TORCHTUNE = "torchtune"
    TRL = "trl"
    DEEPSPEED = "deepspeed"
    ACCELERATE = "accelerate"
    SCRIPT_ARGS = "script-args"  # no tool's format: a training script's own arguments (issue 27)
    TORCHTITAN = "torchtitan"


def show(value: Any) -> str:
    """A value as one short line of a message (lists joined by commas, never a newline)."""
    if isinstance(value, bool):
        text = "true" if value else "false"
    elif value is None:
        text = "null"
    elif isinstance(value, list | tuple):
        text = ", ".join(show(v) for v in value)
    else:
        text = str(value)
    text = " ".join(text.split())
    return text if len(text) <= MAX_SHOWN else text[: MAX_SHOWN - 1] + "…"


@dataclass(frozen=True, slots=True)
class Message:
    """A translatable sentence: ``template.format(**args)``; the values are already short strings."""

    template: str
    args: tuple[tuple[str, str], ...] = ()

    @classmethod
    def of(cls, template: str, **args: Any) -> Message:
        return cls(template, tuple((k, show(v)) for k, v in args.items()))

    def __str__(self) -> str:
        return self.template.format(**dict(self.args))


class ConfigRefusedError(ValueError):
    """A file or a setting the import cannot use; ``str()`` is one line: the file, the key, why, and a hint.

    ``file``, ``key``, ``message`` and ``hint`` stay available for a GUI that translates the sentences.
    """

    def __init__(self, file: str, message: Message, key: str = "", hint: Message | None = None) -> None:
        self.file = file
        self.key = key
        self.message = message
        self.hint = hint
        where = f"{file}: {key}: " if key else f"{file}: "
        super().__init__(where + str(message) + (f"; {hint}" if hint is not None else ""))


@dataclass(frozen=True, slots=True)
class Ignored:
    """A key of a file that the estimate does not use as written, and why."""

    key: str
    why: Message

    def as_dict(self) -> dict[str, str]:
        return {"key": self.key, "why": str(self.why)}


@dataclass(frozen=True)
class ImportReport:
    """The ``imported`` object of the command line's JSON.

    ``read``: each key used as written, or consulted and taken into account (``auto``, a switch that is off), with
    its value in the file (keys of files after the first are prefixed with ``<file name>:``). ``ignored``: keys not
    used as written, each with the reason. Every key a file states is in one of them. ``assumed``: every setup field
    whose value the files do not state exactly (left open, ``auto``, a tool's documented default, or the nearest
    value VRAM Lab can cost), with the value used; and, for a file that is no tool's format (``script-args``),
    ``format``: a :class:`Message` saying whose arguments it was read as, and which keys were taken to mean what.
    """

    format: Format
    files: tuple[str, ...]
    read: dict[str, Any] = field(default_factory=dict)
    ignored: tuple[Ignored, ...] = ()
    assumed: dict[str, Any] = field(default_factory=dict)

    def as_dict(self) -> dict[str, Any]:
        return {
            "format": self.format.value,
            "files": list(self.files),
            "read": dict(self.read),
            "ignored": [i.as_dict() for i in self.ignored],
            "assumed": {k: str(v) if isinstance(v, Message) else v for k, v in self.assumed.items()},
        }


# -- sentences shared by every tool's mapping ----------------------------------------------------------------
NOT_USED = QT_TRANSLATE_NOOP("engine", "not a setting the memory estimate uses")
OVERRIDDEN = QT_TRANSLATE_NOOP("engine", "set explicitly, which overrides the file")
ALREADY_SET = QT_TRANSLATE_NOOP("engine", "{file} already sets {field} ({value}), and the first file wins")
CHOOSE = QT_TRANSLATE_NOOP("engine", "choose the {field} explicitly ({flag}) to estimate it anyway")
