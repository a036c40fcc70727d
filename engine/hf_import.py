"""Import a model from a Hugging Face ``config.json`` (a file, a folder, or a folder of the local HF cache).

Nothing in the folder is executed: the config is read as JSON, and where ``*.safetensors`` files sit beside it,
only their JSON headers are read (the format: an 8-byte little-endian header length, then a JSON table of tensor
names, dtypes and shapes; huggingface/safetensors README, "Format") to count the parameters exactly.
Every problem becomes an :class:`ImportError_` whose message names the file and the field.
"""

from __future__ import annotations

import json
import math
import struct
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from engine.specs import MLASpec, MlpKind, ModelSpec, MoESpec, NormKind, PositionKind

MAX_CONFIG_BYTES = 4_000_000
MAX_HEADER_BYTES = 100_000_000

#: model_type -> defaults that differ from the Llama family's
_FAMILY_DEFAULTS: dict[str, dict[str, Any]] = {
    "gemma": {"tie_embeddings": True, "norm": "rmsnorm-fp32"},
    "gemma2": {"tie_embeddings": True, "norms_per_layer": 4, "sliding_layers_fraction": 0.5, "norm": "rmsnorm-fp32"},
    "gemma3": {"tie_embeddings": True, "norms_per_layer": 4, "norm": "rmsnorm-fp32"},
    "qwen2": {"qkv_bias": True},
    "qwen2_moe": {"qkv_bias": True},
}


class ConfigImportError(ValueError):
    """A config that cannot be imported; the message names the file and the field."""


def find_config(path: str | Path) -> Path:
    """The config.json a path means: the file itself, ``<folder>/config.json``, or the newest snapshot of an
    HF cache folder (``models--org--name/snapshots/<rev>/config.json``)."""
    p = Path(path).expanduser()
    if p.is_file():
        return p
    if not p.exists():
        raise ConfigImportError(f"{p}: no such file or folder")
    if (p / "config.json").is_file():
        return p / "config.json"
    snapshots = sorted((p / "snapshots").glob("*/config.json"), key=lambda f: f.stat().st_mtime)
    if snapshots:
        return snapshots[-1]
    raise ConfigImportError(f"{p}: no config.json in this folder (nor in snapshots/*/)")


def _read_json(path: Path) -> dict[str, Any]:
    if path.stat().st_size > MAX_CONFIG_BYTES:
        raise ConfigImportError(f"{path.name}: too large for a config ({path.stat().st_size:,} bytes)")
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except UnicodeDecodeError as err:
        raise ConfigImportError(f"{path.name}: not UTF-8 text ({err.reason})") from None
    except json.JSONDecodeError as err:
        raise ConfigImportError(f"{path.name}: not valid JSON (line {err.lineno}: {err.msg})") from None
    if not isinstance(data, dict):
        raise ConfigImportError(f"{path.name}: expected a JSON object at the top level")
    return data


def _get(cfg: dict[str, Any], *names: str, default: Any = None, required: bool = True) -> Any:
    for n in names:
        if n in cfg and cfg[n] is not None:
            value = cfg[n]
            if isinstance(value, bool) or not isinstance(value, int | float | str | dict | list):
                raise ConfigImportError(f"field {n!r}: unexpected value {value!r}")
            return value
    if default is not None or not required:
        return default
    raise ConfigImportError(f"missing field {names[0]!r}" + (f" (or {', '.join(names[1:])})" if names[1:] else ""))


def _moe(cfg: dict[str, Any]) -> dict[str, Any] | None:
    experts = _get(cfg, "num_local_experts", "n_routed_experts", "num_experts", required=False)
    if not experts:
        return None
    return {
        "num_experts": experts,
        "experts_per_token": _get(cfg, "num_experts_per_tok", "num_experts_per_token"),
        "expert_intermediate_size": _get(cfg, "moe_intermediate_size", "intermediate_size"),
        "shared_experts": _get(cfg, "n_shared_experts", default=0),
        "first_dense_layers": _get(cfg, "first_k_dense_replace", default=0),
    }


def _mla(cfg: dict[str, Any]) -> dict[str, Any] | None:
    if "kv_lora_rank" not in cfg:
        return None
    return {
        "kv_lora_rank": _get(cfg, "kv_lora_rank"),
        "qk_rope_head_dim": _get(cfg, "qk_rope_head_dim"),
        "qk_nope_head_dim": _get(cfg, "qk_nope_head_dim"),
        "v_head_dim": _get(cfg, "v_head_dim"),
        "q_lora_rank": cfg.get("q_lora_rank"),
    }


