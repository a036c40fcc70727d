"""No import cycle among the modules of ``engine/``, ``gui/`` and ``calibration/``.

Static: every ``import`` and ``from ... import`` in each module's source is read with ``ast`` (at module level, in
functions and under ``if TYPE_CHECKING:`` alike), so calibration's modules, which need torch, are never imported.
An import names the module it loads, as import-linter's graph (grimp) counts it: ``from a.b import c`` is an edge
to ``a.b.c`` when that is a module, else to ``a.b`` (a package's ``__init__``); the parent packages a dotted import
initialises on the way are not edges. A cycle is a strongly connected component of more than one module (Tarjan
1972, "Depth-first search and linear graph algorithms"), or a module that imports itself; the failure names its
modules and one closed path through them, each step with the file and line of its import.
"""

from __future__ import annotations

import ast
import itertools
from collections import deque
from collections.abc import Iterator
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
PACKAGES = ("engine", "gui", "calibration")
#: folders below a package that are not its modules (calibration's own virtual environment)
SKIPPED = (".venv", "__pycache__")

Graph = dict[str, dict[str, int]]  # module -> {imported module: line of the first such import}


def _module_name(path: Path, root: Path) -> str:
    parts = list(path.relative_to(root).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def modules(root: Path, packages: tuple[str, ...] = PACKAGES) -> dict[str, Path]:
    """Every module of ``packages`` under ``root``, by dotted name."""
    found: dict[str, Path] = {}
    for package in packages:
        for path in sorted((root / package).rglob("*.py")):
            if not any(part in SKIPPED for part in path.relative_to(root).parts):
                found[_module_name(path, root)] = path
    return found


def _absolute(node: ast.ImportFrom, module: str, is_package: bool) -> str:
    """The module a ``from`` import names, a relative one resolved against ``module``'s package."""
    if not node.level:
        return node.module or ""
    package = module.split(".") if is_package else module.split(".")[:-1]
    base = package[: len(package) - node.level + 1]
    return ".".join([*base, *([node.module] if node.module else [])])


def _targets(node: ast.Import | ast.ImportFrom, module: str, is_package: bool, known: dict[str, Path]) -> Iterator[str]:
    if isinstance(node, ast.Import):
        yield from (alias.name for alias in node.names)
        return
    source = _absolute(node, module, is_package)
    for alias in node.names:
        submodule = f"{source}.{alias.name}"
        yield submodule if submodule in known else source


def graph(known: dict[str, Path]) -> Graph:
    """Each module's imports of other known modules, with the line of the first."""
    edges: Graph = {}
    for name, path in known.items():
        tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
        out: dict[str, int] = {}
        for node in ast.walk(tree):
            if isinstance(node, ast.Import | ast.ImportFrom):
                for target in _targets(node, name, path.name == "__init__.py", known):
                    if target in known:
                        out.setdefault(target, node.lineno)
        edges[name] = dict(sorted(out.items(), key=lambda kv: kv[1]))
    return edges


def components(edges: Graph) -> list[list[str]]:
    """The strongly connected components of more than one module, and modules that import themselves (Tarjan's
    algorithm, iterative), each sorted, in order of their first module."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    for start in sorted(edges):
        if start in index:
            continue
        work = [(start, iter(edges[start]))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(edges[child])))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                members = []
                while True:
                    top = stack.pop()
                    on_stack.discard(top)
                    members.append(top)
                    if top == node:
                        break
                if len(members) > 1 or node in edges[node]:
                    found.append(sorted(members))
    return sorted(found)


def closed_path(edges: Graph, members: list[str]) -> list[str]:
    """A shortest path from the component's first module back to itself, inside the component."""
    inside, start = set(members), members[0]
    came: dict[str, str] = {}
    queue = deque([start])
    while queue:
        node = queue.popleft()
        for child in edges[node]:
            if child == start:
                path = [node]
                while path[-1] != start:
                    path.append(came[path[-1]])
                return [*reversed(path), start]
            if child in inside and child not in came:
                came[child] = node
                queue.append(child)
    raise AssertionError(f"{members} is not a cycle")


def _where(path: Path) -> Path:
    return path.relative_to(REPO) if path.is_relative_to(REPO) else path


def described(edges: Graph, known: dict[str, Path], members: list[str]) -> str:
    """The component's modules, then one closed path through them with each import's file and line."""
    path = closed_path(edges, members)
    steps = [f"    {a} -> {b}  ({_where(known[a])}:{edges[a][b]})" for a, b in itertools.pairwise(path)]
    return f"cycle of {len(members)} module(s): {', '.join(members)}\n" + "\n".join(steps)


def test_no_import_cycle_in_engine_gui_or_calibration() -> None:
    known = modules(REPO)
    edges = graph(known)
    cycles = components(edges)
    assert not cycles, "import cycles:\n" + "\n".join(described(edges, known, c) for c in cycles)


def test_the_graph_reads_every_package() -> None:
    known = modules(REPO)
    assert {name.split(".")[0] for name in known} == set(PACKAGES)
    assert {"calibration.cases", "engine.commands.estimate", "gui.app", "gui.pages.timeline"} <= set(known)
    assert not any(".venv" in str(path) for path in known.values())
    assert sum(len(out) for out in graph(known).values()) > 500


def _write(root: Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")


def test_a_cycle_through_a_function_level_import_is_found(tmp_path: Path) -> None:
    _write(tmp_path, {
        "pkg/__init__.py": "",
        "pkg/a.py": "from pkg import b\n",
        "pkg/b.py": "def f():\n    from pkg.c import g\n    return g\n",
        "pkg/c.py": "import pkg.a\ndef g(): pass\n",
        "pkg/d.py": "from pkg import a, b\n",  # imports into the cycle, not part of it
        "pkg/sub/__init__.py": "from . import e\n",
        "pkg/sub/e.py": "from .. import sub\n",  # relative imports resolve (a package and its module)
    })
    known = modules(tmp_path, ("pkg",))
    edges = graph(known)
    assert edges["pkg.b"] == {"pkg.c": 2}
    assert components(edges) == [["pkg.a", "pkg.b", "pkg.c"], ["pkg.sub", "pkg.sub.e"]]
    assert closed_path(edges, ["pkg.a", "pkg.b", "pkg.c"]) == ["pkg.a", "pkg.b", "pkg.c", "pkg.a"]
    assert "pkg.b -> pkg.c" in described(edges, known, ["pkg.a", "pkg.b", "pkg.c"])


def test_an_acyclic_tree_has_no_component(tmp_path: Path) -> None:
    _write(tmp_path, {"pkg/__init__.py": "from pkg.a import x\n", "pkg/a.py": "import pkg.b\nx = 1\n",
                      "pkg/b.py": "import os\n"})
    assert components(graph(modules(tmp_path, ("pkg",)))) == []
