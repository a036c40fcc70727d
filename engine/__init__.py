"""VRAM Lab's engine: pure-Python memory arithmetic for training and serving LLMs.

No Qt, no GUI: typed pydantic inputs (``engine.specs``), pure functions returning typed results whose every
number names its formula and source. The command line (``python -m engine``) prints them as JSON.
"""

__all__ = ["__version__"]

__version__ = "0.1.0"
