""""What would make it fit": the engine's roadmap (``engine.training.advisor``) as a list, each step with its
per-GPU peak (a host-RAM step: the node's host RAM), its cost and its step time (``engine.timing``), plus the
longest sequence and the largest batch that fit as things stand; under it, the options that fit, fastest first
(``engine.timing.choices.fitting_options``: each rung alone, and the roadmap's whole path), with tokens/s.

The engine names each step (``Rung``) and gives its numbers; the words are here, one translated title and one
cost per rung, filled with those numbers (how many GPUs, the LoRA rank, the measured overheads).
"""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLabel, QVBoxLayout, QWidget

from engine.lever_facts import PAPER_FACTOR
from engine.specs import Method
from engine.timing import StepTime
from engine.timing.choices import Option, time_or_reason
from engine.training.advisor import (
    CHECKPOINTING_MEASURED,
    CHECKPOINTING_PUBLISHED,
    HOST_RUNGS,
    Rung,
    Step,
    chunked_recompute,
)
from engine.units import Unit, format_bytes
from gui.look.palette import colors_for
from gui.text.tr import QT_TRANSLATE_NOOP, translate

TITLES: dict[Rung, str] = {
    Rung.BF16: QT_TRANSLATE_NOOP("roadmap", "16-bit training (bf16)"),
    Rung.FLASH: QT_TRANSLATE_NOOP("roadmap", "FlashAttention"),
    Rung.CHECKPOINTING: QT_TRANSLATE_NOOP("roadmap", "Gradient checkpointing"),
    Rung.CHUNKED_LOSS: QT_TRANSLATE_NOOP("roadmap", "Chunked loss (TRL chunked_nll)"),
    Rung.FUSED_LINEAR_CE: QT_TRANSLATE_NOOP("roadmap", "Fused linear cross-entropy"),
    Rung.ACTIVATION_OFFLOAD: QT_TRANSLATE_NOOP("roadmap", "Offload activations to CPU RAM"),
    Rung.EIGHT_BIT: QT_TRANSLATE_NOOP("roadmap", "8-bit AdamW"),
    Rung.LORA: QT_TRANSLATE_NOOP("roadmap", "LoRA (rank {rank})"),
    Rung.QLORA: QT_TRANSLATE_NOOP("roadmap", "QLoRA (4-bit NF4 base)"),
    Rung.ZERO2: QT_TRANSLATE_NOOP("roadmap", "ZeRO-2 over the current GPUs"),
    Rung.ZERO3: QT_TRANSLATE_NOOP("roadmap", "ZeRO-3 / FSDP over the current GPUs"),
    Rung.OFFLOAD: QT_TRANSLATE_NOOP("roadmap", "Offload optimizer states to CPU RAM"),
    Rung.GPUS: QT_TRANSLATE_NOOP("roadmap", "{gpus} GPUs with ZeRO-3"),
    Rung.ARROW: QT_TRANSLATE_NOOP("roadmap", "Dataset as a memory-mapped Arrow file"),
    Rung.STREAMING: QT_TRANSLATE_NOOP("roadmap", "Stream the dataset from Parquet (iterative loading)"),
    Rung.RANK0_LOADING: QT_TRANSLATE_NOOP("roadmap", "Load the checkpoint on rank 0 only, then broadcast"),
    Rung.SHARDED_LOADING: QT_TRANSLATE_NOOP("roadmap", "Load the checkpoint shard by shard (meta device)"),
    Rung.NODES: QT_TRANSLATE_NOOP("roadmap", "The same GPUs over {nodes} nodes"),
}
COSTS: dict[Rung, str] = {
    Rung.BF16: QT_TRANSLATE_NOOP("roadmap", "almost none on GPUs with bf16"),
    Rung.FLASH: QT_TRANSLATE_NOOP("roadmap", "none: the same result, computed in tiles"),
    Rung.CHECKPOINTING: QT_TRANSLATE_NOOP(
        "roadmap", "about {low:.0%}–{high:.0%} more compute per step (H200: +{full:.0%} full, +{lora:.0%} LoRA)"),
    Rung.CHUNKED_LOSS: QT_TRANSLATE_NOOP(
        "roadmap", "little: the output layer runs again in backward, chunk by chunk (about {recompute:.0%} more "
        "compute for this model); TRL's SFTTrainer default (loss_type='chunked_nll', TRL 1.7-1.14)"),
    Rung.FUSED_LINEAR_CE: QT_TRANSLATE_NOOP(
        "roadmap", "a CUDA kernel library (Liger-Kernel, use_liger_kernel=True); usually no slower, the logits are "
        "never materialised"),
    Rung.ACTIVATION_OFFLOAD: QT_TRANSLATE_NOOP(
        "roadmap", "host RAM for the saved activations and PCIe traffic every step: slower unless the copies "
        "overlap with compute (torchtune / TRL offload on a side stream)"),
    Rung.EIGHT_BIT: QT_TRANSLATE_NOOP("roadmap", "almost none; states quantized block-wise"),
    Rung.LORA: QT_TRANSLATE_NOOP("roadmap", "trains ~{share:.1%} of the weights; quality usually close to full"),
    Rung.QLORA: QT_TRANSLATE_NOOP("roadmap", "slower matmuls (dequantized on the fly); small quality loss"),
    Rung.ZERO2: QT_TRANSLATE_NOOP("roadmap", "same communication as data parallelism"),
    Rung.ZERO3: QT_TRANSLATE_NOOP("roadmap", "about {factor:g}× the communication of data parallelism"),
    Rung.OFFLOAD: QT_TRANSLATE_NOOP("roadmap", "slower steps: the optimizer runs on the CPU"),
    Rung.GPUS: QT_TRANSLATE_NOOP("roadmap", "more hardware"),
    Rung.ARROW: QT_TRANSLATE_NOOP(
        "roadmap", "a one-off conversion (datasets' save_to_disk); its pages are shared by every process and worker "
        "of the node, not copied"),
    Rung.STREAMING: QT_TRANSLATE_NOOP(
        "roadmap", "no random access: examples are shuffled within a buffer, and each reader holds one row group"),
    Rung.RANK0_LOADING: QT_TRANSLATE_NOOP(
        "roadmap", "accelerate's cpu_ram_efficient_loading (FSDP sync_module_states): one broadcast at start-up"),
    Rung.SHARDED_LOADING: QT_TRANSLATE_NOOP(
        "roadmap", "a sharded loader (the model built on the meta device): no whole copy anywhere"),
    Rung.NODES: QT_TRANSLATE_NOOP("roadmap", "more machines, each with its own RAM, and traffic between them"),
}


