"""gui.look.style: Fusion's check-box indicators get an outline that stands out from the window (WCAG 2.1 1.4.11)."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication, QCheckBox, QStyleFactory, QVBoxLayout, QWidget
from pytestqt.qtbot import QtBot

from gui.look.style import AppStyle
from gui.look.theme import ThemeManager, dark_palette, high_contrast_palette, light_palette
from gui.visual_audit import controls
from gui.visual_audit.run import _Grabs


def _indicator_findings(qtbot: QtBot, style_name: str | None) -> list[object]:
    w = QWidget()
    w.setAttribute(Qt.WidgetAttribute.WA_DontShowOnScreen, True)
    layout = QVBoxLayout(w)
    for checked in (False, True):
        box = QCheckBox("Gradient checkpointing", w)
        box.setChecked(checked)
        if style_name is not None:
            box.setStyle(QStyleFactory.create(style_name))
        layout.addWidget(box)
    qtbot.addWidget(w)
    w.show()
    return list(controls.indicators(w, _Grabs()))


@pytest.mark.parametrize("palette", [light_palette, dark_palette, high_contrast_palette])
def test_indicators_stand_out_in_every_palette(qtbot: QtBot, qapp: QApplication, theme: ThemeManager,
                                               palette: object) -> None:
    """Issue 17: in the dark theme an unchecked box was about 1:1 against the window; plain Fusion fails, ours
    passes."""
    assert isinstance(qapp.style(), AppStyle)
    qapp.setPalette(palette())  # type: ignore[operator]
    assert _indicator_findings(qtbot, None) == []
    assert _indicator_findings(qtbot, "Fusion") != []
