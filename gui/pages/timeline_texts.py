"""The Timeline page's sentences (translated, context ``TimelinePage``): what a moment holds, where the peak is,
what a snapshot held and how far its peak is from the prediction. Every number is the engine's, formatted here.
"""

from __future__ import annotations

from html import escape

import numpy as np
from PySide6.QtCore import QCoreApplication

from engine.snapshot.overlay import Overlay, PeakDifference
from engine.snapshot.report import SnapshotReport
from engine.training.moments import MomentKind
from engine.training.timeline import Timeline, TimelinePoint
from engine.units import Unit, format_bytes
from gui.look.palette import Colors
from gui.text.words import phase_name, term_title


def _moment(kind: MomentKind) -> str:
    """The moments that are not one layer's."""
    return {
        MomentKind.FORWARD_END: QCoreApplication.translate("TimelinePage", "logits and loss"),
        MomentKind.BACKWARD_START: QCoreApplication.translate("TimelinePage", "the loss's gradients"),
        MomentKind.BACKWARD_END: QCoreApplication.translate("TimelinePage", "every gradient made"),
    }.get(kind, "")


def where(p: TimelinePoint, layers: int) -> str:
    """"Step 2 · backward · layer 12 of 32" (layers counted from 1, from the bottom)."""
    parts = [QCoreApplication.translate("TimelinePage", "Step {n}").format(n=p.step), phase_name(p.phase)]
    if p.layer is not None:
        parts.append(QCoreApplication.translate("TimelinePage", "layer {n} of {total}").format(
            n=p.layer + 1, total=layers))
    elif _moment(p.moment):
        parts.append(_moment(p.moment))
    return " · ".join(parts)


def layer_count(t: Timeline) -> int:
    return max((p.layer for p in t.points if p.layer is not None), default=-1) + 1


def moment_html(t: Timeline, index: int, unit: Unit, c: Colors) -> str:
    """What the prediction holds at moment ``index``: where it is, the total, each term above zero."""
    p = t.points[index]
    terms = " · ".join(
        f'<span style="color:{c.term(name)}">■</span>&nbsp;{escape(term_title(name))}&nbsp;{format_bytes(b, unit)}'
        for name, b in p.terms.items() if b > 0)
    total = QCoreApplication.translate("TimelinePage", "{b} allocated (predicted)").format(
        b=format_bytes(p.allocated_bytes, unit))
    return f"<b>{escape(where(p, layer_count(t)))}</b>: {total} = {terms}"


def measured_html(o: Overlay, x: float, unit: Unit) -> str:
    """The measured curves at the drawn point nearest ``x`` (empty when none is near)."""
    if o.x.size == 0:
        return ""
    i = int(np.clip(np.searchsorted(o.x, x), 0, o.x.size - 1))
    if i > 0 and abs(o.x[i - 1] - x) < abs(o.x[i] - x):
        i -= 1
    return QCoreApplication.translate(
        "TimelinePage", "Measured: {a} allocated, {r} reserved (after event {e})").format(
        a=format_bytes(int(o.allocated[i]), unit), r=format_bytes(int(o.reserved[i]), unit), e=f"{int(o.events[i]):,}")


def peak_where(t: Timeline) -> str:
    return where(t.points[t.peak_index], layer_count(t))


def difference_html(d: PeakDifference, unit: Unit, c: Colors) -> str:
    """"Measured peak 13.0 GB (step 2, backward) against 12.3 GB predicted: +0.7 GB (+5.8%)"."""
    sign = "+" if d.bytes >= 0 else "−"
    amount = f"{sign}{format_bytes(abs(d.bytes), unit)}"
    share = "" if d.percent is None else f" ({sign}{abs(d.percent):.1f}%)"
    held = ""
    if d.measured_step is not None:
        held = QCoreApplication.translate("TimelinePage", " (step {n}, {phase})").format(
            n=d.measured_step, phase=phase_name(d.measured_phase or "unknown"))
    color = c.over if d.bytes > 0 else c.fits
    return QCoreApplication.translate(
        "TimelinePage", "Measured peak <b>{m}</b>{held} against <b>{p}</b> predicted: "
        "<b><span style=\"color:{color}\">{diff}{share}</span></b>").format(
        m=format_bytes(d.measured_bytes, unit), held=held, p=format_bytes(d.predicted_bytes, unit), color=color,
        diff=amount, share=share)


def status_text(r: SnapshotReport) -> str:
    """What was read: the file, its device, its events, the steps found."""
    return QCoreApplication.translate(
        "TimelinePage", "{file}: device {device}, {events} events, {steps} training steps found").format(
        file=r.file, device=r.device, events=f"{r.events:,}", steps=len(r.steps))


def drawn_text(o: Overlay) -> str:
    """Which measured steps are drawn over the predicted ones."""
    if o.steps_found == 0:
        return QCoreApplication.translate(
            "TimelinePage", "No training step was found in its frames: the recording is spread over both steps.")
    first, second = o.drawn_steps
    none = QCoreApplication.translate("TimelinePage", "none")
    return QCoreApplication.translate(
        "TimelinePage", "Drawn over step 1: measured step {a}; over step 2: measured step {b}.").format(
        a=none if first is None else first, b=none if second is None else second)
