"""Write engine/catalog/models_hf.json: catalog models imported by the engine's own importer, as ModelSpec dumps.

    python tools/catalog_import.py RAW_DIR     # rewrites engine/catalog/models_hf.json, prints what it refused
    python tools/catalog_import.py --merge     # without the published configs: only our entries and ALIASES

Inputs:

* ``RAW_DIR``: published ``config.json`` files, one JSON file per model (``{"id", "name", "family", "hf_repo",
  "aliases", "config_source", "config", "notes"?, "read_note"?, "alias_source"?}``; ``read_note`` is added to
  where the config was read, ``alias_source`` says why the aliases keep the architecture), kept outside the
  repository: no config file ships;
* :mod:`calibration.catalog_configs`: the architectures we wrote ourselves from public sources;
* tests/engine/data/transformers_counts.json: what transformers 5.24 builds from the same configs
  (``python -m calibration.counts --real RAW_DIR``).

Each config goes through :func:`engine.hf_import.spec_from_config`; a model whose layers the engine refuses
(Mamba, linear attention, sparse-attention indexers) is printed and left out (engine/catalog/README.md lists
them). A model ``models.json`` already holds is left to it. The entry's ``source`` carries the config's URL, where
it was read, the aliases and the parameter total: the published one where :data:`PUBLISHED` has it (and the
engine's count must equal it), else transformers' count (the script stops if the engine's count differs).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from calibration.catalog_configs import ENTRIES as OURS  # noqa: E402
from engine.catalog import families  # noqa: E402
from engine.hf_import import RefusedLayerError, spec_from_config  # noqa: E402
from engine.params import count_params  # noqa: E402

OUT = REPO / "engine" / "catalog" / "models_hf.json"
COUNTS = REPO / "tests" / "engine" / "data" / "transformers_counts.json"
HUB = "https://huggingface.co/{}/blob/main/{}"
QUOTED = "(figure quoted in public code found through the project's search index, not read from the Hub itself)"

#: a family the raw files name differently from the catalog's groups
FAMILY = {"DeepSeek-V3": "DeepSeek", "Mixtral": "Mistral", "Ministral 3": "Mistral"}

#: catalog id -> (published total, where it comes from): a safetensors index's metadata over the dtype's bytes
PUBLISHED: dict[str, tuple[int, str]] = {
    "granite-3.1-1b-a400m": (1_334_628_352, "model.safetensors.index.json metadata.total_size 5,338,513,408 bytes "
                             "/ 4 (float32, the config's torch_dtype), {index}, read in github.com/jeremieconte/"
                             "granite-3.1-1b-a400m-instruct (a copy of the repository)"),
    "devstral-small-2507": (23_572_403_200, "model.safetensors.index.json metadata.total_parameters 23,572,403,200 "
                            "(total_size 47,144,806,400 bytes / 2, bf16), {index}, read in github.com/fetchwiki/"
                            "mistralai-Devstral-Small-2507 (a copy of the repository)"),
    "qwen3-4b": (4_022_468_096, "safetensors total 8,044,936,192 bytes / 2 (bf16), {index} " + QUOTED),
    "qwen3-8b": (8_190_735_360, "model.safetensors.index.json metadata.total_size 16,381,470,720 bytes / 2 (bf16), "
                 "{index} " + QUOTED),
    "qwen3-14b": (14_768_307_200, "safetensors total 29,536,614,400 bytes / 2 (bf16), {index} " + QUOTED),
    "qwen3-32b": (32_762_123_264, "safetensors total 65,524,246,528 bytes / 2 (bf16), {index} " + QUOTED),
    "qwen3-30b-a3b": (30_532_122_624, "model.safetensors.index.json metadata.total_size 61,064,245,248 bytes / 2 "
                      "(bf16) of Qwen3-30B-A3B(-Instruct-2507), {index} " + QUOTED),
    "qwen3-235b-a22b": (235_093_634_560, "model.safetensors.index.json metadata.total_size 470,187,269,120 bytes / "
                        "2 (bf16), {index} " + QUOTED),
    "qwen1.5-7b": (7_721_324_544, "model.safetensors.index.json metadata.total_size 15,442,649,088 bytes / 2 (bf16), "
                   "{index}, read in github.com/huggingface/transformers examples/pytorch/torchacc/qwen/Qwen1.5-7B @ "
                   "f092c38c (a copy of the repository)"),
    "cogito-v1-preview-qwen-14b": (14_765_947_904, "model.safetensors.index.json metadata.total_size "
                                   "29,531,895,808 bytes / 2 (bf16), {index}, read in github.com/fetchwiki/"
                                   "deepcogito-cogito-v1-preview-qwen-14B (a copy of the repository)"),
}

_TIED = ("0.5B", "1.5B", "3B")
_CODER = ("Qwen2.5-Coder-{size} has Qwen2.5-{size}'s shape (github.com/Lightning-AI/litgpt litgpt/config.py @ "
          "26857050: layers, width, heads, query groups, MLP width and padded vocabulary equal), its output layer "
          "{tie} (its model card, huggingface.co/Qwen/Qwen2.5-Coder-{size}, whose architecture line {says} \"tied word "
          "embeddings\" and whose parameter count is Qwen2.5-{size}'s); its config differs only in positions "
          "and RoPE, which hold no parameters")
#: aliases the catalog adds to an entry, raw or ours, and why they keep its architecture (fine-tunes, distills and
#: re-uploads users name in their training configs: issue 27)
ALIASES: dict[str, tuple[tuple[str, ...], str]] = {
    **{f"qwen2.5-{size.lower()}": ((f"Qwen/Qwen2.5-Coder-{size}", f"Qwen/Qwen2.5-Coder-{size}-Instruct",
                                    f"unsloth/Qwen2.5-Coder-{size}-Instruct"),
                                   _CODER.format(size=size, tie="tied" if size in _TIED else "its own",
                                                 says="says" if size in _TIED else "does not say"))
       for size in ("0.5B", "1.5B", "3B", "7B", "14B", "32B")},
}
_VICUNA = ("lmsys/vicuna-{size}-v1.5 is fine-tuned from Llama 2 {size} (its model card: \"Vicuna v1.5 is fine-tuned "
           "from Llama 2 with supervised instruction fine-tuning\"); FastChat's training pads with the unknown token "
           "(tokenizer.pad_token = tokenizer.unk_token), adding none, so the vocabulary stays 32,000")
ALIASES["llama-2-7b"] = (("lmsys/vicuna-7b-v1.5",), _VICUNA.format(size="7b"))
ALIASES["llama-2-13b"] = (("lmsys/vicuna-13b-v1.5",), _VICUNA.format(size="13b"))
ALIASES["phi-3-mini"] = (("microsoft/Phi-3-mini-128k-instruct", "microsoft/Phi-3.5-mini-instruct"),
                         "Phi-3-mini-128k-instruct and Phi-3.5-mini-instruct have the 4k model's shape "
                         "(github.com/Lightning-AI/litgpt litgpt/config.py @ 26857050: 32 layers, width 3072, MLP "
                         "8192, padded vocabulary 32064); their long-context RoPE factors hold no parameters")
ALIASES["qwen2.5-7b"] = (ALIASES["qwen2.5-7b"][0] + ("Qwen/Qwen2.5-Math-7B", "Qwen/Qwen2.5-Math-7B-Instruct"),
                         ALIASES["qwen2.5-7b"][1] + "; Qwen2.5-Math-7B is Qwen2.5-7B trained further (the same litgpt "
                         "shape: 28 layers, width 3584, 4 query groups, MLP 18944, vocabulary 152064)")

_OLMO2 = ("OLMo-2-1124-{size}-SFT and -DPO, the steps before -Instruct, have the base's shape (github.com/Lightning-AI/"
          "litgpt litgpt/config.py @ 26857050: one config for OLMo-2-1124-{size}, -SFT, -DPO and -Instruct, padded "
          "vocabulary 100352)")
for _size in ("7B", "13B"):
    _id = f"olmo-2-{_size.lower()}"
    ALIASES[_id] = ((f"allenai/OLMo-2-1124-{_size}-SFT", f"allenai/OLMo-2-1124-{_size}-DPO"), _OLMO2.format(size=_size))
ALIASES["qwen2.5-32b"] = (ALIASES["qwen2.5-32b"][0] + ("NovaSky-AI/Sky-T1-32B-Preview",),
                          ALIASES["qwen2.5-32b"][1] + "; Sky-T1-32B-Preview is Qwen2.5-32B-Instruct fine-tuned in full "
                          "by github.com/NovaSky-AI/SkyThought skythought/train/LLaMA-Factory/examples/train_full/"
                          "qwen2_full_sft.yaml @ 0d190f11fd8e885bbe113aeccacba5ccde5b1102 (output_dir saves/Sky-T1-32B-"
                          "Preview; template qwen25, no new tokens and no resize_vocab)")
ALIASES["qwen2.5-7b"] = (ALIASES["qwen2.5-7b"][0] + ("open-r1/Qwen2.5-Math-7B-RoPE-300k",),
                         ALIASES["qwen2.5-7b"][1] + "; open-r1/Qwen2.5-Math-7B-RoPE-300k is Qwen2.5-Math-7B with its "
                         "RoPE base frequency raised to 300k (the model card of huggingface.co/open-r1/OpenR1-Distill-"
                         "7B, read in its Chinese copy at model.aibase.cn/models/details/1927649986573766656: fine-"
                         "tuned from a variant of Qwen2.5-Math-7B whose RoPE base was extended to 300k for 32k "
                         "training), which holds no parameters")

#: catalog id -> (a model card's rounded figure, its URL): a check on the count, never a count
CARD: dict[str, tuple[str, str]] = {
    "deepseek-v3": ("671B total, 37B activated", "https://huggingface.co/deepseek-ai/DeepSeek-V3"),
    "deepseek-r1": ("671B total, 37B activated", "https://github.com/deepseek-ai/DeepSeek-R1 (README, model table)"),
    "gpt-oss-20b": ("21B parameters, 3.6B active", "https://huggingface.co/openai/gpt-oss-20b"),
    "gpt-oss-120b": ("117B parameters, 5.1B active", "https://huggingface.co/openai/gpt-oss-120b"),
    "qwen3-8b": ("8.2B", "https://huggingface.co/Qwen/Qwen3-8B"),
    "qwen3-235b-a22b": ("235B in total, 22B activated", "https://huggingface.co/Qwen/Qwen3-235B-A22B"),
}

VISION_NOTE = ("the language model of a multimodal checkpoint: its vision tower and projector are not counted "
               "(the estimate counts the language model)")
CUT_NOTE = ("architecture read from a copy of config.json that keeps only its shape fields: fields it lacks "
            "(biases, q/k norms) took the importer's defaults")
TRANSFORMERS = ("the count of the model transformers {version} builds from this config (calibration/counts.py, "
                "tests/engine/data/transformers_counts.json); no published exact total was found")


def _raw_entries(folder: Path) -> list[dict[str, Any]]:
    """The raw files as generator entries (the published config and what we know about it)."""
    out = []
    for path in sorted(folder.glob("*.json")):
        e = json.loads(path.read_text(encoding="utf-8"))
        note = str(e.get("notes", ""))
        read_note = f"; {e['read_note']}" if e.get("read_note") else ""
        out.append({"id": e["id"], "name": e["name"], "family": FAMILY.get(e["family"], e["family"]),
                    "hf_repo": e["hf_repo"], "aliases": e["aliases"], "config": e["config"],
                    "url": e["config_source"].split(",")[0].strip(),
                    "read_from": "a copy of the published config.json in "
                                 + e["config_source"].split("as vendored in ", 1)[-1].strip() + read_note,
                    "alias_source": e.get("alias_source", ""),
                    "vision": "text_config" in e["config"], "cut": "keeps only the architecture" in note})
    return out


def _our_entries() -> list[dict[str, Any]]:
    return [{"id": k, **v, "url": HUB.format(v["hf_repo"], "config.json"), "vision": v.get("vision", False),
             "cut": False} for k, v in OURS.items()]


def _total(e: dict[str, Any], counted: int, recorded: dict[str, int], version: str) -> tuple[int, str, bool]:
    """The entry's parameter total, its source, and whether it is a published total."""
    if e["id"] in PUBLISHED:
        total, source = PUBLISHED[e["id"]]
        published = True
        source = source.format(index=HUB.format(e["hf_repo"], "model.safetensors.index.json"))
    elif e["id"] in recorded:
        total, source, published = recorded[e["id"]], TRANSFORMERS.format(version=version), False
    else:
        raise SystemExit(f"{e['id']}: no published total and no transformers count; run calibration.counts first")
    if total != counted:
        raise SystemExit(f"{e['id']}: the engine counts {counted:,} parameters, the source says {total:,}")
    return total, source, published


