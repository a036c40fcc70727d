"""gui.widgets.import_report: the panel shows the summary, the notes and one tab per section, and redraws itself
in the new language after a switch."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtWidgets import QApplication
from pytestqt.qtbot import QtBot

from engine.catalog import get_model
from engine.config_import import AlignmentMethod, import_configs
from gui.text import config_import_texts as texts
from gui.text import i18n
from gui.widgets.import_report import ImportReportPanel

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "training_configs"


def test_the_panel_lists_read_ignored_and_assumed(qtbot: QtBot, qapp: QApplication) -> None:
    imported = import_configs([FIXTURES / "llama-factory/examples/train_lora/llama3_lora_dpo.yaml"],
                              default_model=get_model("llama-2-7b"))
    assert imported.alignment is AlignmentMethod.DPO
    panel = ImportReportPanel()
    qtbot.addWidget(panel)
    panel.show_report(lambda: texts.report_view(imported, texts.tr("Alignment"), "Ctrl+Z"))
    assert panel.isVisible()
    assert panel.summary.text().startswith("<b>llama3_lora_dpo.yaml (LLaMA-Factory): ")
    assert "Edit ▸ Undo (Ctrl+Z)" in panel.shown.text()
    assert panel.notes.isVisibleTo(panel)
    assert "DPO" in panel.notes.text()
    r = imported.report
    titles = [panel.tabs.tabText(i) for i in range(panel.tabs.count())]
    assert titles == [f"Read ({len(r.read)})", f"Ignored ({len(r.ignored)})", f"Assumed ({len(r.assumed)})"]
    read, ignored, assumed = (b.toPlainText() for b in panel.pages)
    assert all(key in read for key in r.read)
    assert all(i.key in ignored and str(i.why) in ignored for i in r.ignored)
    assert all(texts.field_label(name) in assumed for name in r.assumed)
    i18n.set_language(qapp, "zh_TW")
    qtbot.wait(1)  # the language change is an event, delivered by the event loop
    try:
        assert panel.windowTitle() == "匯入的訓練設定檔"
        assert panel.tabs.tabText(0) == f"讀取（{len(r.read)}）"
        assert "對齊" in panel.notes.text()
    finally:
        i18n.set_language(qapp, "en")
        qtbot.wait(1)
    assert panel.tabs.tabText(0) == f"Read ({len(r.read)})"


def test_no_notes_no_note_line(qtbot: QtBot) -> None:
    imported = import_configs([FIXTURES / "torchtune/8B_full.yaml"], default_model=get_model("llama-2-7b"))
    panel = ImportReportPanel()
    qtbot.addWidget(panel)
    panel.show_report(lambda: texts.report_view(imported, "Memory", "Ctrl+Z"))
    assert not panel.notes.isVisibleTo(panel)
