"""A memory breakdown as a table: CSV, JSON and Markdown, written without Qt (tested headless).

The numbers are the engine's ``Term``s unchanged: the exact bytes, the share of the total, the formula and its
source. ``label`` is the display name in the user's language (the caller passes it in); ``term`` is the engine's
name, stable for scripts. Column names are English in every language: they are a file format.

With a pipeline-parallel layout the breakdown also holds every stage's terms on one of its GPUs (``stages``):
CSV and TSV then list one row per stage and term (columns ``STAGE_COLUMNS`` first), JSON adds ``stages`` beside
the most loaded stage's ``terms``, and Markdown adds a table of stages by terms.
"""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Callable
from dataclasses import dataclass

from engine.results import Term
from engine.specs import GpuSpec, ModelSpec, TrainingSetup

COLUMNS = ("term", "label", "bytes", "share", "formula", "source")
STAGE_COLUMNS = ("stage", "first_layer", "last_layer", "most_loaded")
FORMAT = "vramlab-breakdown"


@dataclass(frozen=True, slots=True)
class Stage:
    """One pipeline stage on one of its GPUs: its layers (first, last) and the engine's terms there."""

    stage: int
    layers: tuple[int, int]
    terms: tuple[Term, ...]
    most_loaded: bool = False

    @property
    def total_bytes(self) -> int:
        return sum(t.bytes for t in self.terms)


@dataclass(frozen=True, slots=True)
class Breakdown:
    """What a page offers for export: a one-line title (model, method, GPU) and the engine's terms (with a
    pipeline layout: the most loaded stage's, and every stage's in ``stages``)."""

    title: str
    terms: tuple[Term, ...]
    stages: tuple[Stage, ...] = ()

    @property
    def total_bytes(self) -> int:
        return sum(t.bytes for t in self.terms)

    @classmethod
    def of(cls, title: str, terms: tuple[Term, ...] | list[Term], stages: tuple[Stage, ...] = ()) -> Breakdown:
        """The engine's terms as they are (shares included: ``engine.results.with_shares``)."""
        return cls(title, tuple(terms), stages)


def training_title(m: ModelSpec, s: TrainingSetup, gpu: GpuSpec) -> str:
    """One line naming a training scenario: model, method, precision, tokens, GPUs."""
    return (f"{m.label} · {s.method.value} · {s.precision.value} · {s.seq_len:,} tokens × batch {s.batch} · "
            f"{s.gpus} × {gpu.name}")


Labeler = Callable[[str], str]


def _term_row(t: Term, label: Labeler) -> dict[str, object]:
    return {"term": t.name, "label": label(t.name), "bytes": t.bytes, "share": t.share, "formula": t.formula,
            "source": t.source}


def rows(b: Breakdown, label: Labeler = str) -> list[dict[str, object]]:
    """One dict per term, keys ``COLUMNS``; with stages, one per stage and term, keys ``STAGE_COLUMNS`` first."""
    if not b.stages:
        return [_term_row(t, label) for t in b.terms]
    return [{"stage": st.stage, "first_layer": st.layers[0], "last_layer": st.layers[1],
             "most_loaded": st.most_loaded, **_term_row(t, label)} for st in b.stages for t in st.terms]


def _columns(b: Breakdown) -> tuple[str, ...]:
    return (*STAGE_COLUMNS, *COLUMNS) if b.stages else COLUMNS


def to_csv(b: Breakdown, label: Labeler = str) -> str:
    out = io.StringIO()
    writer = csv.DictWriter(out, fieldnames=_columns(b), lineterminator="\n")
    writer.writeheader()
    for row in rows(b, label):
        writer.writerow({**row, "share": f"{row['share']:.6f}"})
    return out.getvalue()


def to_json(b: Breakdown, label: Labeler = str) -> str:
    doc: dict[str, object] = {"format": FORMAT, "version": 1, "title": b.title, "total_bytes": b.total_bytes,
                              "terms": [_term_row(t, label) for t in b.terms]}
    if b.stages:
        doc["stages"] = [{"stage": st.stage, "layers": list(st.layers), "most_loaded": st.most_loaded,
                          "total_bytes": st.total_bytes, "terms": [_term_row(t, label) for t in st.terms]}
                         for st in b.stages]
    return json.dumps(doc, indent=2, ensure_ascii=False) + "\n"


def _cell(text: object) -> str:
    return str(text).replace("|", "\\|").replace("\n", " ")


def to_markdown(b: Breakdown, label: Labeler = str) -> str:
    """A GitHub-flavoured table: label, bytes (exact), share (percent, one decimal), formula, source; with stages,
    then a table of stages (rows) by terms (columns), bytes exact, the most loaded in bold."""
    lines = [f"**{_cell(b.title)}**", "", "| term | bytes | share | formula | source |",
             "| --- | ---: | ---: | --- | --- |"]
    for t in b.terms:
        cells = (label(t.name), f"{t.bytes:,}", f"{t.share:.1%}", t.formula, t.source)
        lines.append("| " + " | ".join(_cell(c) for c in cells) + " |")
    lines.append(f"| **total** | **{b.total_bytes:,}** | 100.0% | | |")
    return "\n".join(lines + _stage_markdown(b, label)) + "\n"


def _stage_markdown(b: Breakdown, label: Labeler) -> list[str]:
    if not b.stages:
        return []
    names = [t.name for t in b.stages[0].terms]
    lines = ["", "| stage | layers | " + " | ".join(_cell(label(n)) for n in names) + " | total |",
             "| ---: | --- | " + " | ".join("---:" for _ in names) + " | ---: |"]
    for st in b.stages:
        by_name = {t.name: t.bytes for t in st.terms}
        mark = "**" if st.most_loaded else ""
        cells = [f"{mark}{st.stage}{mark}", f"{st.layers[0]}–{st.layers[1]}",
                 *(f"{by_name.get(n, 0):,}" for n in names), f"{mark}{st.total_bytes:,}{mark}"]
        lines.append("| " + " | ".join(cells) + " |")
    return lines


def to_tsv(b: Breakdown, label: Labeler = str) -> str:
    """Tab-separated, for the clipboard (spreadsheets paste it into cells)."""
    lines = ["\t".join(_columns(b))]
    lines += ["\t".join(_cell(v) for v in row.values()) for row in rows(b, label)]
    return "\n".join(lines) + "\n"
