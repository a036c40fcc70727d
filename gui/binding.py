"""The one helper that binds controls to scenario fields: pickers, sliders, spin boxes and toggles.

- model -> widget: on every ``Scenario.changed`` each bound widget is refreshed with its signals blocked, and
  only when it shows a different value, so a control never echoes back and a log slider never jumps.
- widget -> model: pickers and toggles write at once; sliders and spin boxes write through a ``Coalescer``, so a
  drag that fires fifty ``valueChanged`` in one event-loop turn makes one ``update`` with the newest values.
- a value the engine rejects (``ScenarioError``) puts the widget back and emits ``rejected``.

Usage::

    binder = Binder(scenario, parent=self)
    binder.combo(self.method_box, "method", [(self.tr("Full"), Method.FULL), (self.tr("LoRA"), Method.LORA)])
    binder.slider(self.seq_slider, "seq_len", SliderScale.for_field("seq_len", ScaleKind.POW2, UI_SEQ_LEN))
    binder.toggle(self.ckpt_box, "checkpointing", on=Checkpointing.FULL, off=Checkpointing.NONE)
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, Protocol

from PySide6.QtCore import QObject, QSignalBlocker, Signal, SignalInstance
from PySide6.QtWidgets import QAbstractButton, QButtonGroup, QComboBox, QDoubleSpinBox, QSlider, QSpinBox

from gui.coalesce import Coalescer
from gui.scenario import ScenarioError
from gui.slider_scale import SliderScale

Choices = Sequence[tuple[str, Any]]


class Bindable(Protocol):
    """What a binder binds to: the ``Scenario``, or a page's own state with the same interface
    (``get``, ``update`` raising ``ScenarioError``, a ``changed`` signal), e.g. the serving page's."""

    @property
    def changed(self) -> SignalInstance: ...

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


class Binder(QObject):
    """Binds widgets to one ``Scenario`` (or another ``Bindable`` state).

    Signals:
        rejected(str, str): a control's value was refused (field, one-line reason); the control was reset.
    """

    rejected = Signal(str, str)

    def __init__(self, scenario: Bindable, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._scenario = scenario
        self._bound: list[_Bound] = []
        self._pending: dict[str, Any] = {}
        self._writer = Coalescer(self._write_pending, self)
        scenario.changed.connect(self.refresh)

    def combo(self, box: QComboBox, field: str, choices: Choices) -> None:
        """A picker over ``(label, value)`` choices (labels already translated)."""
        values = [value for _, value in choices]
        with QSignalBlocker(box):
            box.clear()
            box.addItems([label for label, _ in choices])
        read = lambda: values[box.currentIndex()] if box.currentIndex() >= 0 else None  # noqa: E731
        self._add(_Bound(box, field, read, lambda v: box.setCurrentIndex(values.index(v))))
        box.currentIndexChanged.connect(lambda _i: self._write_now(field, read()))

    def slider(self, slider: QSlider, field: str, scale: SliderScale) -> None:
        """An int slider mapped to ``scale`` (linear, log or powers of two); writes are coalesced."""
        with QSignalBlocker(slider):
            slider.setRange(0, scale.positions)
        read = lambda: _number(scale.to_value(slider.value()), scale.integer)  # noqa: E731
        self._add(_Bound(slider, field, read, lambda v: slider.setValue(scale.to_position(v))))
        slider.valueChanged.connect(lambda _p: self._write_later(field, read()))

    def spin(self, spin: QSpinBox | QDoubleSpinBox, field: str) -> None:
        """A spin box (set its range yourself, e.g. from ``SliderScale.for_field``); writes are coalesced."""
        self._add(_Bound(spin, field, spin.value, spin.setValue))
        spin.valueChanged.connect(lambda v: self._write_later(field, v))

    def toggle(self, button: QAbstractButton, field: str, on: Any = True, off: Any = False) -> None:
        """A check box or checkable button; ``on``/``off`` map it to a two-valued field (default bool)."""
        button.setCheckable(True)
        read = lambda: on if button.isChecked() else off  # noqa: E731
        self._add(_Bound(button, field, read, lambda v: button.setChecked(v == on)))
        button.toggled.connect(lambda _c: self._write_now(field, read()))

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
            group.addButton(button)

        def read() -> Any:
            return next((v for b, v in choices if b.isChecked()), None)

        def show(value: Any) -> None:
            for b, v in choices:
                with QSignalBlocker(b):
                    b.setChecked(v == value)

        self.custom(group, field, read=read, show=show, changed=group.buttonClicked)

    def refresh(self) -> None:
        """Show the scenario's values in every bound widget (signals blocked)."""
        for bound in self._bound:
            bound.push(self._scenario.get(bound.field))

    def flush(self) -> None:
        """Write pending slider / spin values now (e.g. before a test reads the scenario)."""
        self._writer.flush()

    def _add(self, bound: _Bound) -> None:
        self._bound.append(bound)
        bound.push(self._scenario.get(bound.field))

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
            self._scenario.update(**changes)
        except ScenarioError as err:
            self.refresh()
            self.rejected.emit(next(iter(changes)), str(err))


def _number(value: float, integer: bool) -> float | int:
    return int(value) if integer else value
