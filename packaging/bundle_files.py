"""Which checkout files a frozen build must carry as data, and where: one rule for build.spec and check_bundle.py.

Every file under ``assets/`` (icons, translations, fonts) goes to the same relative path, where
``gui.resources`` looks in a frozen build (``sys._MEIPASS/assets/...``); every non-Python file inside the
``engine`` package (its catalogs) goes to its package folder, where ``importlib.resources`` finds it. Nothing is
listed by name, so a new translation, font or catalog needs no edit. Left out: notes and translation sources.

Plain Python with no imports from the project, so that PyInstaller can load it from the spec.
"""

from __future__ import annotations

from pathlib import Path

#: files under assets/ and engine/ that the app never reads: notes, translation sources (.ts; the .qm is read)
NOT_SHIPPED_SUFFIXES = frozenset({".md", ".ts", ".pro", ".py", ".pyc", ".pyi"})
#: folders whose data files are shipped, relative to the checkout
DATA_ROOTS = ("assets", "engine")


def is_shipped(path: Path) -> bool:
    return path.is_file() and path.suffix not in NOT_SHIPPED_SUFFIXES and "__pycache__" not in path.parts


def data_files(root: Path) -> list[tuple[str, str]]:
    """(source file, destination folder inside the bundle) for every data file, at its checkout-relative path."""
    found = []
    for top in DATA_ROOTS:
        for path in sorted((root / top).rglob("*")):
            if is_shipped(path):
                found.append((str(path), path.parent.relative_to(root).as_posix()))
    return found
