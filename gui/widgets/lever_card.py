"""One lever's card: its positions as a segmented toggle, before / after bars, the numbers per term.

"Before" is the lever off (its first position), "after" the position picked; the numbers are each term's largest
size during the step (``engine.levers.TermChange.largest_*``), the lines under them the allocated peak and device
total, and what the position costs in time: the step time and tokens/s per GPU before and after
(``engine.timing``), or why it cannot be timed. Picking a position changes nothing outside the card; the apply
button asks for it explicitly.

A card can *lead*: the page's rule ("find the biggest term first") says to start with it. It then shows a badge
over its title and a highlighted frame (the dynamic property ``leading``, styled in ``STYLE``).
"""

from __future__ import annotations

from collections.abc import Sequence

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QPalette
from PySide6.QtWidgets import QButtonGroup, QFrame, QGridLayout, QHBoxLayout, QLabel, QPushButton, QVBoxLayout, QWidget

from engine.levers import Lever
from engine.terms import Scope, in_scope
from engine.timing import StepTime
from engine.timing.choices import time_or_reason
from engine.training.estimate import Estimate
from engine.units import Unit, format_bytes
from gui.look.follows_palette import FollowsPalette
from gui.look.palette import CHECKED_BUTTON, colors_for
from gui.text.words import term_name
from gui.widgets.term_bars import BarRow, TermBars

STYLE = CHECKED_BUTTON + "LeverCard[leading=\"true\"] { border: 2px solid palette(highlight); border-radius: 4px; }"


def _label(parent: QWidget, *, bold: bool = False, muted: bool = False, scale: float = 1.0) -> QLabel:
    label = QLabel(parent)
    label.setWordWrap(True)
    font = label.font()
    font.setBold(bold)
    font.setPointSizeF(font.pointSizeF() * scale)
    label.setFont(font)
    if muted:
        label.setForegroundRole(QPalette.ColorRole.PlaceholderText)
    return label


