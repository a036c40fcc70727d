"""The model a config names: a catalog id, a Hugging Face id the catalog knows, or a local folder with config.json.

A Hugging Face id matches a catalog model when it is the model's own repository or one of its aliases (the
fine-tunes, distills and re-uploads the catalog lists with why they keep the architecture: engine/catalog/README.md,
``alias_source``), or the same repository name under another owner (mirrors and re-uploads such as
``NousResearch/Llama-2-7b-hf``, ``unsloth/llama-2-7b``), or a published variant of it that keeps the architecture:
the chat / instruct / ``-it`` / reasoning fine-tunes of the same base (``meta-llama/Meta-Llama-3-8B-Instruct`` is
Llama 3 8B; ``Llama-2-7b-chat-hf`` is Llama 2 7B; ``mistralai/Ministral-3-3B-Reasoning-2512`` is the Ministral 3 3B
whose Instruct variant the catalog holds), the same weights saved in another 16-bit dtype
(``casperhansen/llama-3-70b-fp16``, ``TheBloke/Llama-2-7B-fp16``) or converted to transformers' format (the
``-hf`` of ``meta-llama/Llama-2-7b-hf`` beside ``meta-llama/Llama-2-7b``). Such a match is reported as assumed.
Another version or size (``Mistral-Nemo-Base-2407``) matches nothing. A repository quantized ahead of training
(``-bnb-4bit``, ``-GPTQ``, ``-AWQ``, ``-FP8``...) of a catalog model is refused naming the base and how to cost it:
the base with ``--model`` (and ``--method qlora`` for a 4-bit bitsandbytes one). A model the engine refuses
(engine/catalog/refused.json: Llama 3.2 Vision, Falcon, DBRX, Falcon-H1, ...) is refused with the layer kind it cannot
cost, not called unknown. A path that holds no config.json here (``/model``, the mount point of a cluster job's
container; ``./checkpoints/x``) is named as a path on the machine the config was written for.
"""

from __future__ import annotations

import re
from functools import cache
from pathlib import Path

from engine.catalog import CatalogError, get_model, model_source, models, refused_model
from engine.config_import.report import ConfigRefusedError, Message
from engine.specs import ModelSpec
from engine.translatable import QT_TRANSLATE_NOOP

UNKNOWN = QT_TRANSLATE_NOOP(
    "engine", "{value} is not a model VRAM Lab knows, nor a local folder with a config.json; give the model with "
              "--model (a catalog id) or --config (its config.json)")
NO_MODEL = QT_TRANSLATE_NOOP("engine", "the files name no model; give it with --model or --config")
REFUSED = QT_TRANSLATE_NOOP(
    "engine", "{value} is {model}, which has {why}: VRAM Lab cannot cost that yet; give another model with --model")
ELSEWHERE = QT_TRANSLATE_NOOP(
    "engine", "{value} is a path on the machine the config was written for, with no config.json here; give the "
              "model with --model (a catalog id) or --config (its config.json)")
QUANTIZED = QT_TRANSLATE_NOOP(
    "engine", "{value} is {model} quantized ahead of training ({kind}), which is not costed as its own model; "
              "give --model {id} (with --method qlora for a 4-bit bitsandbytes base) to estimate it")
_VARIANT = re.compile(r"-(instruct|chat|it|base|reasoning|fp16|bf16|hf)(?=-|$)")
#: the suffixes of repositories quantized ahead of training
_QUANT = re.compile(r"-(bnb-4bit|bnb-8bit|unsloth-bnb-4bit|gptq(-int[48])?|awq|gguf|int4|int8|fp8|nvfp4|mxfp4|"
                    r"4bit|8bit|exl2|aqlm(-\d+bit)?(-\d+x\d+)?)(?=-|$)", re.IGNORECASE)


def _normal(name: str) -> str:
    """A repository name without its owner, ``Meta-`` prefix and fine-tune suffixes, in lower case."""
    short = name.strip().rstrip("/").rsplit("/", 1)[-1].lower()
    return _VARIANT.sub("", short.removeprefix("meta-"))


@cache
def _by_normal_name() -> dict[str, str]:
    """Normalised repository names -> catalog ids: every model's own repository first, then its aliases."""
    index: dict[str, str] = {}
    for m in models():
        if m.hf_repo:
            index.setdefault(_normal(m.hf_repo), m.id)
    for m in models():
        for alias in model_source(m.id).aliases:
            index.setdefault(_normal(alias), m.id)
    return index


def catalog_match(name: str) -> tuple[ModelSpec, bool] | None:
    """The catalog model ``name`` means, and whether it is exact (its id or repository; an alias, such as a chat
    variant's repository, is a match but not exact); None if none."""
    try:
        m = get_model(name)
    except CatalogError:
        pass
    else:
        return m, name.strip().lower() in {m.id.lower(), (m.hf_repo or "").lower()}
    found = _by_normal_name().get(_normal(name))
    return (get_model(found), False) if found else None


def local_config(value: str, beside: Path) -> Path | None:
    """A local config.json that ``value`` names (a folder or the file), as given or relative to ``beside``."""
    for base in (Path(value).expanduser(), beside / value):
        folder = base if base.is_dir() else base.parent if base.name == "config.json" else None
        if folder is not None and (folder / "config.json").is_file():
            return folder
    return None


def resolve(value: str, key: str, file: str, beside: Path) -> tuple[ModelSpec, bool]:
    """The model ``key`` = ``value`` names in ``file`` and whether it is exact, or a one-line refusal."""
    found = catalog_match(value)
    if found is not None:
        return found
    folder = local_config(value, beside)
    if folder is not None:
        from engine.hf_import import load_config

        return load_config(folder), True
    quantized = _QUANT.search(value.rsplit("/", 1)[-1])
    base = catalog_match(_QUANT.sub("", value)) if quantized else None
    if quantized and base is not None:
        raise ConfigRefusedError(file, Message.of(QUANTIZED, value=value, model=base[0].name, id=base[0].id,
                                                  kind=quantized.group(1)), key=key)
    refused = refused_model(value)
    if refused is not None:
        why = Message.of(REFUSED, value=value, model=refused.name)  # the reason is whole, never cut to MAX_SHOWN
        raise ConfigRefusedError(file, Message(REFUSED, (*why.args, ("why", refused.why))), key=key)
    if value.strip().startswith(("/", "./", "../", "~", "\\")) or re.match(r"^[A-Za-z]:[\\/]", value.strip()):
        raise ConfigRefusedError(file, Message.of(ELSEWHERE, value=value), key=key)
    raise ConfigRefusedError(file, Message.of(UNKNOWN, value=value), key=key)
