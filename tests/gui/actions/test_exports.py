"""gui.actions.exports / gui.files.chart_export: every export format written, read back and checked; the clipboard."""

from __future__ import annotations

import csv
import io
import json
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QGuiApplication, QImage
from pytestqt.qtbot import QtBot

from engine.training import estimate
from gui.look.theme import ThemeManager
from gui.pages import PAGE_IDS
from gui.shell.main_window import MainWindow
from gui.state.scenario import Scenario
from gui.text.words import term_title


def current(win: MainWindow) -> Any:
    """The page on top, typed loosely: tests reach into page-specific attributes."""
    return win.pages.currentWidget()

@pytest.fixture
def window(qtbot: QtBot, theme: ThemeManager) -> MainWindow:
    win = MainWindow(Scenario(), theme)
    qtbot.addWidget(win)
    win.setAttribute(Qt.WidgetAttribute.WA_DontShowOnScreen, True)
    win.resize(1280, 800)
    win.show()
    return win


def engine_terms(win: MainWindow) -> list[tuple[str, int]]:
    sc = win.scenario
    return [(t.name, t.bytes) for t in estimate(sc.model, sc.setup, sc.gpu).device_terms]


@pytest.mark.parametrize("scale", [1, 2, 3])
def test_png_at_each_scale(window: MainWindow, tmp_path: Path, scale: int) -> None:
    chart = window.exports.export_png  # the memory page's breakdown bar
    path = chart(scale, tmp_path / f"chart{scale}.png")
    assert path is not None
    image = QImage(str(path))
    widget = current(window).export_chart()
    assert (image.width(), image.height()) == (widget.width() * scale, widget.height() * scale)
    pixels = {image.pixel(x, y) for x in range(0, image.width(), 7) for y in range(0, image.height(), 7)}
    assert len(pixels) > 6  # not blank: bars in several colours


def test_svg_parses_and_holds_vectors_and_text(window: MainWindow, tmp_path: Path) -> None:
    path = window.exports.export_svg(tmp_path / "chart.svg")
    assert path is not None
    root = ET.parse(path).getroot()
    assert root.tag.endswith("svg")
    svg = "{http://www.w3.org/2000/svg}"
    assert root.findtext(f"{svg}title", "").startswith("Llama 2 7B")
    assert len(list(root.iter(f"{svg}path"))) >= 5  # one vector path per bar segment
    assert not list(root.iter(f"{svg}image"))  # no cached pixmaps: everything is vector
    text = "".join(root.itertext())
    assert "This setup" in text  # text stays text
    assert "GB" in text


def test_csv_json_markdown_equal_the_engine(window: MainWindow, tmp_path: Path) -> None:
    window.scenario.update(seq_len=8192, batch=2)
    expected = engine_terms(window)
    text = (window.exports.export_table("csv", tmp_path / "b.csv") or Path()).read_text(encoding="utf-8")
    rows = list(csv.DictReader(io.StringIO(text)))
    assert [(r["term"], int(r["bytes"])) for r in rows] == expected
    assert [r["label"] for r in rows] == [term_title(n) for n, _ in expected]
    doc = json.loads((window.exports.export_table("json", tmp_path / "b.json") or Path()).read_text())
    assert [(r["term"], r["bytes"]) for r in doc["terms"]] == expected
    md = (window.exports.export_table("md", tmp_path / "b.md") or Path()).read_text().splitlines()[4:-1]
    assert [int(line.split(" | ")[1].replace(",", "")) for line in md] == [b for _, b in expected]


def test_clipboard_chart_and_table(window: MainWindow) -> None:
    clipboard = QGuiApplication.clipboard()
    window.actions_by_id["copy:chart"].trigger()
    image = clipboard.image()
    widget = current(window).export_chart()
    assert (image.width(), image.height()) == (widget.width() * 2, widget.height() * 2)
    window.actions_by_id["copy:table"].trigger()
    lines = clipboard.text().splitlines()
    assert lines[0].split("\t")[:3] == ["term", "label", "bytes"]
    assert [(line.split("\t")[0], int(line.split("\t")[2])) for line in lines[1:]] == engine_terms(window)


def test_every_page_offers_a_chart_and_actions_follow_the_page(window: MainWindow, tmp_path: Path) -> None:
    for page_id in PAGE_IDS:
        window.pages.show_page(page_id)
        assert window.actions_by_id["export:png2"].isEnabled(), page_id
        assert window.exports.export_png(1, tmp_path / f"{page_id}.png") is not None
        has_table = window.actions_by_id["export:csv"].isEnabled()
        assert has_table == (page_id in {"memory", "levers", "serving", "timeline"})
    window.pages.show_page("memory")


def test_serving_breakdown_is_the_engines(window: MainWindow, tmp_path: Path) -> None:
    from engine.serving import serving_fit

    window.pages.show_page("serving")
    page = current(window)
    doc = json.loads((window.exports.export_table("json", tmp_path / "s.json") or Path()).read_text())
    fit = serving_fit(window.scenario.model, window.scenario.gpu, page.state.value)
    assert [(r["term"], r["bytes"]) for r in doc["terms"]] == [(t.name, t.bytes) for t in fit.terms]
    assert abs(sum(r["share"] for r in doc["terms"]) - 1) < 1e-9
    window.pages.show_page("memory")


def test_a_failed_write_says_so(window: MainWindow, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    shown: list[str] = []
    monkeypatch.setattr("gui.actions.exports.QMessageBox.warning", lambda _p, _t, text: shown.append(text))
    assert window.exports.export_table("csv", tmp_path / "missing-folder" / "b.csv") is None
    assert shown
    assert "missing-folder" in shown[0]


def test_a_serving_setup_vllm_refuses_exports_nothing_and_says_why(window: MainWindow, tmp_path: Path,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    """Fuzz seed 201 (a bug): exporting the Serving page's table while vLLM refuses the setup (TP 8 does not divide
    the heads) raised. Nothing is written, and the user is told why, in vLLM's words as the page says them."""
    shown: list[str] = []
    monkeypatch.setattr("gui.actions.exports.QMessageBox.information", lambda _p, _t, text: shown.append(text))
    window.pages.show_page("serving")
    page = current(window)
    page.state.update(tp=3)  # Llama 2 7B's 32 heads: TP 3 does not divide them
    page.flush()
    target = tmp_path / "s.json"
    assert window.exports.export_table("json", target) is None
    assert not target.exists()
    assert shown
    assert "TP 3 does not divide them" in shown[0]
    window.pages.show_page("memory")


def test_a_refused_serving_setups_chart_still_exports(window: MainWindow, tmp_path: Path) -> None:
    """The PNG's title reads the page's table; with vLLM refusing the setup it falls back to the app's name."""
    window.pages.show_page("serving")
    page = current(window)
    page.state.update(tp=3)
    page.flush()
    assert window.exports.export_png(1, tmp_path / "s.png") == tmp_path / "s.png"
    window.pages.show_page("memory")
