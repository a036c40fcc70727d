"""A checkpoint named as users name it: its base model in the catalog, and the format its weights are stored in.

Users serve repositories such as ``Qwen/Qwen2.5-7B-Instruct-AWQ``, ``hugging-quants/Meta-Llama-3.1-8B-Instruct-AWQ-
INT4``, ``unsloth/Llama-3.2-3B-Instruct-bnb-4bit`` or ``Qwen/Qwen3-235B-A22B-FP8``: a quantized copy of a catalog
model, the same architecture with its linears stored otherwise. ``resolve`` finds the base (the name without its
quantization words, then without its publisher, then without ``-Instruct`` / ``-Chat`` / ``-hf``, matched against
the catalog's ids, repositories and aliases) and the format the name states (``format_in_name``). A name that
matches no model, or several, is refused as the catalog refuses it.

Where the name says nothing, a model's weights are as its own checkpoint stores them (``NATIVE``): gpt-oss ships
MXFP4 experts (openai/gpt-oss-20b model card: "MXFP4 quantization of the MoE weights"), DeepSeek-V3 / R1 and Kimi K2
ship FP8 (128 x 128 block scales; deepseek-ai/DeepSeek-V3 README "FP8 weights", moonshotai/Kimi-K2-Instruct
"block-fp8"); every other catalog model is taken as 16-bit (pass ``--weights`` for another).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from engine.catalog import CatalogError, get_model, model_source, models
from engine.serving.quantized import WeightFormat
from engine.specs import ModelSpec

#: words of a repository name that state its format, most specific first
_FORMAT_WORDS: tuple[tuple[str, WeightFormat], ...] = (
    (r"q4_k_m", WeightFormat.GGUF_Q4_K_M), (r"q8_0", WeightFormat.GGUF_Q8_0), (r"mxfp4", WeightFormat.MXFP4),
    (r"nvfp4", WeightFormat.NVFP4), (r"awq", WeightFormat.INT4_AWQ), (r"gptq|w4a16|int4", WeightFormat.INT4_GPTQ),
    (r"bnb|nf4|4bit", WeightFormat.NF4), (r"fp8", WeightFormat.FP8), (r"w8a8|int8", WeightFormat.INT8),
)
#: quantization words dropped to find the base model's name
_QUANT = re.compile(r"[-_.](?:awq|gptq|int4|int8|fp8|w4a16|w8a8|bnb|4bit|nf4|gguf|q4_k_m|q8_0|mxfp4|nvfp4|dynamic|"
                    r"quantized|marlin|g128|128g|unsloth|autoround)(?=$|[-_.])", re.IGNORECASE)
_VARIANT = re.compile(r"[-_](?:instruct|chat|it|hf|base)(?=$|[-_])", re.IGNORECASE)
#: catalog ids whose own checkpoint stores its weights in a quantized format (module docstring); exact ids: a
#: distill (DeepSeek-R1-Distill-Qwen-14B) ships 16-bit weights
NATIVE: dict[str, WeightFormat] = {
    "gpt-oss-20b": WeightFormat.MXFP4, "gpt-oss-120b": WeightFormat.MXFP4, "deepseek-v3": WeightFormat.FP8,
    "deepseek-r1": WeightFormat.FP8, "kimi-k2-instruct": WeightFormat.FP8,
}


@dataclass(frozen=True, slots=True)
class Checkpoint:
    """A catalog model, the format its name states (None: none), and how the name was read."""

    model: ModelSpec
    named_format: WeightFormat | None
    note: str = ""
    name: str = ""

    @property
    def weights(self) -> WeightFormat:
        """The stored format: the name's, else the model's own checkpoint's (``NATIVE``), else 16-bit. A GGUF
        repository holds files of several types: its name alone does not say which (``ValueError``)."""
        if self.named_format is None and re.search(r"(?:^|[-_./])gguf(?=$|[-_./])", self.name.lower()):
            raise ValueError(f"--weights: {self.name} holds GGUF files of several types; name the one served "
                             "(gguf-q8_0 or gguf-q4_k_m)")
        return self.named_format or native_format(self.model)


def native_format(m: ModelSpec) -> WeightFormat:
    return NATIVE.get(m.id, WeightFormat.BF16)


def format_in_name(name: str) -> WeightFormat | None:
    """The format a repository's name states, e.g. ``-AWQ``, ``-GPTQ-Int4``, ``-bnb-4bit``, ``-FP8``, ``Q4_K_M``."""
    lower = name.lower()
    return next((fmt for words, fmt in _FORMAT_WORDS if re.search(rf"(?:^|[-_./]){words}(?=$|[-_./])", lower)),
                None)


def _squash(text: str) -> str:
    return re.sub(r"[^a-z0-9]", "", text.lower())


def _candidates(name: str) -> list[str]:
    """The name, without its quantization words, without its publisher, without its variant words."""
    plain = _QUANT.sub("", name)
    while (shorter := _QUANT.sub("", plain)) != plain:
        plain = shorter
    tail = plain.rpartition("/")[2]
    return list(dict.fromkeys([name, plain, tail, _VARIANT.sub("", tail)]))


def _by_squashed(tail: str) -> list[ModelSpec]:
    """Catalog models one of whose names (id, repository, aliases, their tails without variant words) squashes
    to ``tail``'s."""
    key = _squash(tail)
    found = []
    for m in models():
        names = [m.id, m.hf_repo or "", *model_source(m.id).aliases]
        names += [n.rpartition("/")[2] for n in names]
        names += [_VARIANT.sub("", n) for n in names]
        if key and key in {_squash(n) for n in names if n}:
            found.append(m)
    return found


def resolve(name: str) -> Checkpoint:
    """The checkpoint ``name`` means (module docstring); ``CatalogError`` as the catalog's for an unknown one."""
    fmt = format_in_name(name)
    try:
        return Checkpoint(get_model(name), fmt, name=name)
    except CatalogError as err:
        first = err
    for candidate in _candidates(name)[1:]:
        try:
            base = get_model(candidate)
        except CatalogError:
            matches = _by_squashed(candidate.rpartition("/")[2])
            if len(matches) != 1:
                continue
            base = matches[0]
        what = f"{fmt.value} weights" if fmt else "its weights"
        return Checkpoint(base, fmt, f"{name}: {base.label}'s architecture with {what} (named so)", name)
    raise first
