"""The host-RAM model against every bundled measurement (calibration/host_rss.py): issue 20's 10%, checked."""

import pytest

from engine.specs import DatasetStorage
from engine.training.host import BYTES_PER_TOKEN, RUNTIME_CPU_BYTES
from engine.training.host_accuracy import host_runs, runtime_constant_matches, runtime_rows, token_rows

ROWS = host_runs()


def test_every_part_was_measured():
    ids = {r.id for r in ROWS}
    for kind in ("python-lists", "numpy", "arrow-mmap", "streaming"):
        for size in (1, 4, 16):
            for workers in (0, 2, 4):
                assert f"{kind}-{size}Mi-w{workers}" in ids
    for mode in ("full-per-process", "full-per-process-fp32", "rank0-broadcast", "meta-sharded"):
        assert {f"{mode}-rank0", f"{mode}-rank1"} <= ids


@pytest.mark.parametrize("row", [r for r in ROWS if r.comparable], ids=lambda r: r.id)
def test_each_row_within_ten_percent_of_the_measured_total(row):
    assert abs(row.error) <= 0.10, f"{row.described}: {row.error:+.1%}"


@pytest.mark.parametrize("row", [r for r in ROWS if r.comparable and r.added_bytes > 200e6], ids=lambda r: r.id)
def test_what_the_engine_models_is_within_ten_percent_where_it_is_large(row):
    """Above 200 MB the data, workers or weights dominate the fixed few MB the engine leaves out."""
    assert abs(row.added_error) <= 0.10, f"{row.described}: {row.added_error:+.1%}"


def test_runtime_constant_is_the_measured_row():
    assert runtime_constant_matches()
    assert dict(runtime_rows())["torch+transformers+meta-model"] == RUNTIME_CPU_BYTES


def test_the_issues_own_figures_hold():
    """About 40 bytes per token as lists of Python ints, 89 as dicts of three lists, 4 as int32 NumPy."""
    per = dict(token_rows())
    assert per["lists-of-ints"] == pytest.approx(40, rel=0.1)
    assert per["dicts-of-three-lists"] == pytest.approx(89, rel=0.05)
    assert per["int32-numpy"] == pytest.approx(4, rel=0.01)
    assert per["dicts-of-three-lists"] == pytest.approx(BYTES_PER_TOKEN[DatasetStorage.PYTHON_LISTS], rel=0.05)
