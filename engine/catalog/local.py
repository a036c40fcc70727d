"""Models already on this computer: the local Hugging Face cache, read offline.

Where the cache is (huggingface_hub's ``constants.py``): ``$HF_HUB_CACHE``, else ``$HF_HOME/hub``, else
``$XDG_CACHE_HOME/huggingface/hub``, else ``~/.cache/huggingface/hub``. A model there is a folder
``models--<org>--<name>`` holding ``snapshots/<revision>/config.json`` (and ``refs/main``, a text file naming the
revision ``main`` points at). Each config is imported with :func:`engine.hf_import.load_config`, which also counts
the parameters from the safetensors headers beside it.

The cache is the user's folder and may hold anything: only regular files are opened (a FIFO named ``config.json``
is refused before anything blocks on it, through :mod:`engine.safe_io`), at most :data:`MAX_FOLDERS` folders and
:data:`MAX_SNAPSHOTS` snapshots per model are looked at, and every problem becomes the model's ``error`` text
instead of an exception.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from engine.safe_io import InputFileError, file_size, read_text
from engine.specs import ModelSpec

#: cache folders looked at, at most (a cache of thousands of repositories is cut, never walked for minutes)
MAX_FOLDERS = 2_000
#: snapshots of one model looked at, at most
MAX_SNAPSHOTS = 64
#: a ``refs/main`` larger than this is not a revision hash
MAX_REF_BYTES = 256
PREFIX = "models--"


@dataclass(frozen=True)
class LocalModel:
    """One model of the cache: its repository id, the snapshot read, and the imported spec or why it failed."""

    repo: str
    path: Path
    spec: ModelSpec | None
    error: str | None = None

    def as_dict(self) -> dict[str, object]:
        return {
            "id": self.repo,
            "hf_repo": self.repo,
            "path": str(self.path),
            "total_params": self.spec.published_params if self.spec else None,
            "model_type": self.spec.family if self.spec else None,
            "error": self.error,
        }


def cache_dir(env: dict[str, str] | None = None) -> Path:
    """The Hugging Face hub cache folder these environment variables mean (see module docstring)."""
    e = os.environ if env is None else env
    if e.get("HF_HUB_CACHE"):
        return Path(e["HF_HUB_CACHE"]).expanduser()
    if e.get("HF_HOME"):
        return Path(e["HF_HOME"]).expanduser() / "hub"
    base = Path(e["XDG_CACHE_HOME"]).expanduser() if e.get("XDG_CACHE_HOME") else Path.home() / ".cache"
    return base / "huggingface" / "hub"


def repo_id(folder_name: str) -> str | None:
    """``models--Qwen--Qwen3-8B`` -> ``Qwen/Qwen3-8B`` (None for any other folder name)."""
    if not folder_name.startswith(PREFIX):
        return None
    org, sep, name = folder_name.removeprefix(PREFIX).partition("--")
    return f"{org}/{name}" if sep and org and name else None


def _is_file(path: Path) -> bool:
    """A regular file (a FIFO, a folder, a broken link or an unreadable entry is not)."""
    try:
        file_size(path)
    except InputFileError:
        return False
    return True


def _snapshot(folder: Path) -> Path:
    """The snapshot folder to read: the one ``refs/main`` names, else the newest one holding a config.json."""
    ref = folder / "refs" / "main"
    if _is_file(ref):
        try:
            rev = read_text(ref, MAX_REF_BYTES, "ref").strip()
        except InputFileError:
            rev = ""
        if rev and "/" not in rev and rev not in (".", "..") and _is_file(folder / "snapshots" / rev / "config.json"):
            return folder / "snapshots" / rev
    candidates = []
    snapshots = folder / "snapshots"
    if snapshots.is_dir():
        for i, snap in enumerate(sorted(snapshots.iterdir())):
            if i >= MAX_SNAPSHOTS:
                break
            config = snap / "config.json"
            if _is_file(config):
                candidates.append((config.stat().st_mtime, snap))
    if not candidates:
        raise InputFileError(f"{folder.name}: no snapshot with a config.json")
    return max(candidates)[1]


def _load(repo: str, folder: Path) -> LocalModel:
    from engine.hf_import import load_config

    try:
        snap = _snapshot(folder)
        blocked = [f.name for f in snap.glob("*.safetensors") if not _is_file(f)]
        if blocked:
            return LocalModel(repo, snap, None, f"{blocked[0]}: not a regular file")
        spec = load_config(snap / "config.json")
    except (ValueError, OSError, RecursionError) as err:  # ConfigImportError and InputFileError are ValueErrors
        return LocalModel(repo, folder, None, str(err) or type(err).__name__)
    return LocalModel(repo, snap, spec.model_copy(update={"id": repo, "name": repo, "hf_repo": repo}))


def local_models(root: Path | None = None) -> list[LocalModel]:
    """Every ``models--org--name`` folder of the cache (sorted by repository id), each imported or with its error.

    A missing or unreadable cache is an empty list."""
    folder = cache_dir() if root is None else root
    found: list[LocalModel] = []
    try:
        entries = sorted(os.scandir(folder), key=lambda d: d.name)[: MAX_FOLDERS * 4]
    except OSError:
        return []
    for entry in entries:
        repo = repo_id(entry.name)
        if repo is None:
            continue
        try:
            is_dir = entry.is_dir(follow_symlinks=False)
        except OSError:
            is_dir = False
        if not is_dir:
            continue
        found.append(_load(repo, Path(entry.path)))
        if len(found) >= MAX_FOLDERS:
            break
    return found


def find_local(name: str, root: Path | None = None) -> LocalModel | None:
    """The cached model whose repository id is ``name`` (case-insensitive), imported, or None if not cached."""
    want = name.strip().lower()
    folder = cache_dir() if root is None else root
    candidate = folder / (PREFIX + name.strip().replace("/", "--"))
    matches = [candidate] if candidate.is_dir() else []
    if not matches:
        try:
            matches = [Path(e.path) for e in os.scandir(folder)
                       if (repo_id(e.name) or "").lower() == want and e.is_dir(follow_symlinks=False)]
        except OSError:
            return None
    if not matches:
        return None
    repo = repo_id(matches[0].name)
    return _load(repo, matches[0]) if repo else None