def entry(e: dict[str, Any], recorded: dict[str, int], version: str) -> dict[str, Any] | None:
    """One catalog entry (None when the engine refuses the model's layers)."""
    try:
        spec = spec_from_config(e["config"], e["id"], e["url"])
    except RefusedLayerError as err:
        print(f"refused {e['id']}: {err}")
        return None
    notes = [*spec.notes, *([VISION_NOTE] if e["vision"] else []), *([CUT_NOTE] if e["cut"] else [])]
    total, total_source, published = _total(e, count_params(spec).total, recorded, version)
    spec = spec.model_copy(update={"name": e["name"], "family": e["family"], "hf_repo": e["hf_repo"],
                                   "notes": tuple(notes), "published_params": total if published else None})
    fields = spec.model_dump(mode="json", exclude_defaults=True)
    extra, why = ALIASES.get(e["id"], ((), ""))
    aliases = [*e["aliases"], *(a for a in extra if a not in e["aliases"])]
    source: dict[str, Any] = {"config": e["url"], "read_from": e["read_from"], "aliases": aliases,
                              "total_params": total, "total_params_source": total_source}
    alias_source = "; ".join(t for t in (e.get("alias_source", ""), why) if t)
    if alias_source:
        source["alias_source"] = alias_source
    if e["id"] in CARD:
        source["card_params"], source["card_source"] = CARD[e["id"]]
    return {"id": spec.id, "name": spec.name, "family": spec.family, "hf_repo": spec.hf_repo,
            **{k: v for k, v in fields.items() if k not in ("id", "name", "family", "hf_repo")}, "source": source}


