"""gui.files.breakdown_table: CSV, JSON, Markdown and TSV hold the engine's numbers exactly (no Qt)."""

from __future__ import annotations

import csv
import io
import json

from engine.catalog import get_gpu, get_model
from engine.results import Term, with_shares
from engine.specs import ParallelSpec, TrainingSetup
from engine.training import Estimate, estimate
from gui.files.breakdown_table import Breakdown, Stage, to_csv, to_json, to_markdown, to_tsv, training_title

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


def _staged() -> tuple[Breakdown, Estimate]:
    """Llama 2 7B over 4 pipeline stages: the most loaded stage's terms, and every stage's."""
    s = TrainingSetup(gpus=4, parallel=ParallelSpec(pp=4, micro_batches=8))
    e = estimate(M, s, G)
    stages = tuple(Stage(r.stage, r.layers, r.device_terms, r.stage == e.most_loaded_stage) for r in e.ranks)
    return Breakdown.of(training_title(M, s, G), e.device_terms, stages), e


def test_a_pipeline_exports_every_stage() -> None:
    b, e = _staged()
    rows = list(csv.DictReader(io.StringIO(to_csv(b))))
    assert list(rows[0]) == ["stage", "first_layer", "last_layer", "most_loaded", "term", "label", "bytes", "share",
                             "formula", "source"]
    for r in e.ranks:
        mine = [row for row in rows if int(row["stage"]) == r.stage]
        assert [int(row["bytes"]) for row in mine] == [t.bytes for t in r.device_terms]
        assert sum(int(row["bytes"]) for row in mine) == r.device_bytes
        assert {(row["first_layer"], row["last_layer"]) for row in mine} == {(str(r.layers[0]), str(r.layers[1]))}
        assert {row["most_loaded"] for row in mine} == {str(r.stage == e.most_loaded_stage)}
    doc = json.loads(to_json(b))
    assert doc["total_bytes"] == e.device_bytes  # the top-level terms stay the most loaded stage's
    assert [(st["stage"], st["layers"], st["total_bytes"], st["most_loaded"]) for st in doc["stages"]] == [
        (r.stage, list(r.layers), r.device_bytes, r.stage == e.most_loaded_stage) for r in e.ranks]
    md = to_markdown(b, str.upper).splitlines()
    header = next(line for line in md if line.startswith("| stage | layers |"))
    assert header.split(" | ")[2] == "WEIGHTS"
    stage_lines = md[md.index(header) + 2:]
    assert len(stage_lines) == len(e.ranks)
    for line, r in zip(stage_lines, e.ranks, strict=True):
        assert line.endswith(f"{r.device_bytes:,}** |" if r.stage == e.most_loaded_stage else f"{r.device_bytes:,} |")
    assert to_tsv(b).splitlines()[0].split("\t")[:5] == ["stage", "first_layer", "last_layer", "most_loaded", "term"]


def test_without_stages_the_table_is_unchanged() -> None:
    assert "stage" not in to_csv(B).splitlines()[0]
    assert "stages" not in json.loads(to_json(B))
    assert "| stage |" not in to_markdown(B)
