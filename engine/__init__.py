"""VRAM Lab's engine: pure-Python memory arithmetic for training and serving LLMs.

No Qt, no GUI: typed pydantic inputs (``engine.specs``), pure functions returning typed results whose every
number names its formula and source. The command line (``python -m engine``) prints them as JSON.
"""

from importlib.metadata import PackageNotFoundError, version

__all__ = ["__version__"]

try:  # the one place the version is written is pyproject.toml
    __version__ = version("vramlab")
except PackageNotFoundError:  # a bare checkout on sys.path, never installed
    __version__ = "0+unknown"