def add_aliases(m: dict[str, Any]) -> None:
    """The aliases :data:`ALIASES` gives an entry kept as it is (a published one, or one of models.json)."""
    extra, why = ALIASES.get(m["id"], ((), ""))
    source = m.setdefault("source", {})
    source["aliases"] = [*source.get("aliases", []), *(a for a in extra if a not in source.get("aliases", []))]
    known = source.get("alias_source", "")
    added = [part for part in why.split("; ") if part and part not in known]  # an entry's reasons grow by parts
    if added:
        source["alias_source"] = "; ".join(t for t in (known, *added) if t)


def _merged(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """``--merge``: the entries of the current file that are not ours, with the aliases :data:`ALIASES` adds, and
    ours made again (the published configs are kept outside the repository: their entries are kept as they are);
    models.json's entries take their aliases too."""
    ours = {r["id"] for r in rows}
    kept = [m for m in json.loads(OUT.read_text(encoding="utf-8"))["models"] if m["id"] not in ours]
    for m in kept:
        add_aliases(m)
    own = OUT.parent / "models.json"
    doc = json.loads(own.read_text(encoding="utf-8"))
    for m in doc["models"]:
        if m["id"] in ALIASES:
            add_aliases(m)
    own.write_text(json.dumps(doc, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    return kept + rows


def main(argv: list[str]) -> int:
    if len(argv) != 1:
        raise SystemExit(__doc__)
    data = json.loads(COUNTS.read_text(encoding="utf-8"))
    recorded = {r["id"]: r["total_params"] for r in data["models"]}
    own = {m["id"] for m in json.loads((OUT.parent / "models.json").read_text(encoding="utf-8"))["models"]}
    raw = [] if argv[0] == "--merge" else _raw_entries(Path(argv[0]))
    wanted = [e for e in raw + _our_entries() if e["id"] not in own]
    rows = [r for r in (entry(e, recorded, data["transformers"]) for e in wanted) if r is not None]
    if argv[0] == "--merge":
        rows = _merged(rows)
    rank = {f: i for i, f in enumerate(families())}
    rows.sort(key=lambda r: (rank.get(r["family"], len(rank)), r["source"]["total_params"]))
    doc = {"schema": 1, "note": "Written by tools/catalog_import.py: ModelSpec dumps from the engine's importer; "
           "each entry's source says where its architecture and its parameter total come from.", "models": rows}
    OUT.write_text(json.dumps(doc, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    print(f"{len(rows)} models written to {OUT.relative_to(REPO)}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
