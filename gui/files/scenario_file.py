"""Saved scenarios: a small, versioned JSON file, read and written without Qt (tested headless).

What a scenario holds is ``gui.state.scenario_data.ScenarioData``; this module is its file format.

::

    {"format": "vramlab-scenario", "version": 1,
     "model": {"catalog": "llama-2-7b"},            # or {"architecture": {...}} for an imported model
     "setup": {"method": "lora", "seq_len": 4096, ...},   # every TrainingSetup field
     "gpu": {"catalog": "a100-80gb"},               # or {"spec": {...}} for a GPU not in the catalog
     "unit": "GB"}

Reading goes through ``engine.safe_io`` (a regular file only: a FIFO named ``x.vramlab.json`` is refused at once
instead of blocking; at most ``MAX_BYTES``; JSON nested at most 64 deep, without NaN or Infinity) and validates
everything with the engine's pydantic models before anything is used: a file that is not JSON, not a scenario,
from a newer version or with a rejected value raises ``ScenarioFileError`` naming the problem and the field, and
the caller changes nothing. Writing is atomic (``gui.files.atomic_write``): a temporary file in the same
folder, flushed and fsynced, then ``os.replace``d over the target, so a crash mid-save leaves the old file whole.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ValidationError

from engine import safe_io
from engine.catalog import CatalogError, get_gpu, get_model
from engine.errors import one_line
from engine.specs import GpuSpec, ModelSpec, TrainingSetup
from engine.units import Unit
from gui.files.atomic_write import write_text_atomic
from gui.state.scenario_data import ScenarioData

FORMAT = "vramlab-scenario"
VERSION = 1
SUFFIX = ".vramlab.json"
#: the largest scenario file read (an imported model's architecture is a few kilobytes)
MAX_BYTES = 4_000_000
#: the longest catalog id a file may name
MAX_ID = 200


class ScenarioFileError(ValueError):
    """A file that cannot be used as a scenario; the message names the problem, ``kind`` says which sort it is:
    ``unreadable``, ``corrupt`` (not JSON), ``format`` (not a scenario), ``newer`` (a future version) or
    ``invalid`` (a value the engine rejects)."""

    def __init__(self, message: str, kind: str = "invalid") -> None:
        super().__init__(message)
        self.kind = kind


def _model_entry(m: ModelSpec) -> dict[str, Any]:
    try:
        if get_model(m.id) == m:
            return {"catalog": m.id}
    except CatalogError:
        pass
    return {"architecture": m.model_dump(mode="json")}


def _gpu_entry(g: GpuSpec) -> dict[str, Any]:
    try:
        if get_gpu(g.id) == g:
            return {"catalog": g.id}
    except CatalogError:
        pass
    return {"spec": g.model_dump(mode="json")}


def to_json(data: ScenarioData) -> str:
    """The file's text (UTF-8, indented, ending with a newline)."""
    doc = {"format": FORMAT, "version": VERSION, "model": _model_entry(data.model),
           "setup": data.setup.model_dump(mode="json"), "gpu": _gpu_entry(data.gpu), "unit": data.unit.value}
    return json.dumps(doc, indent=2, ensure_ascii=False) + "\n"


def _validated(kind: type[BaseModel], raw: Any, where: str) -> Any:
    try:
        return kind.model_validate(raw)
    except ValidationError as err:
        raise ScenarioFileError(one_line(err, where)) from None


def _entry(doc: dict[str, Any], key: str, kind: type[BaseModel], full: str, lookup: Any) -> Any:
    entry = doc.get(key)
    if not isinstance(entry, dict) or len(entry) != 1 or not ({"catalog", full} & entry.keys()):
        raise ScenarioFileError(f'{key}: expected {{"catalog": id}} or {{"{full}": {{...}}}}')
    if "catalog" in entry:
        name = entry["catalog"]
        if not isinstance(name, str) or not 0 < len(name) <= MAX_ID:
            raise ScenarioFileError(f"{key}.catalog: expected a catalog id (text of 1 to {MAX_ID} characters)")
        try:
            return lookup(name)
        except CatalogError as err:
            raise ScenarioFileError(f"{key}: {err}") from None
    return _validated(kind, entry[full], f"{key}.{full}")


def _check_header(doc: Any) -> dict[str, Any]:
    if not isinstance(doc, dict) or doc.get("format") != FORMAT:
        found = doc.get("format") if isinstance(doc, dict) else type(doc).__name__
        raise ScenarioFileError(f"not a VRAM Lab scenario (format {found!r}, expected {FORMAT!r})", "format")
    version = doc.get("version")
    if not isinstance(version, int) or isinstance(version, bool) or version < 1:
        raise ScenarioFileError(f"version: {version!r} is not a scenario version", "format")
    if version > VERSION:
        raise ScenarioFileError(
            f"written by a newer VRAM Lab (scenario version {version}; this one reads version {VERSION})", "newer")
    return doc


def from_json(text: str) -> ScenarioData:
    """Parse and validate a scenario file's text; raises ``ScenarioFileError``."""
    try:
        parsed = safe_io.loads_json(text, "scenario")
    except safe_io.InputFileError as err:
        raise ScenarioFileError(str(err).removeprefix("scenario: "), "corrupt") from None
    doc = _check_header(parsed)
    model = _entry(doc, "model", ModelSpec, "architecture", get_model)
    gpu = _entry(doc, "gpu", GpuSpec, "spec", get_gpu)
    setup = _validated(TrainingSetup, doc.get("setup", {}), "setup")
    try:
        unit = Unit(doc.get("unit", Unit.GB.value))
    except (ValueError, TypeError):
        raise ScenarioFileError(f"unit: {str(doc.get('unit'))[:40]!r} is not one of GB, GiB") from None
    data: ScenarioData = _validated(ScenarioData, {"model": model, "setup": setup, "gpu": gpu, "unit": unit}, "setup")
    return data


def load(path: Path) -> ScenarioData:
    """Read a scenario file; raises ``ScenarioFileError`` (unreadable, corrupt, wrong format, newer version)."""
    try:
        data = safe_io.read_bytes(path, MAX_BYTES, "scenario")
    except safe_io.InputFileError as err:
        reason = str(err).removeprefix(f"{path}: ").removeprefix(f"{Path(path).name}: ")
        raise ScenarioFileError(f"cannot read it: {reason}", "unreadable") from None
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise ScenarioFileError("not a text file (not UTF-8)", "corrupt") from None
    return from_json(text)


def save(path: Path, data: ScenarioData) -> None:
    """Write atomically (``gui.files.atomic_write``): a crash mid-save leaves the old file whole. Raises ``OSError``."""
    write_text_atomic(Path(path), to_json(data))