class LeverCard(FollowsPalette, QFrame):
    """A lever's card.

    Signals:
        step_selected(int): the user picked a position of the lever (index into ``keys``: ``engine.levers``'
            ``POSITIONS``).
        apply_requested(int): the user asked to put that position into the shared scenario.

    A position the setup cannot take (left out of the engine's lever) is a disabled button.
    """

    step_selected = Signal(int)
    apply_requested = Signal(int)

    def __init__(self, title: str, subtitle: str, moves: str, steps: Sequence[str], *,
                 keys: Sequence[str], parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._keys = tuple(keys)
        self.setFrameShape(QFrame.Shape.StyledPanel)
        self.setStyleSheet(STYLE)
        self.setProperty("leading", False)
        self._steps, self._unit, self._selected, self._at = list(steps), Unit.GB, 1, 1
        self._lever: Lever | None = None
        layout = QVBoxLayout(self)
        self.badge = _label(self, bold=True)
        self.badge.setForegroundRole(QPalette.ColorRole.Link)  # the highlight is for fills: too dark as ink
        self.badge.setVisible(False)
        heading, sub, self.moves = _label(self, bold=True, scale=1.25), _label(self), _label(self, muted=True)
        heading.setText(title)
        sub.setText(subtitle)
        self.moves.setText(moves)
        self.buttons = QButtonGroup(self)
        row = QHBoxLayout()
        row.setSpacing(0)
        for i, text in enumerate(steps):
            button = QPushButton(text, self)
            button.setCheckable(True)
            self.buttons.addButton(button, i)
            row.addWidget(button)
        self.buttons.idClicked.connect(self.step_selected)
        self.bars = TermBars(self)
        caption = _label(self, muted=True, scale=0.85)
        caption.setText(self.tr("Each term at its largest during the step"))
        self._grid = QGridLayout()
        self._grid.setHorizontalSpacing(8)
        self._grid.setVerticalSpacing(1)
        self._rows = {name: self._grid_row(i, name) for i, name in enumerate(in_scope(Scope.TRAINING))}
        self._grid.setColumnStretch(1, 1)
        self.peak, self.time, self.note = _label(self), _label(self), _label(self, muted=True)
        self._times: dict[tuple[object, ...], StepTime | str] = {}
        self.apply = QPushButton(self)
        self.apply.clicked.connect(lambda: self.apply_requested.emit(self._selected))
        for w in (self.badge, heading, sub, self.moves):
            layout.addWidget(w)
        layout.addLayout(row)
        layout.addWidget(self.bars, 1)
        layout.addWidget(caption)
        layout.addLayout(self._grid)
        for w in (self.peak, self.time, self.note):
            layout.addWidget(w)
        self.extra = QVBoxLayout()
        layout.addLayout(self.extra)
        layout.addWidget(self.apply)
        self.follow_palette()

    def _grid_row(self, i: int, name: str) -> tuple[QLabel, ...]:
        labels = tuple(QLabel(self) for _ in range(4))
        labels[0].setTextFormat(Qt.TextFormat.RichText)
        for col, label in enumerate(labels):
            self._grid.addWidget(label, i, col, Qt.AlignmentFlag.AlignRight if col > 1 else Qt.AlignmentFlag.AlignLeft)
        labels[1].setText(term_name(name))
        return labels

    def show_lever(self, lever: Lever, selected: int, unit: Unit, note: str = "") -> None:
        """Show ``lever`` with position ``selected`` (one the lever has) as "after", numbers in ``unit``."""
        at = lever.index(self._keys[selected])
        assert at is not None, (lever.kind, self._keys[selected])
        self._lever, self._selected, self._at, self._unit = lever, selected, at, unit
        for position, key in enumerate(self._keys):
            self.buttons.button(position).setEnabled(lever.index(key) is not None)
        self.buttons.button(selected).setChecked(True)
        self.note.setText(note)
        self.note.setVisible(bool(note))
        self._refresh()

    def selected(self) -> int:
        return self._selected

    def step_label(self, index: int) -> str:
        return self._steps[index]

    def set_step_labels(self, labels: Sequence[str]) -> None:
        """Rename the positions (the ZeRO-3 card's depend on N)."""
        self._steps = list(labels)
        for i, text in enumerate(labels):
            self.buttons.button(i).setText(text)

    def set_step_tips(self, tips: Sequence[str]) -> None:
        """What each position is in full (a short button label's tooltip)."""
        for i, text in enumerate(tips):
            self.buttons.button(i).setToolTip(text)

    def set_leading(self, why: str) -> None:
        """Lead (badge ``why`` over the title, highlighted frame), or not when ``why`` is empty."""
        self.badge.setText(why)
        self.badge.setVisible(bool(why))
        if self.property("leading") != bool(why):
            self.setProperty("leading", bool(why))
            self.style().unpolish(self)
            self.style().polish(self)

    def leading(self) -> bool:
        return bool(self.property("leading"))

    def numbers(self) -> dict[str, tuple[str, str]]:
        """The (before, after) texts shown per term, for the terms shown."""
        return {n: (r[2].text(), r[3].text()) for n, r in self._rows.items() if not r[1].isHidden()}

    def palette_changed(self) -> None:
        if self._lever is not None:
            self._refresh()

    def _refresh(self) -> None:
        assert self._lever is not None
        lever, sel, unit = self._lever, self._at, self._unit
        changes = lever.changes(0, sel)
        shown = [c for c in changes if c.largest_before or c.largest_after]
        first = self._steps[self._keys.index(lever.steps[0].key)]
        self.bars.set_rows([BarRow(c.name, c.largest_before, c.largest_after, c.touched) for c in shown], unit,
                           (first, self._steps[self._selected]))
        colours = colors_for(self)
        present = {c.name for c in changes}
        for term, row in self._rows.items():  # a term this setup does not have (a layout's buffers)
            if term not in present:
                for widget in row:
                    widget.setVisible(False)
        for c in changes:
            swatch, name, before, after = self._rows[c.name]
            for label in (swatch, name, before, after):
                label.setVisible(c in shown)
                font = label.font()
                font.setBold(c.touched)
                label.setFont(font)
            swatch.setText(f'<span style="color:{colours.term(c.name)}">&#9632;</span>')
            before.setText(format_bytes(c.largest_before, unit))
            after.setText("→ " + format_bytes(c.largest_after, unit))
        self.peak.setText(self._peak_text(lever.steps[0].estimate, lever.steps[sel].estimate))
        self.time.setText(self._time_text(self._step_time(0), self._step_time(sel)))
        is_current = lever.current == sel
        self.apply.setEnabled(not is_current)
        self.apply.setText(self.tr("This is your setup") if is_current
                           else self.tr("Use “{step}” in my setup").format(step=self._steps[self._selected]))

    def _step_time(self, index: int) -> StepTime | str:
        """The step time of position ``index`` (kept per setup: picking a position again times nothing again)."""
        assert self._lever is not None
        e = self._lever.steps[index].estimate
        key = (e.model, e.setup, e.gpu)
        if key not in self._times:
            if len(self._times) > 64:
                self._times.clear()
            self._times[key] = time_or_reason(e.model, e.setup, e.gpu)
        return self._times[key]

    def time_text(self) -> str:
        """The time line as shown (tests)."""
        return self.time.text()

    def _time_text(self, before: StepTime | str, after: StepTime | str) -> str:
        if isinstance(after, str):  # the engine's reason (English) as the tooltip
            self.time.setToolTip(after)
            return self.tr("Time: cannot be estimated (hover for why)")
        self.time.setToolTip("")
        if isinstance(before, str):
            return self.tr("Time per step {b:.3g} s, {tps} tokens/s per GPU").format(
                b=after.step_seconds, tps=f"{after.tokens_per_second_per_gpu:,.0f}")
        change = after.tokens_per_second_per_gpu / before.tokens_per_second_per_gpu - 1
        return self.tr("Time per step {a:.3g} s → {b:.3g} s; tokens/s per GPU {x} → {y} ({c:+.0%})").format(
            a=before.step_seconds, b=after.step_seconds, x=f"{before.tokens_per_second_per_gpu:,.0f}",
            y=f"{after.tokens_per_second_per_gpu:,.0f}", c=change)

    def _peak_text(self, before: Estimate, after: Estimate) -> str:
        u = self._unit
        verdict = {True: self.tr("fits"), False: self.tr("does not fit")}
        return self.tr("Allocated peak {a} → {b}; device total {c} → {d} of {gpu}: {v}").format(
            a=format_bytes(before.peak_allocated_bytes, u), b=format_bytes(after.peak_allocated_bytes, u),
            c=format_bytes(before.device_bytes, u), d=format_bytes(after.device_bytes, u),
            gpu=after.gpu.name, v=verdict[after.fits])
