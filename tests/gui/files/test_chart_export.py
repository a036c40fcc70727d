"""gui.files.chart_export: a widget as PNG at a scale, as SVG with vectors and text, to the clipboard; errors named.

(The File menu's use of it, page by page, is tested in ``test_export_actions.py``.)"""

from __future__ import annotations

from pathlib import Path

import pyqtgraph as pg
import pytest
from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import QGraphicsView, QLabel, QVBoxLayout, QWidget
from pytestqt.qtbot import QtBot

from gui.files import chart_export


@pytest.fixture
def chart(qtbot: QtBot) -> QWidget:
    holder = QWidget()
    qtbot.addWidget(holder)
    layout = QVBoxLayout(holder)
    layout.addWidget(QLabel("peak 86.4 GB", holder))
    plot = pg.PlotWidget(holder)
    plot.plot([1, 2, 3], [3, 1, 2])
    layout.addWidget(plot)
    holder.resize(300, 200)
    return holder


@pytest.mark.parametrize("scale", chart_export.SCALES)
def test_png_is_the_widget_times_the_scale(chart: QWidget, tmp_path: Path, scale: int) -> None:
    size = chart_export.save_png(chart, tmp_path / "c.png", scale)
    assert (size.width(), size.height()) == (300 * scale, 200 * scale)
    assert (tmp_path / "c.png").read_bytes().startswith(b"\x89PNG")


def test_svg_has_text_and_paths_and_the_caches_come_back(chart: QWidget, tmp_path: Path) -> None:
    view = chart.findChild(QGraphicsView)
    assert view is not None
    view.setCacheMode(QGraphicsView.CacheModeFlag.CacheBackground)
    chart_export.save_svg(chart, tmp_path / "c.svg", "My chart")
    svg = (tmp_path / "c.svg").read_text(encoding="utf-8")
    assert "<title>My chart</title>" in svg
    assert "peak 86.4 GB" in svg
    assert "<path" in svg or "<polyline" in svg
    assert view.cacheMode() == QGraphicsView.CacheModeFlag.CacheBackground


def test_clipboard(chart: QWidget) -> None:
    image = chart_export.copy_image(chart)
    assert image.width() == 600
    assert QGuiApplication.clipboard().image().width() == 600
    chart_export.copy_table("term\tbytes\nweights\t1\n")
    assert QGuiApplication.clipboard().text().startswith("term\tbytes")


def test_failures_name_the_file(chart: QWidget, tmp_path: Path) -> None:
    missing = tmp_path / "no" / "such" / "folder"
    with pytest.raises(chart_export.ExportError, match=r"cannot write .*c\.png"):
        chart_export.save_png(chart, missing / "c.png")
    with pytest.raises(chart_export.ExportError, match=r"cannot write .*c\.csv"):
        chart_export.write_text(missing / "c.csv", "x")
    chart_export.write_text(tmp_path / "ok.md", "| 二 |")
    assert (tmp_path / "ok.md").read_text(encoding="utf-8") == "| 二 |"