def step_numbers(step: Step) -> dict[str, float]:
    """The engine's numbers a step's title and cost quote (unused ones are ignored by ``str.format``)."""
    e = step.estimate
    low, high = CHECKPOINTING_PUBLISHED
    return {"gpus": step.setup.gpus, "nodes": step.setup.host.nodes, "rank": step.setup.lora.rank,
            "share": e.trainable_params / e.total_params,
            "recompute": chunked_recompute(e.model),
            "factor": PAPER_FACTOR, "low": low, "high": high, "full": CHECKPOINTING_MEASURED[Method.FULL],
            "lora": CHECKPOINTING_MEASURED[Method.LORA]}


def step_title(step: Step) -> str:
    """A step's title in the user's language, with its numbers."""
    return translate("roadmap", TITLES[step.key]).format(**step_numbers(step))


def step_cost(step: Step) -> str:
    """What a step costs, in the user's language, with its numbers."""
    return translate("roadmap", COSTS[step.key]).format(**step_numbers(step))


class RoadmapView(QWidget):
    """The roadmap as a small table (rich text, so long costs wrap) and the "as things stand" limits.

    Signals: none; call :meth:`show_steps`.
    """

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.heading = QLabel(wordWrap=True)
        self.table = QLabel(wordWrap=True)
        self.table.setTextFormat(Qt.TextFormat.RichText)
        self.limits = QLabel(wordWrap=True)
        self.options = QLabel(wordWrap=True)
        self.options.setTextFormat(Qt.TextFormat.RichText)
        self.options.setVisible(False)
        v = QVBoxLayout(self)
        v.setContentsMargins(0, 0, 0, 0)
        v.addWidget(self.heading)
        v.addWidget(self.table)
        v.addWidget(self.options)
        v.addStretch(1)
        v.addWidget(self.limits)

    def _seconds(self, t: StepTime | str) -> str:
        """A step time as the table shows it ("2.1 s per step"), or a dash with the reason in a tooltip."""
        if isinstance(t, str):
            return "—"
        return self.tr("{s:.3g} s per step").format(s=t.step_seconds)

    def show_options(self, options: list[Option]) -> None:
        """The options that fit, fastest first, each with its step time and the run's tokens/s."""
        self.options.setVisible(bool(options))
        if not options:
            self.options.setText("")
            return
        c = colors_for(self)
        heading = self.tr("Options that fit, fastest first")
        rows = [f'<tr><td colspan="2"><b>{heading}</b></td></tr>']
        for o in options:
            title = step_title(Step(o.key, o.setup, o.estimate))
            if o.cumulative:
                title = self.tr("The roadmap up to “{step}”").format(step=title)
            speed = (self.tr("{n} tokens/s").format(n=f"{o.tokens_per_second:,.0f}") if isinstance(o.time, StepTime)
                     else "—")
            rows.append(f'<tr><td>{title}<br><small style="color:{c.muted}">{self._seconds(o.time)}</small></td>'
                        f'<td align="right"><b>{speed}</b></td></tr>')
        self.options.setText(f'<table width="100%" cellspacing="3">{"".join(rows)}</table>')

    def show_steps(self, steps: list[Step], max_seq: int | None, max_batch: int | None, unit: Unit) -> None:
        c = colors_for(self)
        self.heading.setText(
            self.tr("<b>What would make it fit</b> — the seed guide's roadmap, each step on top of the previous")
            if steps else self.tr("<b>It fits.</b> Nothing to change; the limits as things stand:")
        )
        rows = []
        host_heading = self.tr("Host RAM, per node")
        for i, step in enumerate(steps):
            host = step.key in HOST_RUNGS
            if host and (i == 0 or steps[i - 1].key not in HOST_RUNGS):
                rows.append(f'<tr><td colspan="2"><b>{host_heading}</b></td></tr>')
            color = c.fits if step.fits else c.over
            title, cost = step_title(step), step_cost(step)
            shown = step.estimate.host_bytes if host else step.estimate.device_bytes
            e = step.estimate
            seconds = self._seconds(time_or_reason(e.model, e.setup, e.gpu))
            rows.append(
                f'<tr><td style="color:{color}">{"✓" if step.fits else "✗"}&nbsp;{title}<br>'
                f'<small style="color:{c.muted}">{cost}</small></td>'
                f'<td align="right" style="color:{color}"><b>{format_bytes(shown, unit, 1)}</b>'
                f'<br><small style="color:{c.muted}">{seconds}</small></td></tr>'
            )
        self.table.setText(f'<table width="100%" cellspacing="3">{"".join(rows)}</table>' if rows else "")
        self.table.setVisible(bool(rows))
        seq = self.tr("{n} tokens").format(n=f"{max_seq:,}") if max_seq else self.tr("none")
        batch = str(max_batch) if max_batch else self.tr("none")
        text = self.tr("As things stand — longest sequence that fits: {seq} · largest batch: {batch}")
        self.limits.setText(text.format(seq=seq, batch=batch))
