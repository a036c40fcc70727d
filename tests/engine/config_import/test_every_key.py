"""Every key of an imported file is in the report's ``read`` or ``ignored`` (issue 27): none is dropped, so a key
that changes memory can never be silently left out. Checked over every stored example config
(tests/fixtures/training_configs), each imported alone with the files it names."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

import pytest

from engine.config_import import ImportReport
from engine.config_import.loading import read_config
from tests.engine.config_import.fixtures import FIXTURES, import_alone

CONFIGS = sorted(p for p in FIXTURES.rglob("*") if p.suffix in (".yaml", ".yml", ".json"))


def statements(data: Mapping[str, Any], prefix: str = "") -> Iterator[tuple[str, Any]]:
    """Every (dotted key, value) a file states: non-null values, sections as themselves and their keys."""
    for key, value in data.items():
        if value is None:
            continue
        dotted = f"{prefix}{key}"
        yield dotted, value
        if isinstance(value, Mapping):
            yield from statements(value, dotted + ".")


def dropped(report: ImportReport, path: Path, data: Mapping[str, Any]) -> list[str]:
    """The keys of ``path`` (its report prefix: none for the first file, ``name:`` after) neither read nor ignored,
    nor inside a section that is, nor a section some of whose keys are."""
    prefix = "" if Path(report.files[0]).name == path.name else f"{path.name}:"
    covered = {k.removeprefix(prefix) for k in [*report.read, *(i.key for i in report.ignored)]
               if k.startswith(prefix) and (prefix or ":" not in k)}
    out = []
    for key, _ in statements(data):
        parts = key.split(".")
        inside = any(".".join(parts[:i]) in covered for i in range(1, len(parts) + 1))
        holds = any(c.startswith(key + ".") for c in covered)
        if not inside and not holds:
            out.append(key)
    return out


@pytest.mark.parametrize("path", CONFIGS, ids=[str(p.relative_to(FIXTURES)) for p in CONFIGS])
def test_no_key_is_dropped(path: Path) -> None:
    r = import_alone(path)
    for name in r.report.files:
        f = Path(name)
        assert dropped(r.report, f, read_config(f).data) == [], f.name


TRL = "model_name_or_path: meta-llama/Llama-2-7b-hf\n"
LF = "model_name_or_path: meta-llama/Llama-2-7b-hf\nstage: sft\ndo_train: true\n"
AXOLOTL = "base_model: meta-llama/Llama-2-7b-hf\n"


@pytest.mark.parametrize(("text", "key", "field", "value"), [
    (TRL + "use_peft: true\nlora_modules_to_save: [embed_tokens, lm_head]\n", "lora_modules_to_save",
     "modules_to_save", ("embed_tokens", "lm_head")),
    (LF + "finetuning_type: lora\nadditional_target: embed_tokens,lm_head\n", "additional_target",
     "modules_to_save", ("embed_tokens", "lm_head")),
    (AXOLOTL + "adapter: lora\nlora_modules_to_save:\n  - embed_tokens\n", "lora_modules_to_save",
     "modules_to_save", ("embed_tokens",)),
    (TRL + "optim: rmsprop\n", "optim", "optimizer", "rmsprop"),
    (LF + "optim: rmsprop\n", "optim", "optimizer", "rmsprop"),
    (AXOLOTL + "optimizer: rmsprop\n", "optimizer", "optimizer", "rmsprop"),
    (AXOLOTL + "optimizer: adamw_torch_4bit\n", "optimizer", "optimizer", "adamw-4bit"),
])
def test_issue_27s_options_are_read(imported, text: str, key: str, field: str, value: object) -> None:
    """Modules trained in full beside LoRA and issue 27's optimizers: read from their key."""
    r = imported({"a.yaml": text})
    got = getattr(r.setup, field)
    assert (tuple(m.value for m in got) if isinstance(got, tuple) else got.value) == value
    assert f"a.yaml:{key}" in r.report.read or key in r.report.read


@pytest.mark.parametrize(("text", "key"), [
    (TRL + "use_peft: true\nlora_modules_to_save: [score]\n", "lora_modules_to_save"),
    (LF + "finetuning_type: lora\nadditional_target: score\n", "additional_target"),
    (TRL + "optim: lomo\n", "optim"),
    (AXOLOTL + "optimizer: schedule_free_adamw\n", "optimizer"),
])
def test_options_the_engine_cannot_cost_are_refused_by_name(imported, text: str, key: str) -> None:
    """Modules trained in full beside LoRA other than the embeddings and the output layer, and optimizers the
    engine does not cost stop the import naming the key (a setting given explicitly overrides it), never read as if
    absent."""
    from engine.config_import.report import ConfigRefusedError

    with pytest.raises(ConfigRefusedError, match=rf"^a\.yaml: {key}: "):
        imported({"a.yaml": text})
