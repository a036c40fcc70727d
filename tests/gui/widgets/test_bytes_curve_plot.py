"""gui.widgets.bytes_curve_plot: log-log ticks named in bytes, curves redrawn only when they change."""

from __future__ import annotations

import numpy as np
from pytestqt.qtbot import QtBot

from gui.widgets.bytes_curve_plot import _BYTE_NAMES, BytesCurvePlot, Curve, _labels


def test_ticks_at_powers_of_ten() -> None:
    assert _labels(2.5, 6.2, _BYTE_NAMES, " ") == [(2.0, "100 B"), (3.0, "1 kB"), (4.0, "10 kB"), (5.0, "100 kB"),
                                                     (6.0, "1 MB"), (7.0, "10 MB")]


def test_curves_and_marker(qtbot: QtBot) -> None:
    plot = BytesCurvePlot()
    qtbot.addWidget(plot)
    lengths = np.array([16.0, 256.0, 4096.0])
    curves = [Curve("scores", lengths**2 * 2, "scores"), Curve("kept", lengths * 4, "flash")]
    plot.set_curves(lengths, curves, (80e9, "A100 80 GB"))
    assert plot.curve_names() == ["scores", "kept"]
    drawn = list(plot._items)
    plot.set_curves(lengths, [Curve("scores", lengths**2 * 2, "scores"), Curve("kept", lengths * 4, "flash")],
                    (80e9, "A100 80 GB"))
    assert plot._items == drawn  # the same curves: nothing redrawn
    plot.set_curves(lengths, curves[:1])
    assert plot.curve_names() == ["scores"]
    plot.set_marker(4096, 2**25)
    x, y = plot._marker.getData()
    assert (x[0], y[0]) == (np.log10(4096), np.log10(2**25))
