"""gui.widgets.roadmap_view: one title and one cost per engine rung, filled with the engine's numbers."""

from __future__ import annotations

from PySide6.QtWidgets import QApplication
from pytestqt.qtbot import QtBot

from engine.catalog import get_gpu, get_model
from engine.specs import Checkpointing, DatasetStorage, HostSetup, LoraSpec, Method, Precision, TrainingSetup
from engine.training.advisor import Rung, Step, roadmap
from engine.units import Unit, format_bytes
from gui.text import i18n
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
    steps = roadmap(get_model("llama-3.1-70b"), TrainingSetup(method=Method.QLORA, gpus=2, seq_len=2048), RTX4090)
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


def test_host_rungs_show_the_nodes_host_ram_in_both_languages(qtbot: QtBot, qapp: QApplication) -> None:
    """70B QLoRA on one node of 8 GPUs, a billion tokens as Python lists, 256 GB of RAM: the host rungs, under
    their own heading, each with the node's host RAM, not the GPU's bytes."""
    s = TrainingSetup(method=Method.QLORA, gpus=8, checkpointing=Checkpointing.FULL,
                      host=HostSetup(dataset_tokens=10**9, dataset_storage=DatasetStorage.PYTHON_LISTS,
                                     num_workers=4, ram_bytes=256 * 10**9))
    steps = roadmap(get_model("llama-2-70b"), s, get_gpu("h100-80gb"))
    assert [step.key for step in steps] == [Rung.ARROW, Rung.RANK0_LOADING]
    view = RoadmapView()
    qtbot.addWidget(view)
    view.show_steps(steps, None, None, Unit.GB)
    text = view.table.text()
    assert "Host RAM, per node" in text
    for step in steps:
        assert step_title(step) in text
        assert format_bytes(step.estimate.host_bytes, Unit.GB, 1) in text
    assert step_title(steps[0]) == "Dataset as a memory-mapped Arrow file"
    nodes = Step(Rung.NODES, s.with_(host={**s.host.model_dump(), "nodes": 4}), steps[-1].estimate)
    assert step_title(nodes) == "The same GPUs over 4 nodes"
    i18n.set_language(qapp, "zh_TW")
    try:
        assert step_title(steps[0]) == "資料集改存為記憶體映射的 Arrow 檔"
        assert step_title(nodes) == "同樣的 GPU 分散到 4 個節點"
        assert "啟動時廣播一次" in step_cost(steps[1])
    finally:
        i18n.set_language(qapp, "en")


def test_the_options_that_fit_come_fastest_first(qtbot: QtBot) -> None:
    """Issue 29: under the roadmap, the changes that make the run fit ordered by time, each with its tokens/s."""
    from engine.timing.choices import fitting_options

    s = TrainingSetup(seq_len=1024)
    options = fitting_options(M, s, RTX4090)
    assert options
    speeds = [o.tokens_per_second for o in options]
    assert speeds == sorted(speeds, reverse=True)
    assert all(o.estimate.fits for o in options)
    view = RoadmapView()
    qtbot.addWidget(view)
    view.show_options(options)
    text = view.options.text()
    assert "Options that fit, fastest first" in text
    assert f"{options[0].tokens_per_second:,.0f} tokens/s" in text
    view.show_options([])
    assert view.options.isHidden()
