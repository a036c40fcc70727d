"""The memory page's settings panel: every control bound to the shared scenario through ``gui.state.binding``.

Ranges are the engine's bounds narrowed to the GUI's windows (``gui.state.ranges``); no slot computes anything, each
control only writes its field. One field, one owner: the FlashAttention and 8-bit switches are views of the
Attention and Optimizer pickers (``Binder.switch``), so ticking one off and on again gives back the picker's
value. The Stack picker has torch AdamW's implementation beside it (its first entry the stack's own, named), and
Sharding FSDP's version (issue 25: ``engine.training.policy``). Importing a config.json asks the engine
(``engine.hf_import``) and shows its error, naming the problem, when the file is bad; the previous model stays.
Below the GPUs, the Parallelism group (``gui.pages.memory_parallel``); a value the engine refuses (a layout the
model cannot take, a GPU count that is no multiple of tp x pp x cp, an AdamW implementation for another optimizer)
is put back and its rule shown in the reason note under it (``gui.widgets.reason_note``).
"""

from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QButtonGroup,
    QCheckBox,
    QFileDialog,
    QFormLayout,
    QGridLayout,
    QGroupBox,
    QHBoxLayout,
    QMenu,
    QPushButton,
    QSlider,
    QSpinBox,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from engine.catalog import gpus, models
from engine.specs import (
    LORA_METHODS,
    STACK_OPTIMIZER_IMPL,
    Attention,
    Checkpointing,
    LoraTargets,
    Method,
    OffloadDevice,
    Optimizer,
    Precision,
    SavedModule,
    Sharding,
)
from engine.units import Unit, format_bytes
from gui.look.palette import CHECKED_BUTTON
from gui.pages.memory_parallel import ParallelControls
from gui.state import ranges
from gui.state.binding import Binder
from gui.state.page_state import Fields, StateError, touches
from gui.state.scenario import Scenario
from gui.state.slider_scale import ScaleKind, SliderScale
from gui.text.choices import impl_choices, method_label, short_label, stack_choices, stacks_own_impl
from gui.widgets.long_context_group import LongContextGroup
from gui.widgets.model_picker import ModelPicker, cached_models
from gui.widgets.reason_note import ReasonNote, reason_of
from gui.widgets.slider_row import SliderRow

# what the two switches show: attention without the s x s scores in memory; an 8-bit optimizer
NO_SCORES = (Attention.SDPA, Attention.FLASH)
EIGHT_BIT = (Optimizer.ADAMW_8BIT, Optimizer.PAGED_ADAMW_8BIT)
# the checkpointing box: a view of its picker
CHECKPOINTED = (Checkpointing.FULL, Checkpointing.SELECTIVE, Checkpointing.OP_SELECTIVE)
# what the enabled state of the LoRA, offload, AdamW implementation and FSDP controls reads
ENABLING = frozenset({"setup.method", "setup.sharding", "setup.parallel", "setup.optimizer",
                      "setup.offload_optimizer", "setup.offload_params", "setup.stack"})
METHODS_PER_ROW = 4  # the method buttons' rows
SHARDED = (Sharding.ZERO2, Sharding.ZERO3)  # what FSDP's version applies to


