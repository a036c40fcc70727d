"""bench/snapshot_load.py: it measures what it says (a small run here; the 1,000,000-event figure is in the
README)."""

from __future__ import annotations

from bench import snapshot_load


def test_a_small_run_reports_its_figures() -> None:
    r = snapshot_load.measure(20_000)
    assert r.keys() >= {"events", "seconds", "cpu_seconds", "peak_rss_mb", "machine_factor"}
    assert int(r["events"]) >= 20_000
    assert 0 < float(r["seconds"]) < 60
    assert 30 < float(r["peak_rss_mb"]) < 1500
