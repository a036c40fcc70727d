"""Import a model from a Hugging Face ``config.json`` (a file, a folder, or a folder of the local HF cache).

Nothing in the folder is executed: the config is read as JSON, as transformers reads it (``NaN`` and ``Infinity``
included: ``engine.safe_io``), and ``engine.hf_config`` turns it into a layer list;
and where ``*.safetensors`` files sit beside it, only their JSON headers are read (the format: an 8-byte
little-endian header length, then a JSON table of tensor names, dtypes and shapes; huggingface/safetensors README,
"Format") to count the parameters exactly: the language model's, and apart from them a vision tower's and its
projector's, and any layer transformers does not build (DeepSeek-V3's multi-token-prediction layer). MXFP4
tensors (GPT-OSS's experts) hold two 4-bit values per byte in ``*_blocks`` and one scale per 32 in ``*_scales``.
Every file is read through ``engine.safe_io``; every problem becomes a :class:`ConfigImportError` whose message
names the file and the field (or says that a safetensors header is at fault).
"""

from __future__ import annotations

import math
import re
import struct
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from engine import hf_config, hf_mixers, safe_io
from engine.errors import first_error
from engine.hf_config import ConfigFieldError
from engine.hf_families import FLAT_WRAPPERS
from engine.layers import UnsupportedLayerError
from engine.specs import MAX_PARAMS, ModelSpec

MAX_CONFIG_BYTES = 4_000_000
MAX_HEADER_BYTES = 100_000_000
MAX_SHARDS = 4_096
_MAX_DIMS = 8  # a tensor of more dimensions is not a weight
#: tensor-name prefixes of a vision tower and its projector (Gemma 3, Mistral 3, Llama 4, LLaVA, Qwen-VL)
_VISION = re.compile(r"^(model\.)?(vision_tower|vision_model|visual|multi_modal_projector|mm_projector|vision_)")
_LAYER = re.compile(r"^(?:model\.)?(?:language_model\.)?(?:model\.)?layers\.(\d+)\.")


class ConfigImportError(ValueError):
    """A config that cannot be imported; the message names the file and the field."""


class RefusedLayerError(ConfigImportError):
    """A model whose layers the engine cannot cost (state-space, linear attention): refused by name."""


def find_config(path: str | Path) -> Path:
    """The config.json a path means: the file itself, ``<folder>/config.json``, or the newest snapshot of an
    HF cache folder (``models--org--name/snapshots/<rev>/config.json``). Anything that is not a folder is taken
    as the file, and ``engine.safe_io`` says what is wrong with it (a FIFO, a device, a link loop, missing)."""
    p = Path(path).expanduser()
    if not p.is_dir():
        if not p.exists() and not p.is_symlink():
            raise ConfigImportError(f"{p}: no such file or folder")
        return p
    if (p / "config.json").exists() or (p / "config.json").is_symlink():
        return p / "config.json"
    revisions = (p / "snapshots").iterdir() if (p / "snapshots").is_dir() else iter(())
    found = (r / "config.json" for r in revisions if r.is_dir())
    snapshots = sorted((f for f in found if f.exists() or f.is_symlink()), key=_modified)
    if snapshots:
        return snapshots[-1]
    raise ConfigImportError(f"{p}: no config.json in this folder (nor in snapshots/*/)")


def _modified(f: Path) -> float:
    """When a snapshot's config.json changed (0 for a broken link or a loop: it sorts first and is reported)."""
    try:
        return f.stat().st_mtime
    except OSError:
        return 0.0


def read_config(path: Path) -> dict[str, Any]:
    """A config.json as a dict, read through ``engine.safe_io``."""
    try:
        data = safe_io.read_json(path, MAX_CONFIG_BYTES, "config", non_finite=True)  # as transformers reads it
    except safe_io.InputFileError as err:
        raise ConfigImportError(str(err)) from None
    if not isinstance(data, dict):
        raise ConfigImportError(f"{path.name}: expected a JSON object at the top level, found "
                                f"{safe_io.json_kind(data)}")
    return data


@dataclass(frozen=True, slots=True)
class HeaderCounts:
    """Parameters the safetensors headers hold, by where they belong."""

    language: int
    vision: int
    extra_layers: int  # layers at or past num_hidden_layers (not built by transformers)


def _reason(err: safe_io.InputFileError, f: Path) -> str:
    """``safe_io``'s message without the file's name (it starts with the path or the name)."""
    text = str(err)
    for prefix in (f"{f}: ", f"{f.name}: "):
        text = text.removeprefix(prefix)
    return text


def _header(f: Path) -> dict[str, Any]:
    where = f"{f.name}: safetensors header"
    try:
        (size,) = struct.unpack("<Q", safe_io.read_header(f, 0, 8))
        if size > MAX_HEADER_BYTES:
            raise ConfigImportError(f"{where}: too large ({size:,} bytes; the limit is {MAX_HEADER_BYTES:,})")
        header = safe_io.loads_json(safe_io.read_header(f, 8, size), where)
    except safe_io.InputFileError as err:
        reason = str(err).removeprefix(f"{where}: ") if str(err).startswith(where) else _reason(err, f)
        raise ConfigImportError(f"{where}: {reason}") from None
    if not isinstance(header, dict):
        raise ConfigImportError(f"{where}: expected a JSON object, found {safe_io.json_kind(header)}")
    return header


