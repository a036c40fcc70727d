"""gui.look.palette: one colour per engine term, readable on its theme's background, picked from the Qt palette."""

from __future__ import annotations

import pytest
from PySide6.QtGui import QColor
from PySide6.QtWidgets import QWidget
from pytestqt.qtbot import QtBot

from engine.terms import TERMS, Scope, in_scope
from gui.look.palette import DARK, HIGH_CONTRAST, LIGHT, Colors, colors, colors_for
from gui.look.theme import dark_palette, light_palette


def luminance(hex_code: str) -> float:
    def channel(c: float) -> float:
        return c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4

    color = QColor(hex_code)
    r, g, b = (channel(v) for v in (color.redF(), color.greenF(), color.blueF()))
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def contrast(a: str, b: str) -> float:
    hi, lo = sorted((luminance(a), luminance(b)), reverse=True)
    return (hi + 0.05) / (lo + 0.05)


@pytest.mark.parametrize("theme", [LIGHT, DARK], ids=["light", "dark"])
def test_every_term_is_readable_on_the_background(theme: Colors) -> None:
    for term in TERMS:
        assert term in theme.terms, term
        assert contrast(theme.term(term), theme.background) >= 3.0, term
    assert contrast(theme.foreground, theme.background) >= 7.0


@pytest.mark.parametrize("theme", [LIGHT, DARK, HIGH_CONTRAST], ids=["light", "dark", "presentation"])
@pytest.mark.parametrize("scope", [Scope.TRAINING, Scope.SERVING, Scope.ALIGNMENT])
def test_terms_drawn_together_are_distinct(theme: Colors, scope: Scope) -> None:
    """A chart stacks one scope's terms with the weights and the device-level terms: no two may look alike."""
    together = {*in_scope(scope), *in_scope(Scope.DEVICE), "weights"}
    assert len({theme.term(t) for t in together}) == len(together)


def test_an_unknown_term_is_grey() -> None:
    assert LIGHT.term("unknown") == LIGHT.muted


def test_colors_follow_the_widget_palette(qtbot: QtBot) -> None:
    widget = QWidget()
    qtbot.addWidget(widget)
    widget.setPalette(dark_palette())
    assert colors_for(widget) is DARK is colors(True)
    widget.setPalette(light_palette())
    assert colors_for(widget) is LIGHT


@pytest.mark.parametrize("theme", [LIGHT, DARK, HIGH_CONTRAST], ids=["light", "dark", "presentation"])
def test_host_terms_drawn_together_are_distinct(theme: Colors) -> None:
    """The Host RAM bars stack the host terms alone; each borrows the hue of the GPU term it is the host side of
    (the checkpoint: weights; offloaded states: optimizer states), so no two of them may look alike."""
    host = in_scope(Scope.HOST)
    assert len({theme.term(t) for t in host}) == len(host)
    assert theme.term("model_loading") == theme.term("weights")
    assert theme.term("offloaded_states") == theme.term("optimizer_states")


def test_labels_on_bars_take_the_ink_that_reads() -> None:
    """Issue 17: white labels on the dark theme's light bar colours read at about 2.2:1."""
    from gui.look.palette import DARK, LIGHT, ink_on

    for colours in (LIGHT, DARK):
        for name, fill in colours.terms.items():
            best = max(contrast("#ffffff", fill), contrast(LIGHT.foreground, fill))
            assert contrast(ink_on(fill), fill) == best, name
    assert ink_on(DARK.term("weights")) == LIGHT.foreground
    assert ink_on(LIGHT.term("weights")) == "#ffffff"
