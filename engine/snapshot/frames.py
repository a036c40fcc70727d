"""What a block's stack frames say about it: the phase of the step that allocated it, and hints for its term.

A snapshot's frames are innermost first; each is ``{"filename", "line", "name"}``, Python frames (``.py`` files)
and, when recorded with ``stacks="all"`` (the default), C++ frames (``torch::autograd::Engine::...``). The marks
below are the functions a training step runs through in PyTorch 2.x and the libraries around it:

* **optimizer step**: any frame in ``torch/optim/`` (``Optimizer.step``, ``_init_group`` creating the states,
  ``zero_grad``), bitsandbytes' ``bitsandbytes/optim/``, and gradient clipping (``torch/nn/utils/clip_grad.py``);
* **backward**: ``torch/autograd/graph.py:_engine_run_backward``, ``torch/autograd/__init__.py:backward``,
  ``torch/_tensor.py:backward``, C++ ``torch::autograd::Engine::`` and generated ``...Backward0::apply`` nodes.
  The autograd engine runs CUDA backward on its own C++ thread, so with ``stacks="python"`` its allocations have
  *no* frames at all (PyTorch PR #82146: "Things allocated during the backward pass have no stack frames because
  they are run on another C++ thread"); ``torch/utils/checkpoint.py``'s ``unpack_hook`` / ``recompute_fn`` /
  ``backward`` mark activations recomputed there;
* **forward**: ``torch/nn/modules/module.py:_call_impl`` (every ``nn.Module`` call); the loss
  (``torch/nn/functional.py`` ``cross_entropy`` / ``nll_loss`` / ``log_softmax``, transformers'
  ``loss/loss_utils.py``, C++ ``LogSoftmaxBackward`` / ``NllLossBackward``) marks logits;
* **setup** (weights): ``Module._apply`` / ``to`` / ``cuda`` / ``to_empty`` / ``load_state_dict``,
  ``reset_parameters``, transformers' ``from_pretrained``, accelerate's ``set_module_tensor_to_device`` and
  PEFT's ``update_layer`` (LoRA adapters).

``torch.profiler``'s snapshots (``torch.cuda._memory_viz._profile_to_snapshot``) put ``"path.py(line): name"``
in ``name`` with filename ``"none"``; those are read the same way. VRAM Lab's own export of a predicted step
(``engine.snapshot.export``) names its phase in frames of the file ``vramlab/prediction``.
"""

from __future__ import annotations

import re
from enum import IntEnum, IntFlag
from typing import Any


class Mark(IntFlag):
    """What one frame, or a whole stack, shows."""

    NONE = 0
    OPTIMIZER = 1
    CLIP = 2
    BACKWARD = 4
    RECOMPUTE = 8
    FORWARD = 16
    LOSS = 32
    WEIGHTS = 64
    GRAD_ACCUMULATE = 128
    ZERO_GRAD = 256


class Phase(IntEnum):
    """The phase of a step an event belongs to (0: not known)."""

    UNKNOWN = 0
    SETUP = 1
    FORWARD = 2
    BACKWARD = 3
    OPTIMIZER_STEP = 4
    OTHER = 5

    @property
    def label(self) -> str:
        return self.name.lower()


#: the file name of the frames in VRAM Lab's exported predictions ("<phase>: <term> (...)")
PREDICTION_FILE = "vramlab/prediction"
_PREDICTION = {"forward": Mark.FORWARD, "backward": Mark.BACKWARD, "optimizer_step": Mark.OPTIMIZER}
_PROFILER_NAME = re.compile(r"^(.*)\((\d+)\): (.*)$")
_BACKWARD_PY = {("/torch/autograd/graph.py", "_engine_run_backward"), ("/torch/autograd/__init__.py", "backward"),
                ("/torch/autograd/__init__.py", "grad"), ("/torch/_tensor.py", "backward")}
_RECOMPUTE = {"unpack_hook", "recompute_fn", "backward"}
_LOSS_FUNCTIONS = {"cross_entropy", "nll_loss", "log_softmax"}
_MODULE_WEIGHTS = {"_apply", "to", "cuda", "to_empty", "load_state_dict", "_load_from_state_dict"}
_WEIGHTS_ANYWHERE = {"reset_parameters", "from_pretrained", "set_module_tensor_to_device",
                     "_load_state_dict_into_meta_model", "update_layer"}


def frame_mark(filename: str, name: str) -> Mark:
    """The mark of one frame (module docstring)."""
    if filename in ("none", "", "??"):
        m = _PROFILER_NAME.match(name)
        if m:
            filename, name = m.group(1), m.group(3)
    f = filename.replace("\\", "/")
    f = f if f.startswith("/") else "/" + f
    if "::" in name:
        return _cpp_mark(name)
    if f.endswith(PREDICTION_FILE):
        return _PREDICTION.get(name.split(":", 1)[0], Mark.NONE)
    return _step_mark(f, name) or _model_mark(f, name)