def _numel(f: Path, name: str, entry: Any) -> int:
    """Parameters of one tensor entry (MXFP4 blocks hold two per byte; their scales are not parameters)."""
    shape = entry.get("shape") if isinstance(entry, dict) else None
    if not isinstance(shape, list) or any(isinstance(d, bool) or not isinstance(d, int) or d < 0 for d in shape):
        raise ConfigImportError(f"{f.name}: safetensors header: tensor {name[:80]!r} has no valid shape")
    if len(shape) > _MAX_DIMS or any(d > MAX_PARAMS for d in shape) or math.prod(shape) > MAX_PARAMS:
        raise ConfigImportError(f"{f.name}: safetensors header: tensor {name[:80]!r} has a shape beyond the engine's "
                                f"bounds (more than {MAX_PARAMS:,} elements)")
    if name.endswith("_scales") and entry.get("dtype") == "U8":
        return 0
    return math.prod(shape) * (2 if name.endswith("_blocks") and entry.get("dtype") == "U8" else 1)


def safetensors_counts(folder: Path, num_layers: int | None = None) -> HeaderCounts | None:
    """Exact parameter counts from the headers of the ``*.safetensors`` files in ``folder`` (None if none)."""
    files = sorted(folder.glob("*.safetensors"))[: MAX_SHARDS + 1]
    if not files:
        return None
    if len(files) > MAX_SHARDS:
        raise ConfigImportError(f"{folder.name}: more than {MAX_SHARDS:,} safetensors files")
    language = vision = extra = 0
    for f in files:
        for name, entry in _header(f).items():
            if name == "__metadata__":
                continue
            n = _numel(f, name, entry)
            layer = _LAYER.match(name)
            if _VISION.match(name):
                vision += n
            elif num_layers is not None and layer and int(layer.group(1)) >= num_layers:
                extra += n
            else:
                language += n
    if max(language, vision, extra) > MAX_PARAMS:
        raise ConfigImportError(f"{folder.name}: the safetensors headers hold more than {MAX_PARAMS:,} parameters")
    return HeaderCounts(language, vision, extra)


def safetensors_params(folder: Path) -> int | None:
    """Every parameter the headers of ``folder``'s ``*.safetensors`` files hold (None if there are none)."""
    counts = safetensors_counts(folder)
    return None if counts is None else counts.language + counts.vision + counts.extra_layers


def spec_fields(cfg: dict[str, Any], name: str, source: str = "config.json") -> dict[str, Any]:
    """ModelSpec fields from a config dict (``engine.hf_config.spec_fields``); raises :class:`ConfigImportError`
    (:class:`RefusedLayerError` for a layer kind the engine cannot cost)."""
    try:
        if hf_mixers.is_hybrid(cfg):
            return hf_mixers.spec_fields(cfg, name, source)
        return hf_config.spec_fields(cfg, name, source)
    except UnsupportedLayerError as err:
        raise RefusedLayerError(str(err)) from None
    except ConfigFieldError as err:
        raise ConfigImportError(str(err)) from None
    except ValidationError as err:  # a layer's own rule (every number was checked against its bound already)
        where, message = first_error(err, fallback="")
        raise ConfigImportError(f"{source}: field {where!r}: {message}" if where else f"{source}: {message}") from None


def spec_from_config(cfg: dict[str, Any], name: str, source: str = "config.json",
                     **extra: Any) -> ModelSpec:
    """A :class:`ModelSpec` from a config dict; ``extra`` fields (name, family, published_params, ...) win."""
    fields = spec_fields(cfg, name, source)
    fields.update(extra)
    try:
        return ModelSpec.model_validate(fields)
    except ValidationError as err:
        where, message = first_error(err, fallback="")
        raise ConfigImportError(f"{source}: field {where!r}: {message}") from None


def _name(cfg_path: Path) -> str:
    """The model's name: its folder's, or ``org/name`` of an HF cache folder (cut to a ``ModelSpec`` id's 200)."""
    name = cfg_path.parent.name if cfg_path.parent.name not in ("", ".") else "imported"
    if cfg_path.parent.parent.name == "snapshots":
        name = cfg_path.parent.parent.parent.name.removeprefix("models--").replace("--", "/")
    return name.strip()[:200] or "imported"


def _header_fields(cfg_path: Path, num_layers: int, notes: tuple[str, ...]) -> dict[str, Any]:
    counts = safetensors_counts(cfg_path.parent, num_layers)
    if counts is None:
        return {}
    out: dict[str, Any] = {"published_params": counts.language or None, "vision_params": counts.vision}
    extra = list(notes)
    if counts.vision:
        extra.append(f"vision tower and projector: {counts.vision:,} parameters (safetensors headers), "
                     "reported apart; the estimate counts the language model")
    if counts.extra_layers:
        extra.append(f"{counts.extra_layers:,} parameters in layers past num_hidden_layers (a multi-token "
                     "prediction layer) that transformers does not build: not counted")
    out["notes"] = tuple(extra)
    return out


def load_config(path: str | Path) -> ModelSpec:
    """A :class:`ModelSpec` from a Hugging Face config (see module docstring). Raises ConfigImportError."""
    cfg_path = find_config(path)
    cfg = read_config(cfg_path)
    spec = spec_from_config(cfg, _name(cfg_path), cfg_path.name)
    extra = _header_fields(cfg_path, spec.num_layers, spec.notes)
    multimodal = "text_config" in cfg or cfg.get("model_type") in FLAT_WRAPPERS
    if spec.vision_params == 0 and multimodal and "vision_params" not in extra:
        extra["notes"] = (*spec.notes, "the vision tower is not counted (no safetensors headers beside the config)")
    return spec.model_copy(update=extra) if extra else spec
