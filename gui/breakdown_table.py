"""A memory breakdown as a table: CSV, JSON and Markdown, written without Qt (tested headless).

The numbers are the engine's ``Term``s unchanged: the exact bytes, the share of the total, the formula and its
source. ``label`` is the display name in the user's language (the caller passes it in); ``term`` is the engine's
name, stable for scripts. Column names are English in every language: they are a file format.
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
FORMAT = "vramlab-breakdown"


@dataclass(frozen=True, slots=True)
class Breakdown:
    """What a page offers for export: a one-line title (model, method, GPU) and the engine's terms."""

    title: str
    terms: tuple[Term, ...]

    @property
    def total_bytes(self) -> int:
        return sum(t.bytes for t in self.terms)

    @classmethod
    def of(cls, title: str, terms: tuple[Term, ...] | list[Term]) -> Breakdown:
        """The engine's terms as they are (shares included: ``engine.results.with_shares``)."""
        return cls(title, tuple(terms))


def training_title(m: ModelSpec, s: TrainingSetup, gpu: GpuSpec) -> str:
    """One line naming a training scenario: model, method, precision, tokens, GPUs."""
    return (f"{m.label} · {s.method.value} · {s.precision.value} · {s.seq_len:,} tokens × batch {s.batch} · "
            f"{s.gpus} × {gpu.name}")


Labeler = Callable[[str], str]


def rows(b: Breakdown, label: Labeler = str) -> list[dict[str, object]]:
    """One dict per term, keys ``COLUMNS``."""
    return [{"term": t.name, "label": label(t.name), "bytes": t.bytes, "share": t.share, "formula": t.formula,
             "source": t.source} for t in b.terms]


def to_csv(b: Breakdown, label: Labeler = str) -> str:
    out = io.StringIO()
    writer = csv.DictWriter(out, fieldnames=COLUMNS, lineterminator="\n")
    writer.writeheader()
    for row in rows(b, label):
        writer.writerow({**row, "share": f"{row['share']:.6f}"})
    return out.getvalue()


def to_json(b: Breakdown, label: Labeler = str) -> str:
    doc = {"format": FORMAT, "version": 1, "title": b.title, "total_bytes": b.total_bytes, "terms": rows(b, label)}
    return json.dumps(doc, indent=2, ensure_ascii=False) + "\n"


def _cell(text: object) -> str:
    return str(text).replace("|", "\\|").replace("\n", " ")


def to_markdown(b: Breakdown, label: Labeler = str) -> str:
    """A GitHub-flavoured table: label, bytes (exact), share (percent, one decimal), formula, source."""
    lines = [f"**{_cell(b.title)}**", "", "| term | bytes | share | formula | source |",
             "| --- | ---: | ---: | --- | --- |"]
    for t in b.terms:
        cells = (label(t.name), f"{t.bytes:,}", f"{t.share:.1%}", t.formula, t.source)
        lines.append("| " + " | ".join(_cell(c) for c in cells) + " |")
    lines.append(f"| **total** | **{b.total_bytes:,}** | 100.0% | | |")
    return "\n".join(lines) + "\n"


def to_tsv(b: Breakdown, label: Labeler = str) -> str:
    """Tab-separated, for the clipboard (spreadsheets paste it into cells)."""
    lines = ["\t".join(COLUMNS)]
    lines += ["\t".join(_cell(v) for v in row.values()) for row in rows(b, label)]
    return "\n".join(lines) + "\n"
