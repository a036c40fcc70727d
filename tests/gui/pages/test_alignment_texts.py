"""gui.pages.alignment_texts: every stage has its name, blurb, node labels and facts with their sources."""

from __future__ import annotations

import pytest
from pytestqt.qtbot import QtBot

from engine.alignment import FACTS, Stage
from gui.pages.alignment_texts import facts_html, intro, node_labels, stage_blurb, stage_name


@pytest.mark.parametrize("stage", list(Stage))
def test_every_stage_has_its_words(qtbot: QtBot, stage: Stage) -> None:
    assert stage_name(stage) == stage.value.upper()
    assert stage_blurb(stage)
    assert set(node_labels(stage)) == {"data", "loss"}
    html = facts_html(stage)
    assert html.count("<li>") == len(FACTS[stage])
    for fact in FACTS[stage]:
        assert fact.source.replace("&", "&amp;") in html


def test_facts_are_escaped(qtbot: QtBot) -> None:
    assert "<ul" in facts_html(Stage.DPO)
    assert intro().startswith("After SFT")
