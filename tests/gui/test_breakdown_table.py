"""gui.breakdown_table: CSV, JSON, Markdown and TSV hold the engine's numbers exactly (no Qt)."""

from __future__ import annotations

import csv
import io
import json

from engine.catalog import get_gpu, get_model
from engine.results import Term, with_shares
from engine.specs import TrainingSetup
from engine.training import estimate
from gui.breakdown_table import Breakdown, to_csv, to_json, to_markdown, to_tsv, training_title

M, S, G = get_model("llama-2-7b"), TrainingSetup(), get_gpu("a100-80gb")
TERMS = estimate(M, S, G).device_terms
B = Breakdown.of(training_title(M, S, G), TERMS)


def test_csv_reads_back_to_the_engines_terms() -> None:
    rows = list(csv.DictReader(io.StringIO(to_csv(B, str.upper))))
    assert [r["term"] for r in rows] == [t.name for t in TERMS]
    assert [r["label"] for r in rows] == [t.name.upper() for t in TERMS]
    assert [int(r["bytes"]) for r in rows] == [t.bytes for t in TERMS]
    assert [round(float(r["share"]), 6) for r in rows] == [round(t.share, 6) for t in TERMS]
    assert [(r["formula"], r["source"]) for r in rows] == [(t.formula, t.source) for t in TERMS]


def test_json_reads_back_to_the_engines_terms() -> None:
    doc = json.loads(to_json(B))
    assert doc["format"] == "vramlab-breakdown"
    assert doc["title"].startswith("Llama 2 7B")
    assert doc["total_bytes"] == sum(t.bytes for t in TERMS) == estimate(M, S, G).device_bytes
    assert [(r["term"], r["bytes"], r["share"], r["formula"], r["source"]) for r in doc["terms"]] == [
        (t.name, t.bytes, t.share, t.formula, t.source) for t in TERMS]


def test_markdown_table_rows() -> None:
    lines = to_markdown(B).splitlines()
    assert lines[2] == "| term | bytes | share | formula | source |"
    body = [line for line in lines[4:] if not line.startswith("| **total**")]
    for line, t in zip(body, TERMS, strict=True):
        cells = [c.strip() for c in line.strip("|").split(" | ")]
        assert cells[0] == t.name
        assert int(cells[1].replace(",", "")) == t.bytes
        assert abs(float(cells[2].rstrip("%")) - 100 * t.share) <= 0.05
    assert f"**{sum(t.bytes for t in TERMS):,}**" in lines[-1]


def test_pipes_are_escaped_and_shares_come_from_the_engine() -> None:
    b = Breakdown.of("t", with_shares([Term("a", 3, "x | y", "s"), Term("b", 1, "z", "s")]))
    assert [t.share for t in b.terms] == [0.75, 0.25]
    assert "x \\| y" in to_markdown(b)
    assert to_tsv(b).splitlines()[1].split("\t")[:3] == ["a", "a", "3"]
