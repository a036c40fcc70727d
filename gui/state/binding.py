"""The one helper that binds controls to a page state's fields: pickers, sliders, spin boxes, toggles, switches.

Every page binds its controls this way, to the shared ``Scenario`` or to its own ``PageState``; one field has one
control, or several that are views of one another (a slider and its spin box; a switch beside its picker).

- model -> widget: when ``changed`` names a bound field, its widgets are refreshed with their signals blocked,
  and only when they show a different value, so a control never echoes back and a log slider never jumps.
- widget -> model: pickers and toggles write at once; sliders and spin boxes write through a ``Coalescer``, so a
  drag that fires fifty ``valueChanged`` in one event-loop turn makes one ``update`` with the newest values.
- a value the engine rejects (``StateError``) puts the widget back and emits ``rejected``.

Usage::

    binder = Binder(scenario, parent=self)
    binder.combo(self.method_box, "method", [(self.tr("Full"), Method.FULL), (self.tr("LoRA"), Method.LORA)])
    self.optimizer = binder.picker(box, "optimizer", [("AdamW", Optimizer.ADAMW), ...])  # a new, narrow picker
    binder.slider(self.seq_slider, "seq_len", SliderScale.for_field("seq_len", ScaleKind.POW2, ranges.SEQ_LEN))
    binder.toggle(self.ckpt_box, "checkpointing", on=Checkpointing.FULL, off=Checkpointing.NONE)
    binder.switch(self.flash_box, "attention", on=(Attention.SDPA, Attention.FLASH),
                  default_on=Attention.FLASH, default_off=Attention.EAGER)   # a view of the attention picker
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Sequence
from typing import Any, Protocol

from PySide6.QtCore import QObject, QSignalBlocker, Signal, SignalInstance
from PySide6.QtWidgets import QAbstractButton, QButtonGroup, QComboBox, QDoubleSpinBox, QSlider, QSpinBox, QWidget

from gui.state.coalesce import Coalescer
from gui.state.page_state import Fields, StateError, touches
from gui.state.slider_scale import SliderScale

Choices = Sequence[tuple[str, Any]]
#: the longest label a picker gives a value that is not among its choices
MAX_LABEL = 80
#: how many characters wide a picker made by ``Binder.picker`` is at least (its long choices show when open)
PICKER_CHARS = 10


def _label(value: Any) -> str:
    """A value's ``name`` (a GPU's, a model's) or its text, cut to ``MAX_LABEL`` characters."""
    text = str(getattr(value, "name", None) or value)
    return text if len(text) <= MAX_LABEL else text[: MAX_LABEL - 1] + "…"


class Bindable(Protocol):
    """What a binder binds to: a ``gui.state.page_state.PageState`` (the ``Scenario``, or a page's own state)."""

    @property
    def changed(self) -> SignalInstance: ...

    def path(self, field: str) -> str: ...

    def get(self, field: str) -> Any: ...

    def update(self, **fields: Any) -> bool: ...


class _Bound:
    """One widget bound to one field: how to read it, how to show a value in it."""

    def __init__(self, widget: QObject, field: str, read: Callable[[], Any], show: Callable[[Any], None]):
        self.widget, self.field, self.read, self.show = widget, field, read, show

    def push(self, value: Any) -> None:
        if self.read() != value:
            with QSignalBlocker(self.widget):
                self.show(value)


class _Switch(_Bound):
    """A check box that is a view of a many-valued field: checked when the value is one of ``on``.

    It remembers the last value it saw on either side, so that unticking writes the last "off" value and ticking
    the last "on" one: ticking twice gives the value back, and a picker bound to the same field loses nothing.
    """

    def __init__(self, button: QAbstractButton, field: str, on: Collection[Any], default_on: Any, default_off: Any):
        super().__init__(button, field, button.isChecked, button.setChecked)
        self.on = tuple(on)
        self.last = {True: default_on, False: default_off}

    def is_on(self, value: Any) -> bool:
        return any(value == v for v in self.on)

    def push(self, value: Any) -> None:
        self.last[self.is_on(value)] = value
        super().push(self.is_on(value))

    def value(self) -> Any:
        """What the field becomes for the button's (new) state."""
        return self.last[bool(self.read())]


