"""The suite collects the same test ids every time: pytest-xdist stops a run whose workers collected different ids.

Each xdist worker is a fresh interpreter that collects the whole suite itself, in its own second, with its own
string-hash seed and its own addresses; "Different tests were collected between gw0 and gw1" ends the run before
any test runs. A test id built from the clock (``gzip.compress`` stamps the time into its header), from randomness,
from a set's order (it follows the hash seed) or from an object's address is such a difference. Two collections,
seconds apart and under two hash seeds, must list the same ids in the same order; a static guard names the known
trap (``gzip`` output without ``mtime=``) and parametrizations over a set, so a new one fails here at once.
"""

from __future__ import annotations

import ast
import difflib
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
TESTS = REPO / "tests"


def _collected(hash_seed: str) -> list[str]:
    """The ids ``pytest --collect-only -q`` lists for the whole suite, in order (nothing runs)."""
    env = {**os.environ, "PYTHONHASHSEED": hash_seed}
    result = subprocess.run(
        [sys.executable, "-m", "pytest", "--collect-only", "-q", "-p", "no:cacheprovider", "-n", "0"],
        cwd=REPO, env=env, capture_output=True, text=True, timeout=300, check=False,
    )
    assert result.returncode == 0, result.stdout[-4000:] + result.stderr[-4000:]
    return [line for line in result.stdout.splitlines() if "::" in line]


@pytest.mark.slow
def test_two_collections_give_the_same_ids() -> None:
    # one after the other, so the two collections run in different seconds (each takes several)
    first, second = _collected("1"), _collected("2")
    assert len(first) > 1000, first[-5:]
    diff = "\n".join(difflib.unified_diff(first, second, "first collection", "second collection", lineterm="", n=0))
    assert first == second, f"the suite's test ids depend on the run:\n{diff[:6000]}"


def _test_files() -> Iterator[Path]:
    yield from sorted(TESTS.rglob("*.py"))


def _keywords(call: ast.Call) -> set[str | None]:
    return {k.arg for k in call.keywords}


def _dotted(node: ast.expr) -> str:
    """``gzip.compress`` for the expression ``gzip.compress``; '' for anything that is not a dotted name."""
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        inner = _dotted(node.value)
        return f"{inner}.{node.attr}" if inner else ""
    return ""


#: calls that stamp the current time into their output unless given ``mtime=`` (gzip's header, RFC 1952 MTIME)
STAMPED = ("gzip.compress", "gzip.GzipFile")


def _stamped_calls(tree: ast.AST) -> Iterator[ast.Call]:
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and _dotted(node.func) in STAMPED and "mtime" not in _keywords(node):
            yield node


def _unordered(node: ast.expr) -> bool:
    """A set display, set comprehension or ``set(...)``/``frozenset(...)`` call: its iteration order is the hash's."""
    if isinstance(node, ast.Set | ast.SetComp):
        return True
    return isinstance(node, ast.Call) and _dotted(node.func) in ("set", "frozenset")


def _parametrized_values(tree: ast.AST) -> Iterator[ast.expr]:
    """The argument values of every ``pytest.mark.parametrize(...)`` and ``pytest.fixture(params=...)``."""
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        name = _dotted(node.func)
        if name.endswith("mark.parametrize") and len(node.args) >= 2:
            yield node.args[1]
        yield from (k.value for k in node.keywords if k.arg in ("argvalues", "params") and name.endswith(
            ("mark.parametrize", "fixture")))


def _traps() -> list[str]:
    found: list[tuple[Path, int, str]] = []
    for path in _test_files():
        tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
        where = path.relative_to(REPO)
        found += [(where, c.lineno, f"{_dotted(c.func)}(...) without mtime= stamps the time") for c in
                  _stamped_calls(tree)]
        found += [(where, v.lineno, "parametrized over a set (its order follows the hash seed)") for v in
                  _parametrized_values(tree) if _unordered(v)]
    return [f"{where}:{line}: {what}" for where, line, what in sorted(found)]


def test_no_time_stamped_or_unordered_parametrization() -> None:
    traps = _traps()
    assert not traps, "\n".join(traps)


def test_the_guard_sees_the_traps() -> None:
    bad = ast.parse("import gzip, pytest\n"
                    "@pytest.mark.parametrize('d', [gzip.compress(b'x')])\n"
                    "@pytest.mark.parametrize('e', {1, 2})\n"
                    "@pytest.fixture(params=set('ab'))\n"
                    "def f(d, e): gzip.GzipFile(fileobj=None, mode='wb')\n")
    good = ast.parse("import gzip, pytest\n"
                     "@pytest.mark.parametrize('d', [gzip.compress(b'x', mtime=0)])\n"
                     "@pytest.mark.parametrize('e', sorted({1, 2}))\n"
                     "def f(d, e): gzip.GzipFile(fileobj=None, mode='wb', mtime=0)\n")
    assert sorted(c.lineno for c in _stamped_calls(bad)) == [2, 5]
    assert sorted(v.lineno for v in _parametrized_values(bad) if _unordered(v)) == [3, 4]
    assert list(_stamped_calls(good)) == []
    assert [v for v in _parametrized_values(good) if _unordered(v)] == []
