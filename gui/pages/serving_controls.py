"""The serving page's controls: model and GPU (shared scenario), and every vLLM flag the start-up depends on.

Every control goes through the one binding helper (``gui.state.binding.Binder``): model and GPU to the shared
``Scenario``, the rest to the page's own state (a ``PageState`` over the engine's ``ServingSetup``). Each is one of
``vllm serve``'s flags: ``--max-model-len`` (the context), ``--kv-cache-dtype``, the checkpoint's format,
``--tensor-parallel-size``, ``--pipeline-parallel-size``, ``--gpu-memory-utilization``, ``--max-num-batched-tokens``,
``--max-num-seqs``, ``--enforce-eager``; the vLLM release and engine sit under an "advanced" fold. Slider ranges are
the engine's bounds narrowed to the GUI's windows (``gui.state.ranges``).
"""

from __future__ import annotations

from PySide6.QtCore import QSize, Qt
from PySide6.QtGui import QResizeEvent
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QGridLayout,
    QHBoxLayout,
    QLabel,
    QLayout,
    QSlider,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from engine.catalog import gpus, models
from engine.serving import ServingSetup, WeightDtype
from engine.serving.vllm_setup import KvCacheDtype
from engine.serving.vllm_versions import RELEASES, Engine
from gui.state import ranges
from gui.state.binding import Binder
from gui.state.page_state import Fields, PageState, touches
from gui.state.scenario import Scenario
from gui.state.slider_scale import ScaleKind, SliderScale
from gui.widgets.model_picker import ModelPicker, cached_models

TOKENS = SliderScale.for_field("tokens", ScaleKind.POW2, ranges.SERVING_TOKENS, model=ServingSetup)
SEQUENCES = SliderScale.for_field("sequences", ScaleKind.LOG, ranges.SEQUENCES, model=ServingSetup)
TP = SliderScale.for_field("tp", ScaleKind.LINEAR, ranges.TP, model=ServingSetup)
PP = SliderScale.for_field("pp", ScaleKind.LINEAR, ranges.SERVING_PP, model=ServingSetup)
#: vLLM's --gpu-memory-utilization in steps of 0.01
UTILIZATION = SliderScale.for_field("gpu_memory_utilization", ScaleKind.LINEAR, ranges.UTILIZATION, steps=95,
                                    model=ServingSetup)
#: the fields the labels beside the sliders show
SHOWN = frozenset({"tokens", "sequences", "tp", "pp", "gpu_memory_utilization"})
#: the checkpoint formats, as their names are written
WEIGHT_NAMES = {WeightDtype.BF16: "bf16", WeightDtype.FP16: "fp16", WeightDtype.FP8: "fp8", WeightDtype.INT8: "int8",
                WeightDtype.INT4_GPTQ: "int4 GPTQ", WeightDtype.INT4_AWQ: "int4 AWQ", WeightDtype.NF4: "NF4",
                WeightDtype.MXFP4: "MXFP4", WeightDtype.GGUF_Q8_0: "GGUF Q8_0", WeightDtype.GGUF_Q4_K_M: "GGUF Q4_K_M",
                WeightDtype.NVFP4: "NVFP4"}
BATCHED_TOKENS = (512, 1024, 2048, 4096, 8192, 16_384, 32_768, 65_536)
MAX_SEQS = (1, 8, 16, 32, 64, 128, 256, 512, 1024)


