"""gui.widgets.mla_panel: the engine's MLA against GQA comparison, in words and two bars."""

from __future__ import annotations

from pytestqt.qtbot import QtBot

from engine.serving import compare_mla
from engine.specs import KvDtype
from gui.widgets.mla_panel import MlaPanel


def test_shows_the_comparison(qtbot: QtBot) -> None:
    panel = MlaPanel()
    qtbot.addWidget(panel)
    c = compare_mla(dtype=KvDtype.FP8)
    panel.show_comparison(c)
    assert f"{c.gqa_bytes_per_token:,} bytes per token" in panel.gqa.text()
    assert f"{c.mla_bytes_per_token:,} bytes per token" in panel.mla.text()
    assert f"Like for like (fp8): {c.like_for_like:.1%} smaller" in panel.ratio.text()
    assert panel.mla_bar.share == c.mla_bytes_per_token / c.gqa_bytes_per_token < 1
    assert panel.gqa_bar.share == 1.0
    note = panel.note.text()  # the engine's note, in words the GUI translates (issue 17: it stayed English in zh_TW)
    for number in (f"{c.published:.1%}", f"{c.like_for_like:.1%}", f"{c.per_layer:.1%}", f"{c.mla_layers} vs"):
        assert number in note
    assert panel.toolTip() == c.source