def spec_fields(cfg: dict[str, Any], name: str) -> dict[str, Any]:
    """ModelSpec fields from a config dict (Llama-style names, with GPT-2's as fallbacks)."""
    kind = str(cfg.get("model_type", "llama"))
    gpt2 = kind == "gpt2"
    heads = _get(cfg, "num_attention_heads", "n_head")
    hidden = _get(cfg, "hidden_size", "n_embd", "d_model")
    fields: dict[str, Any] = {
        "id": name,
        "name": name,
        "family": f"imported ({kind})",
        "vocab_size": _get(cfg, "vocab_size"),
        "hidden_size": hidden,
        "num_layers": _get(cfg, "num_hidden_layers", "n_layer", "num_layers"),
        "num_heads": heads,
        "num_kv_heads": _get(cfg, "num_key_value_heads", "n_head_kv", default=heads),
        "head_dim": cfg.get("head_dim"),
        "intermediate_size": _get(cfg, "intermediate_size", "n_inner", "ffn_dim", default=4 * int(hidden)),
        "max_position": _get(cfg, "max_position_embeddings", "n_positions", default=4096),
        "tie_embeddings": bool(cfg.get("tie_word_embeddings", gpt2)),
        "moe": _moe(cfg),
        "mla": _mla(cfg),
        "sliding_window": cfg.get("sliding_window") if cfg.get("use_sliding_window", True) else None,
        **_FAMILY_DEFAULTS.get(kind, {}),
    }
    if "tie_word_embeddings" in cfg:
        fields["tie_embeddings"] = bool(cfg["tie_word_embeddings"])
    if gpt2:
        fields.update(mlp=MlpKind.PLAIN, norm=NormKind.LAYERNORM, positions=PositionKind.LEARNED,
                      qkv_bias=True, o_bias=True, mlp_bias=True)
    fields["attn_softcap"] = bool(cfg.get("attn_logit_softcapping"))
    fields["logit_softcap"] = bool(cfg.get("final_logit_softcapping"))
    if "attention_bias" in cfg:
        fields["qkv_bias"] = fields["o_bias"] = bool(cfg["attention_bias"])
    return fields


def safetensors_params(folder: Path) -> int | None:
    """Exact parameter count from the headers of the ``*.safetensors`` files in ``folder`` (None if none)."""
    files = sorted(folder.glob("*.safetensors"))
    if not files:
        return None
    total = 0
    for f in files:
        with f.open("rb") as fh:
            raw = fh.read(8)
            if len(raw) != 8:
                raise ConfigImportError(f"{f.name}: truncated safetensors file")
            (size,) = struct.unpack("<Q", raw)
            if size > MAX_HEADER_BYTES:
                raise ConfigImportError(f"{f.name}: safetensors header too large ({size:,} bytes)")
            try:
                header = json.loads(fh.read(size))
            except (json.JSONDecodeError, UnicodeDecodeError):
                raise ConfigImportError(f"{f.name}: unreadable safetensors header") from None
        total += sum(math.prod(v["shape"]) for k, v in header.items() if k != "__metadata__")
    return total


def load_config(path: str | Path) -> ModelSpec:
    """A :class:`ModelSpec` from a Hugging Face config (see module docstring). Raises ConfigImportError."""
    cfg_path = find_config(path)
    cfg = _read_json(cfg_path)
    name = cfg_path.parent.name if cfg_path.parent.name not in ("", ".") else "imported"
    if cfg_path.parent.parent.name == "snapshots":
        name = cfg_path.parent.parent.parent.name.removeprefix("models--").replace("--", "/")
    fields = spec_fields(cfg, name)
    try:
        fields["published_params"] = safetensors_params(cfg_path.parent)
        for key in ("moe", "mla"):
            if fields[key] is not None:
                fields[key] = (MoESpec if key == "moe" else MLASpec).model_validate(fields[key])
        return ModelSpec.model_validate(fields)
    except ValidationError as err:
        first = err.errors()[0]
        where = ".".join(str(x) for x in first["loc"])
        raise ConfigImportError(f"{cfg_path.name}: field {where!r}: {first['msg']}") from None
    except (KeyError, TypeError) as err:
        raise ConfigImportError(f"{cfg_path.name}: malformed safetensors header ({err})") from None
