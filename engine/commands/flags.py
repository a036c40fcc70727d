"""A refused value, named by the command-line flag that gave it.

The engine's models name their fields (``seq_len``, ``lora.rank``, ``tokens``); a user of ``python -m engine`` typed
flags (``--seq-len``, ``--lora-rank``, ``--tokens``). ``flag_error`` turns the first problem of a pydantic
validation into ``--seq-len: Input should be greater than or equal to 1``, finding the flag among the
sub-command's own (by its ``dest``): the field's own name, its dotted path joined by ``_`` (``lora.rank`` ->
``lora_rank``), or one of the few flags spelled otherwise (``ALIASES``). A field no flag sets is named as the
engine names it; a rule across fields (``gpus`` against ``tp x pp x cp``) is its message alone.
"""

from __future__ import annotations

import argparse

from pydantic import ValidationError

from engine.errors import first_error

#: (model, field) -> the ``dest`` of the flag that sets it, where the flag is not named after the field
ALIASES: dict[tuple[str, str], str] = {
    ("ServingSetup", "tp"): "serving_tp",
    ("ServingSetup", "kv_dtype"): "dtype",
    ("AlignmentOptions", "grpo_kl_coef"): "grpo_kl",
    ("ParallelSpec", "schedule"): "pp_schedule",
    ("QuantSpec", "quant_type"): "quant",
    ("HostSetup", "ram_bytes"): "host_ram_gb",
    ("TrainingSetup", "parallel.schedule"): "pp_schedule",
    ("TrainingSetup", "quant.quant_type"): "quant",
    ("TrainingSetup", "host.ram_bytes"): "host_ram_gb",
}
#: a model whose fields the flags spell with a prefix (``LoraSpec.rank`` is ``--lora-rank``)
PREFIXES = {"LoraSpec": "lora_"}


def flags_by_dest(parser: argparse.ArgumentParser) -> dict[str, str]:
    """Each optional argument's ``dest`` and its long flag (``seq_len`` -> ``--seq-len``)."""
    found: dict[str, str] = {}
    for action in parser._actions:
        longs = [o for o in action.option_strings if o.startswith("--")]
        if longs and action.dest not in found:
            found[action.dest] = longs[0]
    return found


def flag_for(model: str, path: str, parser: argparse.ArgumentParser) -> str | None:
    """The flag that sets ``model``'s field ``path`` (a dotted path), if the command has one."""
    flags = flags_by_dest(parser)
    leaf = path.rpartition(".")[2]
    for dest in (ALIASES.get((model, path)), PREFIXES.get(model, "") + path.replace(".", "_"),
                 path.replace(".", "_"), leaf):
        if dest is not None and dest in flags:
            return flags[dest]
    return None


def flag_error(err: ValidationError, parser: argparse.ArgumentParser) -> str:
    """The first problem of ``err`` as one line, starting with the flag that gave the value."""
    where, message = first_error(err, fallback="")
    if not where:
        return message
    return f"{flag_for(err.title, where, parser) or where}: {message}"
