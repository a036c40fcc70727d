"""The serving page's controls: model and GPU (shared scenario), context, concurrency, dtypes, GPUs.

Every control goes through the one binding helper (``gui.state.binding.Binder``): model and GPU to the shared
``Scenario``, the rest to the page's own state (a ``PageState`` over the engine's ``ServingSetup``). Slider
ranges are the engine's bounds narrowed to the GUI's windows (``gui.state.ranges``).
"""

from __future__ import annotations

from PySide6.QtCore import QSize, Qt
from PySide6.QtGui import QResizeEvent
from PySide6.QtWidgets import QComboBox, QGridLayout, QLabel, QLayout, QSlider, QWidget

from engine.catalog import gpus, models
from engine.serving import ServingSetup, WeightDtype
from engine.specs import KvDtype
from gui.state import ranges
from gui.state.binding import Binder
from gui.state.page_state import Fields, PageState, touches
from gui.state.scenario import Scenario
from gui.state.slider_scale import ScaleKind, SliderScale
from gui.widgets.model_picker import ModelPicker, cached_models

TOKENS = SliderScale.for_field("tokens", ScaleKind.POW2, ranges.SERVING_TOKENS, model=ServingSetup)
SEQUENCES = SliderScale.for_field("sequences", ScaleKind.LOG, ranges.SEQUENCES, model=ServingSetup)
TP = SliderScale.for_field("tp", ScaleKind.LINEAR, ranges.TP, model=ServingSetup)
# the fields the labels beside the sliders show
SHOWN = frozenset({"tokens", "sequences", "tp"})


class ServingControls(QWidget):
    """Pickers and sliders in a grid, each with a label; values are shown beside the sliders.

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
        own.combo(self.kv_box, "kv_dtype", [(d.value, d) for d in KvDtype])
        own.combo(self.weight_box, "weight_dtype", [(d.value, d) for d in WeightDtype])
        self.tokens, self.sequences, self.tp = (QSlider(Qt.Orientation.Horizontal, self) for _ in range(3))
        own.slider(self.tokens, "tokens", TOKENS)
        own.slider(self.sequences, "sequences", SEQUENCES)
        own.slider(self.tp, "tp", TP)
        self.binders = (shared, own)
        self.values = {name: QLabel(self) for name in ("tokens", "sequences", "tp")}
        self._layout()
        state.changed.connect(self._show_values)
        self._show_values(SHOWN)

    def _layout(self) -> None:
        self._grid = QGridLayout(self)
        self._grid.setContentsMargins(0, 0, 0, 0)
        self._grid.setSizeConstraint(QLayout.SizeConstraint.SetNoConstraint)  # its least width: minimumSizeHint
        self._pairs = [(QLabel(text, self), box) for text, box in (
            (self.tr("Model"), self.model_box), (self.tr("GPU"), self.gpu_box),
            (self.tr("KV cache dtype"), self.kv_box), (self.tr("Weights dtype"), self.weight_box))]
        self._sliders = [(QLabel(text, self), slider, self.values[name]) for text, slider, name in (
            (self.tr("Context length"), self.tokens, "tokens"),
            (self.tr("Concurrent sequences"), self.sequences, "sequences"),
            (self.tr("Tensor-parallel GPUs"), self.tp, "tp"))]
        self._per_row = 0
        self._place(2)

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

    def resizeEvent(self, event: QResizeEvent) -> None:
        """Two picker pairs to a row while both fit across, else one (a large type on a small screen)."""
        super().resizeEvent(event)
        pair = max(label.minimumSizeHint().width() + box.minimumSizeHint().width() for label, box in self._pairs)
        wanted = 2 if event.size().width() >= 2 * pair + 16 + 4 * self._grid.horizontalSpacing() else 1
        if wanted != self._per_row:
            self._place(wanted)

    def minimumSizeHint(self) -> QSize:
        """As narrow as one pair to a row."""
        hint = super().minimumSizeHint()
        pair = max(label.minimumSizeHint().width() + box.minimumSizeHint().width() for label, box in self._pairs)
        return QSize(min(hint.width(), pair + self._grid.horizontalSpacing()), hint.height())

    def _show_values(self, fields: Fields) -> None:
        if not touches(fields, SHOWN):
            return
        s = self.state.value
        self.values["tokens"].setText(self.tr("{n:,} tokens").format(n=s.tokens))
        self.values["sequences"].setText(
            self.tr("{n:,} sequences").format(n=s.sequences) if s.sequences > 1 else self.tr("1 sequence"))
        self.values["tp"].setText(self.tr("{n} GPUs").format(n=s.tp) if s.tp > 1 else self.tr("1 GPU"))

    def flush(self) -> None:
        """Write pending slider values now (tests)."""
        for binder in self.binders:
            binder.flush()
