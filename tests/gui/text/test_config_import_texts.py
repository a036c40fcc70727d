"""gui.text.config_import_texts: the engine's sentences translated and filled; the panel's three sections; which
stage draws which alignment method."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from PySide6.QtWidgets import QApplication

from engine.alignment import Stage
from engine.catalog import get_model
from engine.config_import import AlignmentMethod, ConfigRefusedError, Message, import_configs
from engine.config_import import importer as engine_importer
from engine.config_import.messages import KNOWN_CONTENT
from engine.config_import.report import NOT_USED, show
from gui.text import config_import_texts as texts
from gui.text import i18n

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "training_configs"


@pytest.fixture
def chinese(qapp: QApplication) -> Iterator[None]:
    i18n.set_language(qapp, "zh_TW")
    try:
        yield
    finally:
        i18n.set_language(qapp, "en")


def test_sections_list_every_read_ignored_and_assumed_entry() -> None:
    imported = import_configs([FIXTURES / "axolotl/qlora-1b.yml"], default_model=get_model("llama-2-7b"))
    read, ignored, assumed = texts.sections(imported)
    r = imported.report
    assert [k for k, _ in read.rows] == list(r.read)
    assert dict(read.rows)["optimizer"] == "adamw_bnb_8bit"
    assert sorted(ignored.rows) == sorted((i.key, str(i.why)) for i in r.ignored)  # English: the engine's words
    plain = [w == str(Message(NOT_USED)) for _, w in ignored.rows]
    assert plain == sorted(plain)  # the particular reasons first
    assert not plain[0]
    assert [v for _, v in assumed.rows] == [show(v) for v in r.assumed.values()]  # true / false, as in JSON
    assert ("Precision", "bf16") in assumed.rows
    assert ("Model", "llama-3.2-1b") in assumed.rows
    assert read.title == f"Read ({len(r.read)})"
    assert not assumed.keys


def test_the_engine_sentences_are_translated(chinese: None) -> None:
    assert texts.message_text(Message(NOT_USED)) == "記憶體估算用不到這個設定"
    message = Message.of(KNOWN_CONTENT, value="ds_z3_config.json")
    assert texts.message_text(message) == "在設定檔旁找不到 ds_z3_config.json；假設為工具隨附的內容"
    imported = import_configs([FIXTURES / "axolotl/qlora-1b.yml"], default_model=get_model("llama-2-7b"))
    view = texts.report_view(imported, "記憶體", "Ctrl+Z")
    assert view.summary.startswith("qlora-1b.yml（Axolotl）：讀取 ")
    assert "編輯 ▸ 復原（Ctrl+Z）" in view.shown
    assert [s.title.split("（")[0] for s in view.sections] == ["讀取", "忽略", "假設"]
    assert ("精度", "bf16") in view.sections[2].rows


def test_a_flag_in_an_engine_sentence_becomes_the_window_s_words() -> None:
    message = Message.of(engine_importer.NOT_FOUND, value="zero3.json")
    assert "--from-config" in str(message)
    assert texts.message_text(message) == ("zero3.json was not found beside the config; select it too when you "
                                           "import, to use it")


def test_a_refusal_is_one_line_without_the_command_line_hint() -> None:
    err = ConfigRefusedError("a.yml", Message.of(NOT_USED), key="x", hint=Message.of("use --flag"))
    assert texts.refusal_line(err) == "a.yml: x: not a setting the memory estimate uses"
    assert texts.refusal_line(ValueError("b.yml: no\nsuch   file")) == "b.yml: no such file"


@pytest.mark.parametrize(
    ("method", "stage"),
    [(AlignmentMethod.DPO, Stage.DPO), (AlignmentMethod.IPO, Stage.DPO), (AlignmentMethod.KTO, Stage.DPO),
     (AlignmentMethod.PPO, Stage.PPO), (AlignmentMethod.GRPO, Stage.GRPO), (AlignmentMethod.RLOO, Stage.GRPO),
     (AlignmentMethod.ORPO, None), (AlignmentMethod.SIMPO, None), (AlignmentMethod.CPO, None),
     (AlignmentMethod.REWARD, None)],
)
def test_each_method_has_a_stage_or_says_where_it_is(method: AlignmentMethod, stage: Stage | None) -> None:
    assert texts.stage_for(method) is stage
    note = texts.alignment_note(method)
    assert ("Alignment page shows" in note) is (stage is not None)
    assert "{" not in note


def test_every_setup_field_has_a_label() -> None:
    from engine.config_import.resolve import SETUP_FIELDS

    for field in SETUP_FIELDS:
        assert texts.field_label(field.value) != field.value, field


def test_section_html_escapes_what_files_say() -> None:
    section = texts.Section("t", ("a", "b"), (("<key>", "a & b"),))
    assert "&lt;key&gt;" in texts.section_html(section)
    assert "a &amp; b" in texts.section_html(section)
    assert texts.section_html(texts.Section("t", ("a", "b"), ())) == "<p>Nothing.</p>"


def test_a_scripts_arguments_are_named_as_such(chinese: None) -> None:
    """A file that is no tool's format (issue 27): the summary names it, and the assumed format is a translated
    sentence with the script and its keys."""
    imported = import_configs([FIXTURES / "open-instruct/sft/tulu2_7b_qlora.yaml"])
    view = texts.report_view(imported, "記憶體", "Ctrl+Z")
    assert view.summary.startswith("tulu2_7b_qlora.yaml（訓練腳本自己的參數）：")
    format_row = view.sections[2].rows[0]
    assert format_row[0] == "格式"
    assert format_row[1].startswith("不是任何工具的格式：")
    assert "use_lora, use_qlora → method" in format_row[1]
