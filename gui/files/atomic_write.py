"""Writing a file so that a crash never leaves it half-written (no Qt; used for saved scenarios).

The text goes to a temporary file in the same folder (so the rename stays on one file system), is flushed and
fsynced, then ``os.replace``d over the target in one step; the folder is fsynced too, so the rename itself
survives a power cut. On any failure the temporary file is removed and the old file is untouched.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path


def write_text_atomic(path: Path, text: str) -> None:
    """Replace ``path``'s content with ``text`` (UTF-8) atomically; raises ``OSError`` and leaves it as it was."""
    path = Path(path)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(text)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    _sync_folder(path.parent)


def _sync_folder(folder: Path) -> None:
    """Make the rename durable where the OS allows it (POSIX; a no-op elsewhere)."""
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)
