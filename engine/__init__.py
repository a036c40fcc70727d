"""VRAM Lab's engine: pure-Python memory arithmetic for training and serving LLMs.

No Qt, no GUI: typed pydantic inputs (``engine.specs``), pure functions returning typed results whose every
number names its formula and source. The command line (``python -m engine``) prints them as JSON.

``engine.__version__`` is read from the installed package's metadata on first use, not at import: the lookup
scans the installed distributions, which every start of the app would pay for (bench/startup.py).
"""

from __future__ import annotations

__all__ = ["__version__"]


def __getattr__(name: str) -> str:
    """``__version__``: the one place the version is written is pyproject.toml (PEP 562: looked up on use)."""
    if name != "__version__":
        raise AttributeError(f"module 'engine' has no attribute {name!r}")
    from importlib.metadata import PackageNotFoundError, version

    try:
        found = version("vramlab")
    except PackageNotFoundError:  # a bare checkout on sys.path, never installed
        found = "0+unknown"
    globals()["__version__"] = found
    return found
