"""Reading a training config without trusting it: size, pickles, safe YAML with caps, strict JSON.

* At most :data:`MAX_BYTES` (1 MB) are read, through ``engine.safe_io`` (regular files only).
* ``training_args.bin`` is never opened: it is a pickle that ``torch.load`` would execute. Any other file that
  starts like a pickle or a PyTorch zip archive is refused after reading its first bytes, never unpickled.
* YAML is read with PyYAML's safe constructor (plain data only: no ``!!python/...`` tag builds an object, as
  with ``yaml.safe_load``), and the composer refuses, as soon as it meets them: a tag other than YAML's own
  types, more than :data:`MAX_ALIASES` aliases, an alias inside the node it names, nesting deeper than
  ``safe_io.MAX_JSON_DEPTH``, more than :data:`MAX_NODES` nodes, or more than :data:`MAX_EXPANDED` nodes once
  aliases are expanded (the "billion laughs" alias bomb: nine aliases of nine aliases... stay small as a graph
  but expand exponentially when anything walks them). libyaml parses when PyYAML has it; the composer is
  PyYAML's own Python composer either way, so the caps hold early and identically.
* JSON goes through ``safe_io.loads_json`` (depth cap, no NaN or Infinity).
* TOML (torchtitan's job configs, a ``.toml`` file) goes through the standard library's ``tomllib`` (plain data:
  tables, arrays, strings, numbers, dates; nothing is constructed or run), nesting capped as JSON's is.

Every refusal is a :class:`ConfigRefusedError` whose message starts with the file's name; none takes more than a
fraction of a second, because each cap stops the work where it is met.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from engine import safe_io
from engine.config_import.report import ConfigRefusedError, Message
from engine.translatable import QT_TRANSLATE_NOOP

MAX_BYTES = 1_000_000
MAX_ALIASES = 100
MAX_NODES = 20_000  # a training config has a few hundred; a 1 MB file of tiny nodes would take seconds
MAX_EXPANDED = 100_000

#: YAML's own types (https://yaml.org/type/); any other tag is refused
_SAFE_TAGS = frozenset(
    f"tag:yaml.org,2002:{t}"
    for t in ("null", "bool", "int", "float", "str", "seq", "map", "timestamp", "binary", "merge", "value",
              "omap", "pairs", "set")
)
_PICKLE_MAGIC = (b"\x80", b"PK\x03\x04")  # pickle protocol 2+, and torch.save's zip archive

PICKLE = QT_TRANSLATE_NOOP(
    "engine", "a PyTorch pickle, which is never opened because loading it runs code; export "
              "TrainingArguments.to_json_string() to a .json file and import that instead")
TOO_LARGE = QT_TRANSLATE_NOOP("engine", "too large for a training config ({size} bytes; the limit is {limit})")
BAD_YAML = QT_TRANSLATE_NOOP("engine", "not valid YAML ({problem})")
BAD_TAG = QT_TRANSLATE_NOOP("engine", "the YAML tag {tag} is not allowed: only plain YAML data is read")
TOO_MANY_ALIASES = QT_TRANSLATE_NOOP("engine", "more than {limit} YAML aliases")
SELF_ALIAS = QT_TRANSLATE_NOOP("engine", "a YAML alias inside the node it names")
TOO_DEEP = QT_TRANSLATE_NOOP("engine", "nested too deeply (more than {limit} levels)")
TOO_MANY_NODES = QT_TRANSLATE_NOOP("engine", "more than {limit} YAML nodes, more than a training config holds")
TOO_EXPANDED = QT_TRANSLATE_NOOP("engine", "its YAML aliases expand to more than {limit} nodes (an alias bomb)")
NOT_A_MAPPING = QT_TRANSLATE_NOOP("engine", "not a training config (its top level is {kind}, not a mapping)")
UNREADABLE = QT_TRANSLATE_NOOP("engine", "{problem}")  # engine.safe_io's own sentence (no such file, a FIFO...)
NOT_UTF8 = QT_TRANSLATE_NOOP("engine", "not UTF-8 text (byte {byte})")
BAD_TOML = QT_TRANSLATE_NOOP("engine", "not valid TOML ({problem})")


class _CappedError(ValueError):
    def __init__(self, message: Message) -> None:
        self.message = message
        super().__init__(str(message))


@dataclass(frozen=True)
class Loaded:
    """A config file's data and text (the text keeps comments, where torchtune writes its launch command)."""

    path: Path
    data: dict[str, Any]
    text: str
    is_json: bool


