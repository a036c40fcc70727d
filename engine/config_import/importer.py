"""One call from config files to a setup, a model, an alignment method and a report (the GUI's and CLI's entry).

Files are read in the order given; a file that names another (a training YAML's ``deepspeed:``, accelerate's
``deepspeed_config_file``) has it read right after itself when it sits beside it: at the path as named relative
to the config's folder or to one of its three parent folders (a repository's examples name
``examples/deepspeed/ds_z3_config.json`` from the repository's root), or under its own name in the config's
folder. A file named but not found is reported as ignored; if it is one the tools ship
(``engine.config_import.deepspeed.KNOWN``) its known content is assumed instead.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from engine.config_import import (
    accelerate,
    axolotl,
    deepspeed,
    llama_factory,
    models,
    scripts,
    torchtitan,
    torchtune,
    trl,
)
from engine.config_import.alloc_conf import map_alloc_conf
from engine.config_import.common import FLAGS
from engine.config_import.detect import detect
from engine.config_import.draft import Draft, Field, Kind
from engine.config_import.loading import Loaded, read_config
from engine.config_import.messages import KNOWN_CONTENT
from engine.config_import.names import AlignmentMethod
from engine.config_import.report import CHOOSE, ConfigRefusedError, Format, Ignored, ImportReport, Message
from engine.config_import.resolve import INVALID, Combined, build
from engine.specs import ModelSpec, TrainingSetup
from engine.translatable import QT_TRANSLATE_NOOP

NOT_FOUND = QT_TRANSLATE_NOOP("engine", "{value} was not found beside the config; give it with another "
                                        "--from-config to use it")
NO_FILES = QT_TRANSLATE_NOOP("engine", "no config file given")
MAX_FILES = 16

_MAPPERS: dict[Format, Callable[[Draft, Loaded], None]] = {
    Format.AXOLOTL: lambda d, _: axolotl.map_file(d),
    Format.LLAMA_FACTORY: lambda d, _: llama_factory.map_file(d),
    Format.TORCHTUNE: torchtune.map_loaded,
    Format.TRL: lambda d, _: trl.map_file(d),
    Format.DEEPSPEED: lambda d, _: deepspeed.map_file(d),
    Format.ACCELERATE: lambda d, _: accelerate.map_file(d),
    Format.SCRIPT_ARGS: lambda d, _: scripts.map_file(d),
    Format.TORCHTITAN: torchtitan.map_loaded,
}


@dataclass(frozen=True)
class ImportedConfig:
    """What an import gives: the setup, the model, the alignment method named (if any) and the report."""

    setup: TrainingSetup
    model: ModelSpec
    alignment: AlignmentMethod | None
    report: ImportReport


def _beside(referrer: Path, name: str) -> Path | None:
    """Where a file named by ``referrer`` sits (module docstring), or None."""
    target = Path(name).expanduser()
    if target.is_absolute():
        return target if target.is_file() else None
    folders = [referrer.parent, *list(referrer.parent.resolve().parents)[:3]]
    candidates = [f / target for f in folders] + [referrer.parent / target.name]
    return next((c for c in candidates if c.is_file()), None)


def _draft(path: Path, first: bool) -> Draft:
    loaded = read_config(path)
    fmt = detect(loaded.data, path.name)
    d = Draft(path, loaded.data, fmt, "" if first else f"{path.name}:")
    map_alloc_conf(d, loaded.text)  # before the tool's mapping, whose finish() lists the keys left unused
    _MAPPERS[fmt](d, loaded)
    return d


def _real(path: Path) -> Path:
    """The file a path names, links followed; a link loop is itself (reading it then says what is wrong)."""
    try:
        return path.resolve()
    except (OSError, RuntimeError):  # Python 3.11 raises RuntimeError on a symbolic link loop
        return path.absolute()


def _read_all(paths: Sequence[str | Path]) -> list[Draft]:
    """Every file given, and each file they name, in order (module docstring)."""
    queue = [Path(p).expanduser() for p in paths]
    drafts: list[Draft] = []
    seen: set[Path] = set()
    while queue and len(drafts) < MAX_FILES:
        path = queue.pop(0)
        real = _real(path)
        if real in seen:
            continue
        seen.add(real)
        d = _draft(path, not drafts)
        drafts.append(d)
        found = []
        for key, name in d.follow:
            target = _beside(path, name)
            if target is not None:
                found.append(target)
            elif (content := deepspeed.known(name)) is not None:
                deepspeed.apply_known(d, content)
                d.ignored.append(Ignored(key, Message.of(KNOWN_CONTENT, value=name)))
            else:
                d.ignored.append(Ignored(key, Message.of(NOT_FOUND, value=name)))
        queue[:0] = found
    return drafts


def _model(c: Combined, drafts: Sequence[Draft], model: ModelSpec | None,
           default_model: ModelSpec | None) -> tuple[ModelSpec, bool]:
    """The model (explicit > files > ``default_model``) and whether it is assumed."""
    fact = c.facts.get(Field.MODEL)
    if model is not None:
        c.override([Field.MODEL])
        return model, False
    if fact is None:
        if default_model is None:
            raise ConfigRefusedError(drafts[0].path.name, Message.of(models.NO_MODEL))
        return default_model, True
    beside = next(d.path.parent for d in drafts if d.path.name == fact.file)
    found, exact = models.resolve(str(fact.value), fact.keys[0].split(":", 1)[-1], fact.file, beside)
    return found, not exact


#: the setup fields a layout rule can break, by the short name the rules' sentences use
_LAYOUT = ((Field.TP, "tp"), (Field.PP, "pp"), (Field.CP, "cp"), (Field.EP, "ep"),
           (Field.SEQUENCE_PARALLEL, "sequence"), (Field.MICRO_BATCHES, "micro-batches"))


def _check_layout(c: Combined, spec: ModelSpec, setup: TrainingSetup, explicit: Mapping[str, Any]) -> None:
    """A layout the files set must suit the model (``engine.training.layout``'s rules: tp dividing the heads, QLoRA
    not split...): else one line naming the file and the key that set it, as any refusal."""
    stated = [(f, word) for f, word in _LAYOUT if f in c.facts and c.facts[f].kind is Kind.READ
              and f.value not in explicit and c.facts[f].value not in (1, False)]
    if not stated or not setup.layout_active:
        return
    from engine.training.layout import LayoutError, layout

    try:
        layout(spec, setup)
    except LayoutError as err:
        problem = str(err)
        words = problem.lower()
        field = min(stated, key=lambda fw: words.find(fw[1]) if fw[1] in words else len(words))[0]
        fact = c.facts[field]
        # the rule's whole sentence (Message.of would cut it at MAX_SHOWN)
        raise ConfigRefusedError(fact.file, Message(INVALID, (("problem", problem),)),
                                 key=fact.keys[0].split(":", 1)[-1],
                                 hint=Message.of(CHOOSE, field="parallel layout", flag=FLAGS[field])) from None


def import_configs(
    paths: Sequence[str | Path],
    explicit: Mapping[str, Any] | None = None,
    model: ModelSpec | None = None,
    base: TrainingSetup | None = None,
    default_model: ModelSpec | None = None,
) -> ImportedConfig:
    """Import training configs (module docstring; each tool's mapping table is in its module).

    ``explicit``: setup fields set explicitly (``"seq_len"``, ``"lora.rank"``...), which override every file.
    ``model``: a model set explicitly. ``base``: the values of fields the files leave open (default: the
    engine's defaults). ``default_model``: the model when the files name none (else that is refused).
    Raises :class:`ConfigRefusedError` (a ``ValueError``) with one line naming the file and the key.
    """
    if not paths:
        raise ConfigRefusedError("--from-config", Message.of(NO_FILES))
    explicit = dict(explicit or {})
    drafts = _read_all(paths)
    c = Combined(drafts)
    overridden = [f for f in Field if f.value in explicit]
    if "precision" in explicit:
        overridden += [Field.HALF, Field.WEIGHTS]
    c.override(overridden)
    spec, model_assumed = _model(c, drafts, model, default_model)
    setup, assumed = build(c, explicit, base or TrainingSetup(), drafts[0].path.name)
    _check_layout(c, spec, setup, explicit)
    alignment = c.facts.get(Field.ALIGNMENT)
    if model_assumed:
        assumed = {"model": spec.id, **assumed}
    notes = {k: v for d in reversed(drafts) for k, v in d.notes.items()}  # the first file's note wins
    assumed = {**notes, **assumed}
    if alignment is not None and alignment.kind is Kind.DEFAULT and alignment.value is not None:
        assumed["alignment"] = alignment.value.value
    report = ImportReport(drafts[0].format, tuple(str(d.path) for d in drafts), c.read, tuple(c.ignored), assumed)
    return ImportedConfig(setup, spec, alignment.value if alignment else None, report)