class Binder(QObject):
    """Binds widgets to one page state (the ``Scenario``, or a page's own ``PageState``).

    Signals:
        rejected(str, str): a control's value was refused (field, one-line reason); the control was reset.
    """

    rejected = Signal(str, str)

    def __init__(self, state: Bindable, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._state = state
        self._bound: list[_Bound] = []
        self._pending: dict[str, Any] = {}
        self._writer = Coalescer(self._write_pending, self)
        state.changed.connect(self.refresh)

    def combo(self, box: QComboBox, field: str, choices: Choices,
              label: Callable[[Any], str] = _label) -> None:
        """A picker over ``(label, value)`` choices (labels already translated). A value that is none of them (a
        saved scenario's own GPU) is shown as one more item, named by ``label``, until another value is shown."""
        values = [value for _, value in choices]
        base = len(values)
        with QSignalBlocker(box):
            box.clear()
            box.addItems([text for text, _ in choices])
        def read() -> Any:
            return values[box.currentIndex()] if box.currentIndex() >= 0 else None

        def show(value: Any) -> None:
            if value not in values[:base]:
                del values[base:]
                while box.count() > base:
                    box.removeItem(base)
                values.append(value)
                box.addItem(label(value))
            box.setCurrentIndex(values.index(value))

        self._add(_Bound(box, field, read, show))
        box.currentIndexChanged.connect(lambda _i: self._write_now(field, read()))

    def picker(self, parent: QWidget, field: str, choices: Choices) -> QComboBox:
        """A new picker over ``choices``, bound to ``field`` (``combo``), as narrow as ``PICKER_CHARS`` characters
        allow (a settings column stays narrow; its long choices show in the open list)."""
        box = QComboBox(parent)
        box.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
        box.setMinimumContentsLength(PICKER_CHARS)
        self.combo(box, field, choices)
        return box

    def slider(self, slider: QSlider, field: str, scale: SliderScale) -> None:
        """An int slider mapped to ``scale`` (linear, log or powers of two); writes are coalesced."""
        with QSignalBlocker(slider):
            slider.setRange(0, scale.positions)
        def read() -> float | int:
            return _number(scale.to_value(slider.value()), scale.integer)

        self._add(_Bound(slider, field, read, lambda v: slider.setValue(scale.to_position(v))))
        slider.valueChanged.connect(lambda _p: self._write_later(field, read()))

    def spin(self, spin: QSpinBox | QDoubleSpinBox, field: str) -> None:
        """A spin box (set its range yourself, e.g. from ``gui.state.ranges``); writes are coalesced. A value beyond its
        range (a saved scenario's 1,048,576 tokens, the engine's bound, past the GUI's 131,072) widens the range
        to it, so that the box shows the state's value instead of clamping it (issue 17); a slider bound to the
        same field stays at its end."""
        def show(value: Any) -> None:
            if value < spin.minimum():
                spin.setMinimum(value)
            if value > spin.maximum():
                spin.setMaximum(value)
            spin.setValue(value)

        self._add(_Bound(spin, field, spin.value, show))
        spin.valueChanged.connect(lambda v: self._write_later(field, v))

    def toggle(self, button: QAbstractButton, field: str, on: Any = True, off: Any = False) -> None:
        """A check box or checkable button; ``on``/``off`` map it to a two-valued field (default bool)."""
        self.switch(button, field, on=(on,), default_on=on, default_off=off)

    def switch(
        self, button: QAbstractButton, field: str, on: Collection[Any], default_on: Any, default_off: Any
    ) -> None:
        """A check box over a many-valued field, checked when the value is one of ``on``: a view of the field's
        picker, never a second owner. Unticking writes the last value seen outside ``on`` (``default_off``
        before any), ticking the last one seen inside (``default_on`` before any), so no value is lost."""
        button.setCheckable(True)
        bound = _Switch(button, field, on, default_on, default_off)
        self._add(bound)
        button.toggled.connect(lambda _c: self._write_now(field, bound.value()))

    def custom(
        self,
        widget: QObject,
        field: str,
        *,
        read: Callable[[], Any],
        show: Callable[[Any], None],
        changed: Any,
        coalesce: bool = False,
    ) -> None:
        """Any widget: ``read()`` gives its value, ``show(value)`` displays one, ``changed`` (a signal) fires
        on user edits. Signals are blocked while showing, as for every other binding."""
        self._add(_Bound(widget, field, read, show))
        write = self._write_later if coalesce else self._write_now
        changed.connect(lambda *_args: write(field, read()))

    def buttons(self, group: QButtonGroup, field: str, choices: Sequence[tuple[QAbstractButton, Any]]) -> None:
        """A segmented control: exclusive checkable buttons, one value each."""
        group.setExclusive(True)
        for button, _ in choices:
            button.setCheckable(True)
            if button.group() is not group:  # a button already in the group keeps its id
                group.addButton(button)

        def read() -> Any:
            return next((v for b, v in choices if b.isChecked()), None)

        def show(value: Any) -> None:
            for b, v in choices:
                with QSignalBlocker(b):
                    b.setChecked(v == value)

        self.custom(group, field, read=read, show=show, changed=group.buttonClicked)

    def refresh(self, fields: Fields | None = None) -> None:
        """Show the state's values in the widgets bound to ``fields`` (default: every one), signals blocked."""
        for bound in self._bound:
            if fields is None or touches(fields, (self._state.path(bound.field),)):
                bound.push(self._state.get(bound.field))

    def flush(self) -> None:
        """Write pending slider / spin values now (e.g. before a test reads the scenario)."""
        self._writer.flush()

    def _add(self, bound: _Bound) -> None:
        self._bound.append(bound)
        bound.push(self._state.get(bound.field))

    def _write_later(self, field: str, value: Any) -> None:
        self._pending[field] = value
        self._writer.schedule()

    def _write_now(self, field: str, value: Any) -> None:
        self._pending[field] = value
        self._writer.cancel()
        self._write_pending()

    def _write_pending(self) -> None:
        changes, self._pending = self._pending, {}
        try:
            self._state.update(**changes)
        except StateError as err:
            self.refresh()
            self.rejected.emit(next(iter(changes)), str(err))


def _number(value: float, integer: bool) -> float | int:
    return int(value) if integer else value
