"""Which flags the user typed: argparse fills defaults in, so a command that lets typed flags override a file
(``estimate --from-config``) registers actions that also record their destination in ``args.explicit_flags``."""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from typing import Any

EXPLICIT = "explicit_flags"


def _mark(namespace: argparse.Namespace, dest: str) -> None:
    setattr(namespace, EXPLICIT, frozenset(getattr(namespace, EXPLICIT, frozenset())) | {dest})


class _Store(argparse._StoreAction):
    def __call__(self, parser: argparse.ArgumentParser, namespace: argparse.Namespace,
                 values: str | Sequence[Any] | None, option_string: str | None = None) -> None:
        super().__call__(parser, namespace, values, option_string)
        _mark(namespace, self.dest)


class _StoreTrue(argparse._StoreTrueAction):
    def __call__(self, parser: argparse.ArgumentParser, namespace: argparse.Namespace,
                 values: str | Sequence[Any] | None, option_string: str | None = None) -> None:
        super().__call__(parser, namespace, values, option_string)
        _mark(namespace, self.dest)


def track_explicit(parser: argparse.ArgumentParser) -> None:
    """Record, for every ``store`` and ``store_true`` argument added to ``parser`` from now on, whether it was typed."""
    parser.register("action", None, _Store)
    parser.register("action", "store", _Store)
    parser.register("action", "store_true", _StoreTrue)
    parser.set_defaults(**{EXPLICIT: frozenset()})


def explicit(args: argparse.Namespace) -> frozenset[str]:
    """The destinations of the flags typed on the command line."""
    return frozenset(getattr(args, EXPLICIT, frozenset()))