class MemoryControls(QWidget):
    """Model, method, tokens, memory switches, GPUs — bound to ``scenario``.

    Signals:
        import_failed(str): a config.json could not be imported (the engine's one-line reason).
        import_noted(str): a config.json was imported with notes (defaults assumed, parts not counted).
    """

    import_failed = Signal(str)
    import_noted = Signal(str)

    def __init__(self, scenario: Scenario, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.scenario = scenario
        self.binder = Binder(scenario, self)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        self.long_context = LongContextGroup(scenario, self)
        for box in (self._model_box(), self._method_box(), self._tokens_box(), self._switches_box(),
                    self._stack_box(), self.long_context, self._gpu_box()):
            layout.addWidget(box)
        self.parallel = ParallelControls(scenario, self)
        layout.addWidget(self.parallel)
        self.reason = ReasonNote(self)  # why the last refused value was refused (a layout the model cannot take)
        layout.addWidget(self.reason)
        layout.addStretch(1)
        for binder in (self.binder, self.long_context.binder, self.parallel.binder):
            binder.rejected.connect(self.reason.show_reason)
        scenario.changed.connect(self.reason.clear_reason)
        scenario.changed.connect(self._sync_enabled)
        self._sync_enabled(ENABLING)

    # -- groups ---------------------------------------------------------------------------------------------
    def _model_box(self) -> QGroupBox:
        box = QGroupBox(self.tr("Model"))
        self.model_picker = ModelPicker(models(), box, local=cached_models())
        self.model_picker.setToolTip(self.tr("Type to search; grouped by family, with parameter counts"))
        self.binder.custom(
            self.model_picker, "model", read=self.model_picker.current_model, show=self.model_picker.show_model,
            changed=self.model_picker.activated,
        )
        self.import_button = QToolButton(box)
        self.import_button.setText(self.tr("Import config.json…"))
        self.import_button.setPopupMode(QToolButton.ToolButtonPopupMode.InstantPopup)
        menu = QMenu(self.import_button)
        menu.addAction(self.tr("From a file…"), self._import_file)
        menu.addAction(self.tr("From a folder (or HF cache folder)…"), self._import_folder)
        self.import_button.setMenu(menu)
        v = QVBoxLayout(box)
        v.addWidget(self.model_picker)
        v.addWidget(self.import_button)
        return box

    def _method_box(self) -> QGroupBox:
        box = QGroupBox(self.tr("Method"))
        self.method_buttons = {m: QPushButton(method_label(m), box) for m in Method}
        group = QButtonGroup(box)
        self.binder.buttons(group, "method", [(b, m) for m, b in self.method_buttons.items()])
        seg = QGridLayout()  # a segmented control in rows of four
        seg.setSpacing(0)
        for i, b in enumerate(self.method_buttons.values()):
            b.setStyleSheet(CHECKED_BUTTON)
            seg.addWidget(b, i // METHODS_PER_ROW, i % METHODS_PER_ROW)
        self.rank = QSpinBox(box)
        self.rank.setRange(*ranges.LORA_RANK)
        self.binder.spin(self.rank, "lora.rank")
        self.targets = self.binder.picker(box, "lora.targets", [
            (self.tr("q, v"), LoraTargets.QV), (self.tr("All attention"), LoraTargets.ATTENTION),
            (self.tr("All linear layers"), LoraTargets.ALL_LINEAR),
            (self.tr("q, v, o and the MLP (torchtune)"), LoraTargets.QVO_MLP)])
        self.dora = QCheckBox(self.tr("DoRA (trained magnitude per output row)"), box)
        self.binder.toggle(self.dora, "dora")
        self.saved_modules = self._saved_modules(box)
        self.trainable_tokens = self._spin(box, "trainable_tokens", ranges.TRAINABLE_TOKENS,
                                           self.tr("Embedding rows trained beside LoRA (PEFT trainable tokens)"))
        self.freeze_layers = self._spin(box, "freeze_layers", ranges.FREEZE_LAYERS,
                                        self.tr("Trained layers: the last n, or the first n when negative"))
        self.oft_block = self._spin(box, "oft_block_size", ranges.OFT_BLOCK, self.tr("OFT rotation block size"))
        form = QFormLayout(box)
        form.addRow(seg)
        form.addRow(self.tr("LoRA rank"), self.rank)
        form.addRow(self.tr("LoRA targets"), self.targets)
        form.addRow(self.dora)
        form.addRow(self.tr("Train in full"), self.saved_modules)
        form.addRow(self.tr("Trained tokens"), self.trainable_tokens)
        form.addRow(self.tr("Trained layers"), self.freeze_layers)
        form.addRow(self.tr("OFT block"), self.oft_block)
        return box

    def _saved_modules(self, parent: QWidget) -> QWidget:
        """Two check boxes over ``modules_to_save``: the token table and the output layer trained in full."""
        holder = QWidget(parent)
        row = QHBoxLayout(holder)
        row.setContentsMargins(0, 0, 0, 0)
        self.save_embeddings = QCheckBox(self.tr("Embeddings"), holder)
        self.save_head = QCheckBox(self.tr("Output layer"), holder)
        pairs = ((self.save_embeddings, SavedModule.EMBED_TOKENS), (self.save_head, SavedModule.LM_HEAD))
        group = QButtonGroup(holder)
        group.setExclusive(False)
        for box, _ in pairs:
            row.addWidget(box)
            group.addButton(box)
        row.addStretch(1)

        def read() -> tuple[SavedModule, ...]:
            return tuple(m for box, m in pairs if box.isChecked())

        def show(value: tuple[SavedModule, ...]) -> None:
            for box, m in pairs:
                box.setChecked(m in value)

        self.binder.custom(group, "modules_to_save", read=read, show=show, changed=group.buttonToggled)
        return holder

    def _spin(self, parent: QWidget, field: str, window: tuple[int, int], tip: str) -> QSpinBox:
        spin = QSpinBox(parent)
        spin.setRange(*window)
        spin.setKeyboardTracking(False)
        spin.setToolTip(tip)
        self.binder.spin(spin, field)
        return spin

    def _tokens_box(self) -> QGroupBox:
        box = QGroupBox(self.tr("Sequence length and batch"))
        self.seq_slider, self.seq_spin = self._slider_pair(box, "seq_len", ScaleKind.LOG, ranges.SEQ_LEN)
        self.seq_spin.setSuffix(self.tr(" tokens"))
        self.batch_slider, self.batch_spin = self._slider_pair(box, "batch", ScaleKind.LINEAR, ranges.BATCH)
        form = QFormLayout(box)
        form.addRow(self.tr("Sequence"), self._row(self.seq_slider, self.seq_spin))
        form.addRow(self.tr("Batch"), self._row(self.batch_slider, self.batch_spin))
        self.grad_accum = QSpinBox(box)
        self.grad_accum.setRange(*ranges.GRAD_ACCUM)
        self.grad_accum.setKeyboardTracking(False)
        self.grad_accum.setToolTip(self.tr("Micro-batches per optimizer step: their gradients stay in memory"))
        self.binder.spin(self.grad_accum, "grad_accum")
        form.addRow(self.tr("Gradient accumulation"), self.grad_accum)
        return box

    def _switches_box(self) -> QGroupBox:
        box = QGroupBox(self.tr("Memory switches"))
        self.flash = QCheckBox(self.tr("FlashAttention"), box)
        self.binder.switch(self.flash, "attention", on=NO_SCORES, default_on=Attention.FLASH,
                           default_off=Attention.EAGER)
        self.checkpointing = QCheckBox(self.tr("Gradient checkpointing"), box)
        self.binder.switch(self.checkpointing, "checkpointing", on=CHECKPOINTED, default_on=Checkpointing.FULL,
                           default_off=Checkpointing.NONE)
        self.eight_bit = QCheckBox(self.tr("8-bit optimizer"), box)
        self.binder.switch(self.eight_bit, "optimizer", on=EIGHT_BIT, default_on=Optimizer.ADAMW_8BIT,
                           default_off=Optimizer.ADAMW)
        self.optimizer = self.binder.picker(box, "optimizer", [(short_label(o), o) for o in Optimizer])
        self.optimizer_rank = self._spin(box, "optimizer_rank", ranges.OPTIMIZER_RANK,
                                         self.tr("GaLore's and APOLLO's projection rank"))
        self.precision = self.binder.picker(box, "precision", [
            (self.tr("BF16 mixed (fp32 master + states)"), Precision.BF16_MIXED),
            (self.tr("FP16 mixed (fp32 master + states)"), Precision.FP16_MIXED),
            (self.tr("Pure BF16 (weights, grads, states)"), Precision.BF16),
            (self.tr("FP32 weights, BF16 autocast"), Precision.AMP_BF16),
            (self.tr("FP32 weights, FP16 autocast"), Precision.AMP_FP16), (self.tr("FP32"), Precision.FP32)])
        self.attention = self.binder.picker(box, "attention", [
            (self.tr("Eager (stores s×s scores)"), Attention.EAGER), (self.tr("PyTorch SDPA"), Attention.SDPA),
            (self.tr("FlashAttention 2"), Attention.FLASH)])
        # two forms: the precision names are long, so their labels' column is not the width of "Projection rank"
        column = QVBoxLayout(box)
        form, types = QFormLayout(), QFormLayout()
        for w in (self.flash, self.checkpointing, self.eight_bit):
            form.addRow(w)
        form.addRow(self.tr("Optimizer"), self.optimizer)
        form.addRow(self.tr("Projection rank"), self.optimizer_rank)
        types.addRow(self.tr("Precision"), self.precision)
        types.addRow(self.tr("Attention"), self.attention)
        column.addLayout(form)
        column.addLayout(types)
        return box

    def _stack_box(self) -> QGroupBox:
        """Whose code runs the step, and torch AdamW's implementation beside it (issue 25): the first entry is
        the stack's own, named; the picker is off for the optimizers that are not torch's AdamW."""
        box = QGroupBox(self.tr("Training stack"))
        form = QFormLayout(box)
        self.stack = self.binder.picker(box, "stack", stack_choices())
        self.stack.setToolTip(self.tr("Whose code runs the training step (the Hugging Face Trainer: also TRL, "
                                      "Axolotl and LLaMA-Factory): its own rules change the memory (PEFT's fp32 "
                                      "preparation of a QLoRA model, the AdamW implementation it picks)"))
        self.optimizer_impl = self.binder.picker(
            box, "optimizer_impl", impl_choices(STACK_OPTIMIZER_IMPL[self.scenario.setup.stack]))
        self.optimizer_impl.setToolTip(self.tr(
            "How torch's AdamW runs its step: foreach makes a temporary as large as all its states at once, the "
            "for-loop two of the largest parameter, fused nothing of a parameter's size"))
        form.addRow(self.tr("Stack"), self.stack)
        form.addRow(self.tr("AdamW step"), self.optimizer_impl)
        return box

    def _gpu_box(self) -> QGroupBox:
        box = QGroupBox(self.tr("GPUs"))
        self.gpus_slider, self.gpus_spin = self._slider_pair(box, "gpus", ScaleKind.LINEAR, ranges.GPUS)
        self.gpus_spin.setRange(*ranges.GPU_COUNT)  # beyond the slider: a planned layout may need hundreds
        self.sharding = self.binder.picker(box, "sharding", [
            (self.tr("None (data parallel)"), Sharding.NONE), ("ZeRO-1", Sharding.ZERO1), ("ZeRO-2", Sharding.ZERO2),
            (self.tr("ZeRO-3 / FSDP"), Sharding.ZERO3)])
        self.offload_optimizer = QCheckBox(self.tr("Offload optimizer states to CPU"), box)
        self.binder.toggle(self.offload_optimizer, "offload_optimizer")
        self.offload_params = QCheckBox(self.tr("Offload parameters to CPU (ZeRO-3)"), box)
        self.binder.toggle(self.offload_params, "offload_params")
        self.nvme_optimizer = QCheckBox(self.tr("… the optimizer states on to NVMe"), box)
        self.binder.toggle(self.nvme_optimizer, "offload_optimizer_device", on=OffloadDevice.NVME,
                           off=OffloadDevice.CPU)
        self.nvme_params = QCheckBox(self.tr("… the parameters on to NVMe"), box)
        self.binder.toggle(self.nvme_params, "offload_params_device", on=OffloadDevice.NVME, off=OffloadDevice.CPU)
        for w in (self.nvme_optimizer, self.nvme_params):
            w.setToolTip(self.tr("ZeRO-Infinity: to disk through pinned host buffers (DeepSpeed, ZeRO-3)"))
        self.gpu = self.binder.picker(box, "gpu", [(f"{g.name} ({format_bytes(g.memory_bytes, Unit.GIB, 0)})", g)
                                            for g in gpus()])
        self.unit = self.binder.picker(box, "unit", [("GB (10⁹ B)", Unit.GB), ("GiB (2³⁰ B)", Unit.GIB)])
        form = QFormLayout(box)
        form.addRow(self.tr("GPU type"), self.gpu)
        form.addRow(self.tr("GPU count"), self._row(self.gpus_slider, self.gpus_spin))
        form.addRow(self.tr("Sharding"), self.sharding)
        self.fsdp_version = self.binder.picker(box, "fsdp_version", [
            ("DeepSpeed ZeRO", None), ("FSDP1", 1), ("FSDP2", 2)])
        self.fsdp_version.setToolTip(self.tr("ZeRO-2 / ZeRO-3 run by DeepSpeed, or by PyTorch FSDP (under the Hugging "
                                             "Face Trainer, accelerate keeps fp32 copies of what trains)"))
        form.addRow(self.tr("Sharded by"), self.fsdp_version)
        form.addRow(self.offload_optimizer)
        form.addRow(self.nvme_optimizer)
        form.addRow(self.offload_params)
        form.addRow(self.nvme_params)
        form.addRow(self.tr("Units"), self.unit)
        return box

    # -- helpers --------------------------------------------------------------------------------------------
    def _slider_pair(
        self, parent: QWidget, field: str, kind: ScaleKind, ui: tuple[int, int]
    ) -> tuple[QSlider, QSpinBox]:
        slider = QSlider(parent)
        slider.setOrientation(Qt.Orientation.Horizontal)
        self.binder.slider(slider, field, SliderScale.for_field(field, kind, ui))
        spin = QSpinBox(parent)
        spin.setRange(*ui)
        spin.setKeyboardTracking(False)
        self.binder.spin(spin, field)
        return slider, spin

    @staticmethod
    def _row(slider: QSlider, spin: QSpinBox) -> QWidget:
        return SliderRow(slider, spin)

    def _sync_enabled(self, fields: Fields) -> None:
        if not touches(fields, ENABLING):
            return
        s = self.scenario.setup
        lora = s.method in LORA_METHODS
        self.rank.setEnabled(lora)
        self.targets.setEnabled(lora or s.method is Method.OFT)
        for w in (self.saved_modules, self.trainable_tokens):
            w.setEnabled(lora)
        self.dora.setEnabled(s.method is Method.LORA)
        self.freeze_layers.setEnabled(s.method is Method.FREEZE)
        self.oft_block.setEnabled(s.method is Method.OFT)
        self.optimizer_rank.setEnabled(s.optimizer in (Optimizer.GALORE_ADAMW, Optimizer.APOLLO_ADAMW))
        self.offload_params.setEnabled(s.sharding is Sharding.ZERO3)
        self.nvme_optimizer.setEnabled(s.offload_optimizer and s.sharding is Sharding.ZERO3)
        self.nvme_params.setEnabled(s.offload_params)
        self.optimizer_impl.setEnabled(s.optimizer is Optimizer.ADAMW)
        self.optimizer_impl.setItemText(0, stacks_own_impl(STACK_OPTIMIZER_IMPL[s.stack]))
        self.fsdp_version.setEnabled(s.sharding in SHARDED)
        self.gpus_spin.setSingleStep(s.parallel.model_parallel)  # GPU counts the layout can take: multiples of it

    # -- import ---------------------------------------------------------------------------------------------
    def _import_file(self) -> None:
        path, _ = QFileDialog.getOpenFileName(self, self.tr("Import a Hugging Face config.json"), "",
                                              self.tr("config.json (*.json);;All files (*)"))
        if path:
            self.import_config(path)

    def _import_folder(self) -> None:
        path = QFileDialog.getExistingDirectory(self, self.tr("Folder holding a config.json"))
        if path:
            self.import_config(path)

    def import_config(self, path: str) -> bool:
        """Import ``path`` through the engine; on failure emit ``import_failed`` and keep the current model."""
        from engine.hf_import import ConfigImportError, load_config

        try:
            spec = load_config(path)
        except (ConfigImportError, OSError) as err:
            self.import_failed.emit(str(err))
            return False
        self.model_picker.add_imported(spec)
        try:
            self.scenario.update(model=spec)
        except StateError as err:  # the parallel layout does not suit it (tp not dividing its heads, ...)
            self.import_failed.emit(reason_of(str(err)))
            return False
        if spec.notes:
            self.import_noted.emit("\n\n".join(spec.notes))
        return True
