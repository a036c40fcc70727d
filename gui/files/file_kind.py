"""What a file dropped on the window is, told from its name, its first bytes and its keys (no Qt: tested headless).

* a folder: a model when it holds a ``config.json`` (or is a Hugging Face cache folder,
  ``engine.hf_import.find_config``);
* ``*.vramlab.json``, or JSON whose ``format`` is ``vramlab-scenario``: a saved scenario;
* gzip, a pickle (protocol 2 and later start with byte 0x80), or JSON with ``segments`` / ``device_traces``: a
  PyTorch memory snapshot (``torch.cuda.memory._dump_snapshot`` writes a pickle of that dictionary);
  ``training_args.bin`` is the Trainer's pickle, handed to the training-config import, which says why it is never
  opened and what to export instead;
* any other file of at most 1 MB that the training-config loader reads (safe YAML or strict JSON,
  ``engine.config_import.loading``): a training config when ``engine.config_import.detect`` recognises its tool, a
  model when it is a Hugging Face ``config.json``.

Anything else is ``OTHER``, with the reason. Every file is read through ``engine.safe_io`` (regular files only,
at most ``HEAD_BYTES`` for the first look), so a FIFO, a device or a huge file is refused at once, never waited on.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path
from typing import Any

from engine import safe_io
from gui.files.scenario_file import FORMAT as SCENARIO_FORMAT
from gui.files.scenario_file import SUFFIX as SCENARIO_SUFFIX

HEAD_BYTES = 65_536
_GZIP = b"\x1f\x8b"
_PICKLE = b"\x80"
_ZIP = b"PK\x03\x04"
_SNAPSHOT_KEYS = ("device_traces", "segments")


class FileKind(StrEnum):
    """What a dropped path is, so the window knows what to do with it."""

    TRAINING_CONFIG = "training-config"
    MODEL = "model"
    SCENARIO = "scenario"
    SNAPSHOT = "snapshot"
    OTHER = "other"


@dataclass(frozen=True)
class Sniffed:
    """A path and its kind; for ``OTHER``, why it is none of the others (an error with a one-line message)."""

    path: Path
    kind: FileKind
    why: ValueError | None = None


def sniff(path: Path) -> Sniffed:
    """The kind of ``path`` (module docstring); never blocks on a special file."""
    from engine.hf_import import ConfigImportError, find_config  # the importers load on the first drop

    if path.is_dir():
        try:
            find_config(path)
        except ConfigImportError as err:
            return Sniffed(path, FileKind.OTHER, err)
        return Sniffed(path, FileKind.MODEL)
    try:
        size = safe_io.file_size(path)
        head = safe_io.read_header(path, 0, min(size, HEAD_BYTES))
    except safe_io.InputFileError as err:
        return Sniffed(path, FileKind.OTHER, err)
    return _by_content(path, size, head)


def _by_content(path: Path, size: int, head: bytes) -> Sniffed:
    from engine.config_import import ConfigRefusedError
    from engine.config_import.loading import MAX_BYTES, read_config

    if path.name.lower() == "training_args.bin":
        return Sniffed(path, FileKind.TRAINING_CONFIG)
    if path.name.lower().endswith(SCENARIO_SUFFIX):
        return Sniffed(path, FileKind.SCENARIO)
    if head.startswith((_GZIP, _PICKLE)):
        return Sniffed(path, FileKind.SNAPSHOT)
    if head.startswith(_ZIP):
        return Sniffed(path, FileKind.OTHER, ValueError(f"{path.name}: a zip archive"))
    if size > MAX_BYTES:
        looks = head.lstrip().startswith(b"{") and any(f'"{k}"'.encode() in head for k in _SNAPSHOT_KEYS)
        if looks:
            return Sniffed(path, FileKind.SNAPSHOT)
    try:
        data = read_config(path).data
    except ConfigRefusedError as err:
        return Sniffed(path, FileKind.OTHER, err)
    return _by_keys(path, data)


def _by_keys(path: Path, data: dict[str, Any]) -> Sniffed:
    from engine.config_import import ConfigRefusedError
    from engine.config_import.detect import MODEL_CONFIG, detect

    if data.get("format") == SCENARIO_FORMAT:
        return Sniffed(path, FileKind.SCENARIO)
    if any(k in data for k in _SNAPSHOT_KEYS):
        return Sniffed(path, FileKind.SNAPSHOT)
    try:
        detect(data, path.name)
    except ConfigRefusedError as err:
        if err.message.template == MODEL_CONFIG:
            return Sniffed(path, FileKind.MODEL)
        return Sniffed(path, FileKind.OTHER, err)
    return Sniffed(path, FileKind.TRAINING_CONFIG)
