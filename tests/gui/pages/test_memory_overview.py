"""gui.pages.memory_overview: the Overview tab on its own, every number the engine's."""

from __future__ import annotations

import pytest
from pytestqt.qtbot import QtBot

from engine.catalog import get_gpu
from engine.specs import Method, Sharding, Stack
from engine.training import estimate
from engine.training.sweep import sweep_gpus, sweep_seq_len
from gui.pages.memory_overview import COMPARED, GPU_POINTS, SEQ_POINTS, OverviewSection
from gui.state.scenario import Scenario


@pytest.fixture
def section(qtbot: QtBot) -> OverviewSection:
    s = OverviewSection(Scenario())
    qtbot.addWidget(s)
    s.resize(900, 700)
    return s


def test_nothing_is_built_before_it_is_asked_for_or_painted(section: OverviewSection) -> None:
    assert not any(view.built for view in section.views)
    for step in section.steps():  # a change before the views exist draws nothing, and fails nothing
        step()
    assert not any(view.built for view in section.views)


def test_each_view_shows_the_engines_numbers(section: OverviewSection) -> None:
    sc = section.scenario
    sc.update(method=Method.LORA, gpu=get_gpu("h100-80gb"))
    section.build_views()
    rows = section.compare.rows()
    assert [r.highlight for r in rows] == [k is Method.LORA for k in COMPARED]  # Full / LoRA / QLoRA
    for k, row in zip(COMPARED, rows, strict=True):
        assert sum(t.bytes for t in row.terms) == estimate(sc.model, sc.setup.with_(method=k), sc.gpu).device_bytes
    x, y = section.seq_curve.data()
    want = sweep_seq_len(sc.model, sc.setup, sc.gpu, SEQ_POINTS)
    assert list(x) == list(want.x)
    assert list(y) == [v / sc.unit.size for v in want.device]
    wide = sc.setup.with_(sharding=Sharding.ZERO3)  # one GPU, no sharding: the GPU-count curve shards with ZeRO-3
    assert section.curve_setup() == wide
    x, y = section.gpu_curve.data()
    g = sweep_gpus(sc.model, wide, sc.gpu, [n for n in GPU_POINTS if n <= 64])
    assert (list(x), list(y)) == (list(g.x), [v / sc.unit.size for v in g.device])
    assert "the GPU-count curve uses ZeRO-3" in section.notes.text()


def test_the_gpu_curve_shards_as_far_as_the_stack_does(section: OverviewSection) -> None:
    """A bug: the curve sharded a Megatron-LM setup with ZeRO-3, which its distributed optimizer does not run
    (engine.training.stacks.check), and the curve raised StackError; it shards with ZeRO-1 there."""
    sc = section.scenario
    sc.update(stack=Stack.MEGATRON)
    section.build_views()
    wide = sc.setup.with_(sharding=Sharding.ZERO1)
    assert section.curve_setup() == wide
    x, y = section.gpu_curve.data()
    g = sweep_gpus(sc.model, wide, sc.gpu, [n for n in GPU_POINTS if n <= 64])
    assert (list(x), list(y)) == (list(g.x), [v / sc.unit.size for v in g.device])
    assert "the GPU-count curve uses ZeRO-1" in section.notes.text()


def test_a_change_redraws_each_built_view_in_its_own_step(section: OverviewSection) -> None:
    section.build_views()
    before = section.compare.rows()
    section.scenario.update(method=Method.QLORA)
    compare, *_ = section.steps()
    compare()
    assert [r.highlight for r in section.compare.rows()] == [False, False, True]
    assert section.compare.rows() != before


def test_the_comparison_adds_the_setups_own_method(section: OverviewSection) -> None:
    """Issue 27's methods join Full / LoRA / QLoRA one at a time: the one the setup uses, highlighted."""
    sc = section.scenario
    sc.update(method=Method.OFT, gpu=get_gpu("h100-80gb"))
    section.build_views()
    rows = section.compare.rows()
    assert [r.highlight for r in rows] == [False, False, False, True]
    assert sum(t.bytes for t in rows[-1].terms) == estimate(sc.model, sc.setup, sc.gpu).device_bytes


def test_a_setup_zero3_cannot_shard_keeps_its_own_curve(section: OverviewSection) -> None:
    """Fuzz seed 17 (a bug): LoRA on an 8-bit base (bitsandbytes' Int8Params cannot be sharded by ZeRO-3) raised
    when the GPU-count curve asked for ZeRO-3. The curve then is the setup's own, data parallel, and says so."""
    sc = section.scenario
    sc.update(method=Method.LORA_8BIT)
    section.build_views()
    for step in section.steps():
        step()
    assert section.curve_setup() == sc.setup
    x, y = section.gpu_curve.data()
    g = sweep_gpus(sc.model, sc.setup, sc.gpu, [n for n in GPU_POINTS if n <= 64])
    assert (list(x), list(y)) == (list(g.x), [v / sc.unit.size for v in g.device])
    assert "the GPU-count curve uses ZeRO-3" not in section.notes.text()