class ServingControls(QWidget):
    """Pickers and sliders in a grid, each with a label; values are shown beside the sliders; the vLLM release
    and engine behind a fold.

    Signals: none (they write to the scenario and the state, which signal).
    """

    def __init__(self, scenario: Scenario, state: PageState[ServingSetup], parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.scenario, self.state = scenario, state
        shared, own = Binder(scenario, self), Binder(state, self)
        self.model_box, self.gpu_box = ModelPicker(models(), self, local=cached_models()), QComboBox(self)
        shared.custom(self.model_box, "model", read=self.model_box.current_model, show=self.model_box.show_model,
                      changed=self.model_box.activated)
        shared.combo(self.gpu_box, "gpu", [(g.name, g) for g in gpus()])
        self.kv_box, self.weight_box = QComboBox(self), QComboBox(self)
        own.combo(self.kv_box, "kv_dtype", [(self.tr("model dtype (auto)") if d is KvCacheDtype.AUTO else d.value, d)
                                            for d in KvCacheDtype])
        own.combo(self.weight_box, "weight_dtype", [(WEIGHT_NAMES[d], d) for d in WeightDtype])
        default = self.tr("vLLM default")
        self.batched_box, self.seqs_box = QComboBox(self), QComboBox(self)
        own.combo(self.batched_box, "max_num_batched_tokens",
                  [(default, None), *((f"{n:,}", n) for n in BATCHED_TOKENS)])
        own.combo(self.seqs_box, "max_num_seqs", [(default, None), *((f"{n:,}", n) for n in MAX_SEQS)])
        self.eager_box = QCheckBox(self.tr("Eager mode: no CUDA graphs (--enforce-eager)"), self)
        own.toggle(self.eager_box, "enforce_eager")
        self.tokens, self.sequences, self.tp, self.pp, self.utilization = (
            QSlider(Qt.Orientation.Horizontal, self) for _ in range(5))
        for slider, name, scale in ((self.tokens, "tokens", TOKENS), (self.sequences, "sequences", SEQUENCES),
                                    (self.tp, "tp", TP), (self.pp, "pp", PP),
                                    (self.utilization, "gpu_memory_utilization", UTILIZATION)):
            own.slider(slider, name, scale)
        self.advanced = _Advanced(self, own)
        self.binders = (shared, own)
        self.values = {name: QLabel(self) for name in ("tokens", "sequences", "tp", "pp", "gpu_memory_utilization")}
        self._layout()
        state.changed.connect(self._show_values)
        self._show_values(SHOWN)

    def _layout(self) -> None:
        outer = QVBoxLayout(self)
        outer.setContentsMargins(0, 0, 0, 0)
        grid_box = QWidget(self)
        self._grid = QGridLayout(grid_box)
        self._grid.setContentsMargins(0, 0, 0, 0)
        self._grid.setSizeConstraint(QLayout.SizeConstraint.SetNoConstraint)  # its least width: minimumSizeHint
        self._pairs = [(QLabel(text, grid_box), box) for text, box in (
            (self.tr("Model"), self.model_box), (self.tr("GPU"), self.gpu_box),
            (self.tr("KV cache dtype"), self.kv_box), (self.tr("Weights"), self.weight_box),
            (self.tr("Max batched tokens"), self.batched_box), (self.tr("Max sequences"), self.seqs_box))]
        self._sliders = [(QLabel(text, grid_box), slider, self.values[name]) for text, slider, name in (
            (self.tr("Context length"), self.tokens, "tokens"),
            (self.tr("Concurrent sequences"), self.sequences, "sequences"),
            (self.tr("Tensor-parallel GPUs"), self.tp, "tp"),
            (self.tr("Pipeline-parallel GPUs"), self.pp, "pp"),
            (self.tr("GPU memory utilization"), self.utilization, "gpu_memory_utilization"))]
        self._per_row = 0
        self._place(2)
        outer.addWidget(grid_box)
        outer.addWidget(self.eager_box)
        outer.addWidget(self.advanced)

    def _place(self, per_row: int) -> None:
        """The pickers two pairs to a row (label, box, gap, label, box) or one; the sliders under them."""
        grid = self._grid
        for label, box in self._pairs:
            grid.removeWidget(label)
            grid.removeWidget(box)
        for i, (label, box) in enumerate(self._pairs):
            r, c = divmod(i, per_row)
            grid.addWidget(label, r, 3 * c)
            grid.addWidget(box, r, 3 * c + 1, 1, 1 if per_row > 1 else 4)
        first = (len(self._pairs) + per_row - 1) // per_row
        for r, (label, slider, value) in enumerate(self._sliders, start=first):
            for w in (label, slider, value):
                grid.removeWidget(w)
            grid.addWidget(label, r, 0)
            grid.addWidget(slider, r, 1, 1, 3)
            grid.addWidget(value, r, 4)
        grid.setColumnStretch(1, 2)
        grid.setColumnStretch(4, 1)
        grid.setColumnMinimumWidth(2, 16 if per_row > 1 else 0)
        self._per_row = per_row

    def _pair_width(self) -> int:
        return max(label.minimumSizeHint().width() + box.minimumSizeHint().width() for label, box in self._pairs)

    def resizeEvent(self, event: QResizeEvent) -> None:
        """Two picker pairs to a row while both fit across, else one (a large type on a small screen)."""
        super().resizeEvent(event)
        wanted = 2 if event.size().width() >= 2 * self._pair_width() + 16 + 4 * self._grid.horizontalSpacing() else 1
        if wanted != self._per_row:
            self._place(wanted)

    def minimumSizeHint(self) -> QSize:
        """As narrow as one pair to a row."""
        hint = super().minimumSizeHint()
        return QSize(min(hint.width(), self._pair_width() + self._grid.horizontalSpacing()), hint.height())

    def _show_values(self, fields: Fields) -> None:
        if not touches(fields, SHOWN):
            return
        s = self.state.value
        self.values["tokens"].setText(self.tr("{n:,} tokens").format(n=s.tokens))
        self.values["sequences"].setText(
            self.tr("{n:,} sequences").format(n=s.sequences) if s.sequences > 1 else self.tr("1 sequence"))
        for name, n in (("tp", s.tp), ("pp", s.pp)):
            self.values[name].setText(self.tr("{n} GPUs").format(n=n) if n > 1 else self.tr("1 GPU"))
        self.values["gpu_memory_utilization"].setText(f"{s.gpu_memory_utilization:.2f}")

    def flush(self) -> None:
        """Write pending slider values now (tests)."""
        for binder in self.binders:
            binder.flush()


class _Advanced(QWidget):
    """A fold: a button that shows or hides the vLLM release and engine pickers (vLLM's newest by default)."""

    def __init__(self, parent: ServingControls, own: Binder) -> None:
        super().__init__(parent)
        self.toggle = QToolButton(self)
        self.toggle.setText(self.tr("Advanced: vLLM release"))
        self.toggle.setCheckable(True)
        self.toggle.setArrowType(Qt.ArrowType.RightArrow)
        self.toggle.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextBesideIcon)
        self.body = QWidget(self)
        self.version_box, self.engine_box = QComboBox(self.body), QComboBox(self.body)
        own.combo(self.version_box, "vllm_version", [(v, v) for v in RELEASES])
        own.combo(self.engine_box, "vllm_engine", [(self.tr("the release's default"), None),
                                                   *((e.value, e) for e in Engine)])
        row = QHBoxLayout(self.body)
        row.setContentsMargins(16, 0, 0, 0)
        for text, box in ((self.tr("vLLM version"), self.version_box), (self.tr("Engine"), self.engine_box)):
            row.addWidget(QLabel(text, self.body))
            row.addWidget(box)
        row.addStretch(1)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.toggle)
        layout.addWidget(self.body)
        self.body.setVisible(False)
        self.toggle.toggled.connect(self._fold)

    def _fold(self, shown: bool) -> None:
        self.body.setVisible(shown)
        self.toggle.setArrowType(Qt.ArrowType.DownArrow if shown else Qt.ArrowType.RightArrow)
