"""gui.widgets.roadmap_view: one title and one cost per engine rung, filled with the engine's numbers."""

from __future__ import annotations

from pytestqt.qtbot import QtBot

from engine.catalog import get_gpu, get_model
from engine.specs import LoraSpec, Method, Precision, TrainingSetup
from engine.training.advisor import Rung, roadmap
from engine.units import Unit, format_bytes
from gui.widgets.roadmap_view import COSTS, TITLES, RoadmapView, step_cost, step_title

M = get_model("llama-2-7b")
RTX4090 = get_gpu("rtx-4090")


def test_every_rung_has_a_title_and_a_cost() -> None:
    assert set(TITLES) == set(COSTS) == set(Rung)


def test_titles_and_costs_carry_the_engines_numbers(qtbot: QtBot) -> None:
    steps = roadmap(M, TrainingSetup(precision=Precision.FP32, lora=LoraSpec(rank=64)), RTX4090)
    by_key = {s.key: s for s in steps}
    assert step_title(by_key[Rung.LORA]) == "LoRA (rank 64)"
    lora = by_key[Rung.LORA].estimate
    assert f"~{lora.trainable_params / lora.total_params:.1%} of the weights" in step_cost(by_key[Rung.LORA])
    assert step_cost(by_key[Rung.CHECKPOINTING]) == ("about 20%–40% more compute per step "
                                                     "(H200: +28% full, +56% LoRA)")


def test_more_gpus_names_how_many(qtbot: QtBot) -> None:
    steps = roadmap(get_model("llama-3.1-70b"), TrainingSetup(method=Method.QLORA, gpus=2), RTX4090)
    assert steps[-1].key is Rung.GPUS
    assert step_title(steps[-1]) == f"{steps[-1].setup.gpus} GPUs with ZeRO-3"


def test_the_view_lists_each_step_with_its_peak(qtbot: QtBot) -> None:
    view = RoadmapView()
    qtbot.addWidget(view)
    steps = roadmap(M, TrainingSetup(), RTX4090)
    view.show_steps(steps, 2048, 1, Unit.GB)
    for step in steps:
        assert step_title(step) in view.table.text()
        assert format_bytes(step.estimate.device_bytes, Unit.GB, 1) in view.table.text()
    assert "2,048 tokens" in view.limits.text()
    view.show_steps([], None, None, Unit.GB)
    assert view.heading.text().startswith("<b>It fits.</b>")
    assert not view.table.isVisibleTo(view)
    assert "none" in view.limits.text()


def test_long_context_rungs_are_worded(qtbot: QtBot) -> None:
    steps = roadmap(get_model("llama-3.1-8b"), TrainingSetup(method=Method.LORA, seq_len=131_072),
                    get_gpu("h100-80gb"))
    titles = {"Gradient checkpointing", "Chunked loss (TRL chunked_nll)", "Fused linear cross-entropy",
              "Offload activations to CPU RAM"}
    assert {step_title(s) for s in steps} <= titles
    assert "Chunked loss (TRL chunked_nll)" in [step_title(s) for s in steps]
    chunked = next(s for s in steps if s.key is Rung.CHUNKED_LOSS)
    assert "(about 2% more compute for this model)" in step_cost(chunked)  # Llama 3.1 8B: V h / (3 params)


def test_the_chunked_rung_names_trl(qtbot: QtBot) -> None:
    steps = roadmap(get_model("llama-3.1-8b"), TrainingSetup(method=Method.LORA, seq_len=32_768), get_gpu("l40s"))
    assert "TRL" in step_title(steps[-1])
    assert "chunked_nll" in step_cost(steps[-1])
