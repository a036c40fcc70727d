"""engine.snapshot.frames: what one frame, and one stack, say about the step that allocated a block."""

from __future__ import annotations

import pytest

from engine.snapshot.frames import Mark, MarkCache, Phase, format_frames, frame_mark, phase_of

SITE = "/usr/lib/python3/site-packages/"
M = Mark


@pytest.mark.parametrize(
    ("filename", "name", "mark"),
    [
        (SITE + "torch/optim/adamw.py", "_init_group", M.OPTIMIZER),
        (SITE + "torch/optim/optimizer.py", "zero_grad", M.OPTIMIZER | M.ZERO_GRAD),
        (SITE + "torch/optim/lr_scheduler.py", "step", M.NONE),
        (SITE + "bitsandbytes/optim/optimizer.py", "step", M.OPTIMIZER),
        (SITE + "torch/nn/utils/clip_grad.py", "clip_grad_norm_", M.OPTIMIZER | M.CLIP),
        (SITE + "torch/autograd/graph.py", "_engine_run_backward", M.BACKWARD),
        (SITE + "torch/autograd/__init__.py", "backward", M.BACKWARD),
        (SITE + "torch/_tensor.py", "backward", M.BACKWARD),
        (SITE + "torch/_tensor.py", "to", M.NONE),
        (SITE + "torch/utils/checkpoint.py", "unpack_hook", M.BACKWARD | M.RECOMPUTE),
        (SITE + "torch/utils/checkpoint.py", "checkpoint", M.NONE),
        (SITE + "torch/nn/modules/module.py", "_call_impl", M.FORWARD),
        (SITE + "torch/nn/modules/module.py", "_apply", M.WEIGHTS),
        (SITE + "torch/nn/modules/module.py", "register_buffer", M.NONE),
        (SITE + "torch/nn/functional.py", "cross_entropy", M.LOSS),
        (SITE + "torch/nn/functional.py", "linear", M.NONE),
        (SITE + "transformers/loss/loss_utils.py", "ForCausalLMLoss", M.LOSS),
        (SITE + "transformers/modeling_utils.py", "from_pretrained", M.WEIGHTS),
        (SITE + "peft/tuners/lora/layer.py", "update_layer", M.WEIGHTS),
        ("??", "torch::autograd::Engine::thread_main(std::shared_ptr<torch::autograd::GraphTask> const&)",
         M.BACKWARD),
        ("??", "torch::autograd::AccumulateGrad::apply(...)", M.BACKWARD | M.GRAD_ACCUMULATE),
        ("??", "torch::autograd::generated::LogSoftmaxBackward0::apply(...)", M.BACKWARD | M.LOSS),
        ("??", "torch::autograd::generated::MmBackward0::apply(...)", M.BACKWARD),
        ("??", "torch::autograd::VariableType::(anonymous namespace)::mm(...)", M.NONE),  # a forward op
        ("/home/me/mytorch/optim/sgd.py", "step", M.NONE),
        ("C:\\Python311\\Lib\\site-packages\\torch\\optim\\adamw.py", "step", M.OPTIMIZER),
        ("none", "torch/optim/adamw.py(214): step", M.OPTIMIZER),  # torch.profiler's snapshots
        ("none", "nn.Module: LlamaMLP_0", M.FORWARD),
        ("train.py", "<module>", M.NONE),
    ],
)
def test_frame_marks(filename: str, name: str, mark: Mark) -> None:
    assert frame_mark(filename, name) == mark


@pytest.mark.parametrize(
    ("mark", "has_frames", "threads", "phase"),
    [
        (M.OPTIMIZER | M.FORWARD, True, True, Phase.OPTIMIZER_STEP),
        (M.BACKWARD | M.RECOMPUTE | M.FORWARD, True, True, Phase.BACKWARD),  # a checkpointed layer's recompute
        (M.FORWARD | M.LOSS, True, True, Phase.FORWARD),
        (M.WEIGHTS, True, True, Phase.SETUP),
        (M.NONE, True, True, Phase.OTHER),
        (M.NONE, False, True, Phase.BACKWARD),  # the autograd engine's thread has no Python frames
        (M.NONE, False, False, Phase.UNKNOWN),  # nothing in the trace has frames
    ],
)
def test_phase_precedence(mark: Mark, has_frames: bool, threads: bool, phase: Phase) -> None:
    assert phase_of(int(mark), has_frames, threads) is phase


def test_stacks_are_marked_once_per_distinct_frames() -> None:
    opt = {"filename": SITE + "torch/optim/adamw.py", "line": 1, "name": "step"}
    main = {"filename": "train.py", "line": 2, "name": "<module>"}
    cache = MarkCache()
    assert cache.stack([opt, main]) == M.OPTIMIZER
    assert cache.stack([main]) == 0
    assert cache.stack([opt, main]) == M.OPTIMIZER  # another list of the same frames: the cached answer
    assert len(cache.sample()) == 2
    assert cache.stack(None) == cache.stack([]) == cache.stack("frames") == 0
    assert cache.stack([{"filename": 3, "name": "step"}, "junk"]) == 0


def test_format_frames_shows_python_frames_only() -> None:
    frames = [{"filename": "??", "line": 0, "name": "c10::cuda::malloc"},
              {"filename": SITE + "torch/nn/modules/linear.py", "line": 125, "name": "forward"},
              {"filename": "train.py", "line": 9, "name": "<module>"}]
    assert format_frames(frames) == ["linear.py:125:forward", "train.py:9:<module>"]
    assert format_frames(frames, limit=1) == ["linear.py:125:forward"]
    assert format_frames(None) == []
