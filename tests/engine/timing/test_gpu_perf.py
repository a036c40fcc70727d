"""The GPU performance catalog (engine/catalog/gpu_perf.json): every catalog GPU has figures or is refused by
name, every entry its source, and the figures hang together."""

from __future__ import annotations

import json
import re

import pytest

from engine.catalog import gpus
from engine.specs import GpuSpec
from engine.timing.hardware import DATA, CannotTimeError, gpu_perf, known_ids, refused_ids

RAW = json.loads(DATA.read_text(encoding="utf-8"))


@pytest.mark.parametrize("gpu", gpus(), ids=lambda g: g.id)
def test_every_catalog_gpu_has_figures_or_a_reason(gpu: GpuSpec) -> None:
    if gpu.id in refused_ids():
        with pytest.raises(CannotTimeError, match=f"cannot time {re.escape(gpu.name)}"):
            gpu_perf(gpu)
    else:
        assert gpu.id in known_ids()
        assert gpu_perf(gpu).hbm > 0


@pytest.mark.parametrize("entry", RAW["gpus"], ids=lambda d: d["id"])
def test_entries_are_sourced_and_consistent(entry: dict[str, object]) -> None:
    assert "http" in str(entry["source"])
    peak = entry["peak_tflops"]
    assert isinstance(peak, dict)
    half = peak.get("bf16", peak.get("fp16"))
    assert half is not None
    assert half > 0
    if "fp8" in peak and entry["arch"] != "gaudi3":  # Gaudi 3's MMEs run FP8 at the BF16 rate (its white paper)
        assert peak["fp8"] == pytest.approx(2 * half, rel=0.02)  # FP8 tensor cores run at twice 16-bit
    assert peak.get("fp32", 0) <= half
    mamf = entry.get("mamf_tflops", {})
    assert isinstance(mamf, dict)
    for dtype, value in mamf.items():
        assert value < peak[dtype]  # achievable below the datasheet's peak


def test_issue_27_cards_are_covered() -> None:
    ids = known_ids()
    for card in ("a40", "l40", "h100-nvl", "h20", "gh200", "b300", "mi250x", "gaudi-3",
                 "rtx-5080-laptop", "rtx-3060", "rtx-4080", "rtx-2080-ti"):
        assert card in ids, card
