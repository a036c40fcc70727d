"""The command line: ``python -m engine <command> ... [--json]``, a stable contract for scripts.

Each command lives in ``engine.commands.<name>`` and exposes ``register(subparsers)``; its handler returns a
JSON-able dict (printed with ``--json``) and a human-readable text. Bad arguments or inputs print one line on
stderr, ``error: ...`` (one prefix, whether argparse or the engine refused it), and exit 2, never a traceback; a
value the engine's bounds refuse is named by the flag that gave it (``--seq-len``, not ``seq_len``:
``engine.commands.flags``).
"""

from __future__ import annotations

import argparse
import importlib
import json
import sys
from collections.abc import Callable, Sequence
from typing import Any

from pydantic import ValidationError

from engine import __version__
from engine.commands.flags import flag_error

#: Command modules, in the order ``--help`` lists them.
COMMANDS = ("estimate", "plan", "attention", "levers", "alignment", "kv_cache", "serve", "models", "gpus",
            "lessons", "snapshot", "timeline")

Handler = Callable[[argparse.Namespace], tuple[dict[str, Any], str]]


class UsageError(ValueError):
    """A bad argument or input: reported on one line, exit status 2."""


#: what starts every error line, argparse's and the engine's alike
PREFIX = "error: "


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> Any:  # one line, exit 2 (argparse prints usage too; keep it short)
        sys.stderr.write(f"{PREFIX}{message}\n")
        raise SystemExit(2)


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="python -m engine", description="VRAM Lab's memory engine (JSON with --json).")
    parser.add_argument("--version", action="version", version=f"vramlab-engine {__version__}")
    sub = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)
    for name in COMMANDS:
        module = importlib.import_module(f"engine.commands.{name}")
        module.register(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    handler: Handler = args.handler
    try:
        data, text = handler(args)
    except ValidationError as err:
        sys.stderr.write(f"{PREFIX}{flag_error(err, _command_parser(parser, args.command))}\n")
        return 2
    except (UsageError, LookupError, ValueError, OSError) as err:
        sys.stderr.write(f"{PREFIX}{err}\n")
        return 2
    sys.stdout.write(json.dumps(data, indent=2) + "\n" if args.json else text + "\n")
    return int(getattr(args, "exit_status", 0))  # a check that is not met (``lessons --check``) exits 1


def _command_parser(parser: argparse.ArgumentParser, command: str) -> argparse.ArgumentParser:
    """The sub-command's own parser (whose flags name the fields it sets)."""
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            found = action.choices.get(command)
            if isinstance(found, argparse.ArgumentParser):
                return found
    return parser