def _step_mark(f: str, name: str) -> Mark:
    """The optimizer step, clipping, backward and checkpointing's recompute."""
    if "/torch/optim/" in f or "bitsandbytes/optim/" in f:
        mark = Mark.OPTIMIZER | (Mark.ZERO_GRAD if name == "zero_grad" else Mark.NONE)
        return mark if "lr_scheduler" not in f else Mark.NONE
    if f.endswith("/torch/nn/utils/clip_grad.py"):
        return Mark.OPTIMIZER | Mark.CLIP
    if any(f.endswith(suffix) and name == fn for suffix, fn in _BACKWARD_PY):
        return Mark.BACKWARD
    if f.endswith("/torch/utils/checkpoint.py") and name in _RECOMPUTE:
        return Mark.BACKWARD | Mark.RECOMPUTE
    return Mark.NONE


def _model_mark(f: str, name: str) -> Mark:
    """Module calls (forward), the loss, and what creates or loads weights."""
    if f.endswith("/torch/nn/modules/module.py"):
        if name in ("_call_impl", "_wrapped_call_impl"):
            return Mark.FORWARD
        return Mark.WEIGHTS if name in _MODULE_WEIGHTS else Mark.NONE
    if (f.endswith("/torch/nn/functional.py") and name in _LOSS_FUNCTIONS) or f.endswith("/loss/loss_utils.py"):
        return Mark.LOSS
    if name.startswith("nn.Module: "):  # torch.profiler's module events
        return Mark.FORWARD
    if name in _WEIGHTS_ANYWHERE or f.endswith("/torch/nn/parameter.py"):
        return Mark.WEIGHTS
    return Mark.NONE


def _cpp_mark(name: str) -> Mark:
    if "torch::autograd::Engine::" in name:
        return Mark.BACKWARD
    if "AccumulateGrad" in name:
        return Mark.BACKWARD | Mark.GRAD_ACCUMULATE
    if "LogSoftmaxBackward" in name or "NllLossBackward" in name:
        return Mark.BACKWARD | Mark.LOSS
    if "torch::autograd::generated::" in name and "Backward" in name:
        return Mark.BACKWARD
    return Mark.NONE


def phase_of(mark: int, has_frames: bool, threads_without_frames: bool) -> Phase:
    """The phase a stack's mark shows. An allocation with no frames in a trace whose other allocations have
    Python frames came from a thread without Python: the autograd engine's (module docstring)."""
    if mark & Mark.OPTIMIZER:
        return Phase.OPTIMIZER_STEP
    if mark & Mark.BACKWARD:
        return Phase.BACKWARD
    if mark & Mark.FORWARD:
        return Phase.FORWARD
    if mark & Mark.WEIGHTS:
        return Phase.SETUP
    if has_frames:
        return Phase.OTHER
    return Phase.BACKWARD if threads_without_frames else Phase.UNKNOWN


class MarkCache:
    """Marks of stacks (plain ``int`` bits of ``Mark``, for speed), computed once per distinct frame and per
    distinct stack: PyTorch's symbolizer shares frame dicts, so a million events hold a few thousand stacks."""

    def __init__(self) -> None:
        self._frames: dict[int, int] = {}
        self._stacks: dict[tuple[int, ...], int] = {}
        self._keep: list[Any] = []  # keeps the ids in the keys valid (the snapshot holds these objects anyway)

    def stack(self, frames: Any) -> int:
        """The union of the marks of ``frames`` (a list of frame dicts); anything malformed marks nothing."""
        if type(frames) is not list or not frames:
            return 0
        key = tuple(map(id, frames))
        hit = self._stacks.get(key)
        if hit is None:
            hit = 0
            for f in frames:
                hit |= self._frame(f)
            self._stacks[key] = hit
            self._keep.append(frames)
        return hit

    def sample(self, n: int = 200) -> list[Any]:
        """The first ``n`` distinct stacks seen."""
        return self._keep[:n]

    def _frame(self, f: Any) -> int:
        hit = self._frames.get(id(f))
        if hit is None:
            ok = type(f) is dict and isinstance(f.get("filename"), str) and isinstance(f.get("name"), str)
            hit = int(frame_mark(f["filename"], f["name"])) if ok else 0
            self._frames[id(f)] = hit
        return hit


def format_frames(frames: Any, limit: int = 8) -> list[str]:
    """``file:line:name`` of the first ``limit`` frames worth showing (memory_viz's ``frameFilter`` drops
    interpreter and dispatcher frames; here C++ frames are dropped too, as they rarely name the culprit)."""
    out: list[str] = []
    if type(frames) is not list:
        return out
    for f in frames:
        if type(f) is not dict:
            continue
        filename, name = str(f.get("filename", "")), str(f.get("name", ""))
        if "::" in name or filename in ("??", "") or filename.endswith((".c", ".cpp", ".h")):
            continue
        out.append(f"{filename.rsplit('/', 1)[-1]}:{f.get('line', '?')}:{name}")
        if len(out) == limit:
            break
    return out