def _loader_class() -> type[Any]:
    """A PyYAML loader: libyaml's parser when present, PyYAML's composer with the caps, the safe constructor."""
    import yaml
    from yaml.composer import Composer
    from yaml.constructor import SafeConstructor
    from yaml.events import AliasEvent
    from yaml.resolver import Resolver

    class CappedComposer(Composer):
        def compose_document(self) -> Any:
            self.caps = {"aliases": 0, "nodes": 0, "depth": 0}
            self.sizes: dict[int, int] = {}
            return super().compose_document()

        def compose_node(self, parent: Any, index: Any) -> Any:
            caps = self.caps
            caps["nodes"] += 1
            if caps["nodes"] > MAX_NODES:
                raise _CappedError(Message.of(TOO_MANY_NODES, limit=f"{MAX_NODES:,}"))
            is_alias = self.check_event(AliasEvent)  # type: ignore[attr-defined]  # the parser's, mixed in below
            if is_alias:
                caps["aliases"] += 1
                if caps["aliases"] > MAX_ALIASES:
                    raise _CappedError(Message.of(TOO_MANY_ALIASES, limit=MAX_ALIASES))
            caps["depth"] += 1
            if caps["depth"] > safe_io.MAX_JSON_DEPTH:
                raise _CappedError(Message.of(TOO_DEEP, limit=safe_io.MAX_JSON_DEPTH))
            try:
                node = super().compose_node(parent, index)
            finally:
                caps["depth"] -= 1
            if is_alias and id(node) not in self.sizes:  # an alias inside the node it names: a cycle
                raise _CappedError(Message.of(SELF_ALIAS))
            if not is_alias:
                self._check(node)
            return node

        def _check(self, node: Any) -> None:
            """The tag is YAML's own; the node's size with aliases expanded stays under the cap."""
            if node.tag not in _SAFE_TAGS:
                raise _CappedError(Message.of(BAD_TAG, tag=node.tag.replace("tag:yaml.org,2002:", "!!")))
            size = 1
            if isinstance(node.value, list):  # a sequence's nodes, or a mapping's (key, value) pairs
                for item in node.value:
                    for child in item if isinstance(item, tuple) else (item,):
                        size += self.sizes[id(child)]
            self.sizes[id(node)] = size
            if size > MAX_EXPANDED:
                raise _CappedError(Message.of(TOO_EXPANDED, limit=f"{MAX_EXPANDED:,}"))

    parser: type[Any]
    if getattr(yaml, "__with_libyaml__", False):
        from yaml._yaml import CParser

        parser = CParser
    else:  # pragma: no cover - PyYAML built without libyaml
        from yaml.parser import Parser
        from yaml.reader import Reader
        from yaml.scanner import Scanner

        class PyParser(Reader, Scanner, Parser):
            def __init__(self, stream: str) -> None:
                Reader.__init__(self, stream)
                Scanner.__init__(self)
                Parser.__init__(self)

        parser = PyParser

    class Loader(CappedComposer, parser, SafeConstructor, Resolver):  # type: ignore[misc]
        def __init__(self, stream: str) -> None:
            parser.__init__(self, stream)
            CappedComposer.__init__(self)
            SafeConstructor.__init__(self)
            Resolver.__init__(self)

    return Loader


def loads_yaml(text: str, name: str) -> Any:
    """Parse YAML safely with the caps of the module docstring; errors name ``name``."""
    import yaml

    loader = _loader_class()(text)
    try:
        return loader.get_single_data()
    except _CappedError as err:
        raise ConfigRefusedError(name, err.message) from None
    except RecursionError:
        raise ConfigRefusedError(name, Message.of(TOO_DEEP, limit=safe_io.MAX_JSON_DEPTH)) from None
    except yaml.YAMLError as err:
        problem = getattr(err, "problem", None) or str(err).splitlines()[0]
        mark = getattr(err, "problem_mark", None)
        where = f"line {mark.line + 1}, column {mark.column + 1}: " if mark is not None else ""
        raise ConfigRefusedError(name, Message.of(BAD_YAML, problem=where + str(problem))) from None
    finally:
        loader.dispose()


def _kind(value: Any) -> str:
    if isinstance(value, list):
        return "a list"
    if value is None:
        return "empty"
    return "a single value"


def loads_toml(text: str, name: str) -> Any:
    """A TOML document's data (``tomllib``: plain data only), nesting at most ``safe_io.MAX_JSON_DEPTH`` deep."""
    import tomllib

    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as err:
        raise ConfigRefusedError(name, Message.of(BAD_TOML, problem=str(err))) from None
    if safe_io.depth(data) > safe_io.MAX_JSON_DEPTH:
        raise ConfigRefusedError(name, Message.of(TOO_DEEP, limit=safe_io.MAX_JSON_DEPTH))
    return data


def read_config(path: str | Path) -> Loaded:
    """A config file's top-level mapping (see the module docstring for what is refused)."""
    p = Path(path).expanduser()
    if p.name.lower() == "training_args.bin":
        raise ConfigRefusedError(p.name, Message.of(PICKLE))
    try:
        size = safe_io.file_size(p)
        if size > MAX_BYTES:
            raise ConfigRefusedError(p.name, Message.of(TOO_LARGE, size=f"{size:,}", limit=f"{MAX_BYTES:,}"))
        raw = safe_io.read_bytes(p, MAX_BYTES, "training config")
    except safe_io.InputFileError as err:
        problem = str(err).removeprefix(f"{p}: ").removeprefix(f"{p.name}: ")
        raise ConfigRefusedError(p.name, Message.of(UNREADABLE, problem=problem)) from None
    if raw.startswith(_PICKLE_MAGIC):
        raise ConfigRefusedError(p.name, Message.of(PICKLE))
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as err:
        raise ConfigRefusedError(p.name, Message.of(NOT_UTF8, byte=f"{err.start:,}")) from None
    is_json = p.suffix.lower() == ".json" or text.lstrip().startswith("{")
    if p.suffix.lower() == ".toml":
        data = loads_toml(text, p.name)
    elif is_json:
        try:
            data = safe_io.loads_json(text, p.name)
        except safe_io.InputFileError as err:
            raise ConfigRefusedError(p.name, Message.of(UNREADABLE, problem=str(err).removeprefix(f"{p.name}: ")))\
                from None
    else:
        data = loads_yaml(text, p.name)
    if not isinstance(data, dict):
        raise ConfigRefusedError(p.name, Message.of(NOT_A_MAPPING, kind=_kind(data)))
    return Loaded(p, data, text, is_json)
