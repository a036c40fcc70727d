"""gui.widgets.stage_diagram and flow_player: boxes from the engine's roles, arrows from its flows, one step played."""

from __future__ import annotations

from PySide6.QtCore import Qt
from pytestqt.qtbot import QtBot

from engine.alignment import FLOWS, AlignmentOptions, Stage, stage_memory
from engine.catalog import get_gpu, get_model
from engine.specs import Method, TrainingSetup
from engine.units import Unit, format_bytes
from gui.widgets.stage_diagram import StageDiagram

M, GPU = get_model("llama-2-7b"), get_gpu("a100-80gb")


def _diagram(qtbot: QtBot, stage: Stage, options: AlignmentOptions | None = None) -> StageDiagram:
    view = StageDiagram()
    qtbot.addWidget(view)
    view.show_stage(stage_memory(stage, M, TrainingSetup(method=Method.LORA), GPU, options), {"loss": "L"}, Unit.GB)
    return view


def test_boxes_and_arrows_come_from_the_engine(qtbot: QtBot) -> None:
    view = _diagram(qtbot, Stage.GRPO)
    sm = stage_memory(Stage.GRPO, M, TrainingSetup(method=Method.LORA), GPU)
    texts = view.node_texts()
    for role in sm.roles:
        if role.bytes:
            assert format_bytes(role.bytes, Unit.GB) in texts[role.role.value]
    assert "no GPU memory" in texts["reward"]  # a rule
    assert "L" in texts["loss"]
    assert view.arrow_labels() == [f.label for f in FLOWS[Stage.GRPO]]


def test_absent_roles_keep_their_box_but_not_their_arrows(qtbot: QtBot) -> None:
    view = _diagram(qtbot, Stage.DPO, AlignmentOptions(dpo_precomputed_reference=True))
    assert "precomputed" in view.node_texts()["reference"]
    assert len(view.arrow_labels()) == len(FLOWS[Stage.DPO]) - 2


def test_play_runs_every_arrow_in_order_then_stops(qtbot: QtBot) -> None:
    view = _diagram(qtbot, Stage.SFT)
    view.player.step_ms = 5
    started: list[int] = []
    view.player.flow_started.connect(started.append)
    with qtbot.waitSignals([view.playing_changed, view.playing_changed], timeout=2000):
        view.play()
    assert started == [0, 1, 2]
    assert not view.player.is_playing()


def test_hiding_stops_the_animation(qtbot: QtBot) -> None:
    view = _diagram(qtbot, Stage.PPO)
    view.show()
    view.play()
    assert view.player.is_playing()
    view.hide()
    assert not view.player.is_playing()


def test_the_key_is_about_outline_styles_not_colours(qtbot: QtBot) -> None:
    """Issue 17: the key's "frozen" swatch was the policy's blue while the frozen box (the reference) is orange;
    the key now draws its three outline styles in the ink, the same colour for all."""
    from PySide6.QtWidgets import QGraphicsRectItem

    view = _diagram(qtbot, Stage.DPO)
    swatches = [i for i in view.scene().items()
                if isinstance(i, QGraphicsRectItem) and i.brush().style() == Qt.BrushStyle.NoBrush]
    assert len(swatches) == 3
    assert len({s.pen().color().name() for s in swatches}) == 1
    assert {s.pen().style() for s in swatches} == {Qt.PenStyle.SolidLine, Qt.PenStyle.DashLine, Qt.PenStyle.DotLine}


def test_the_view_is_as_tall_as_its_drawing(qtbot: QtBot) -> None:
    """Issue 17: at 1280x720 and 200% the first screen was an empty diagram box (a wide drawing fitted into a tall
    view); the view now asks for the drawing's shape."""
    for stage in Stage:
        view = _diagram(qtbot, stage)
        rect = view.sceneRect()
        assert view.hasHeightForWidth()
        assert view.heightForWidth(1000) == round(1000 * rect.height() / rect.width())
