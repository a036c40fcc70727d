"""The heat map shows the engine's numbers, its token labels, masked cells as −∞, and reveals cell by cell."""

from __future__ import annotations

import numpy as np
import pytest
from pytestqt.qtbot import QtBot

from engine.attention import StepKey, attention_steps
from gui.look.palette import DARK, LIGHT
from gui.widgets.cell_text import cell_label
from gui.widgets.heat_colors import heat_colors
from gui.widgets.matrix_view import MatrixView


@pytest.fixture
def view(qtbot: QtBot) -> MatrixView:
    widget = MatrixView()
    qtbot.addWidget(widget)
    widget.resize(400, 360)
    return widget


def test_cell_label() -> None:
    assert cell_label(-np.inf) == "−∞"
    assert cell_label(-0.004) == "0.00"
    assert cell_label(-1.234) == "−1.23"
    assert cell_label(0.5) == "0.50"


def test_shows_every_number_and_label(view: MatrixView) -> None:
    step = {s.key: s for s in attention_steps()}[StepKey.SCORES]
    view.set_matrix(step.matrix, step.row_labels, step.col_labels, "S")
    assert view.matrix_shape() == (6, 6)
    assert view.labels() == (step.row_labels, step.col_labels)
    for (r, c), value in np.ndenumerate(step.matrix):
        assert view.cell_text(r, c) == cell_label(value)


def test_masked_cells_read_minus_infinity_in_their_own_grey(view: MatrixView) -> None:
    step = {s.key: s for s in attention_steps()}[StepKey.MASKED]
    view.set_matrix(step.matrix, step.row_labels, step.col_labels)
    masked_grey = heat_colors(LIGHT).masked
    assert view.cell_text(0, 5) == "−∞"
    assert view.cell_color(0, 5) == masked_grey
    assert view.cell_color(5, 0) != masked_grey


def test_diverging_colours(view: MatrixView) -> None:
    view.set_matrix(np.array([[-2.0, 0.0, 2.0]]), ("a",), ("1", "2", "3"))
    hc = heat_colors(LIGHT)
    assert (view.cell_color(0, 0), view.cell_color(0, 2)) == (hc.negative, hc.positive)
    assert view.cell_color(0, 1) == hc.neutral


def test_reveal_and_highlight(view: MatrixView) -> None:
    values = np.arange(6.0).reshape(2, 3)
    view.set_matrix(values, ("a", "b"), ("1", "2", "3"))
    view.set_values(values, np.array([[True, False, False], [False, False, False]]))
    assert [view.cell_text(0, c) for c in range(3)] == ["0.00", "", ""]
    view.set_highlight((1, 2), None)
    rect = view.highlight_rect()
    assert rect is not None
    assert (rect.x(), rect.y(), rect.width(), rect.height()) == (0, 1, 3, 1)
    view.set_highlight(None, None)
    assert view.highlight_rect() is None


def test_follows_the_theme(qtbot: QtBot, view: MatrixView) -> None:
    from gui.look.theme import dark_palette

    view.set_matrix(np.array([[-np.inf, 1.0]]), ("a",), ("1", "2"))
    view.setPalette(dark_palette())
    assert view.cell_color(0, 0) == heat_colors(DARK).masked


def test_renders_offscreen(view: MatrixView) -> None:
    step = attention_steps()[0]
    view.set_matrix(step.matrix, step.row_labels, step.col_labels, "X")
    view.show()
    image = view.grab().toImage()
    assert image.width() == 400


def test_rows_scaled_one_by_one(view: MatrixView) -> None:
    """Softmax rows are each a distribution: by_row gives each row's largest cell the full colour."""
    values = np.array([[0.5, 0.25], [4.0, 1.0]])
    view.set_matrix(values, ("a", "b"), ("1", "2"))
    hc = heat_colors(LIGHT)
    assert view.cell_color(0, 0) != hc.positive  # 0.5 of a 4.0 scale
    view.set_values(values, by_row=True)
    assert view.cell_color(0, 0) == hc.positive
    assert view.cell_color(1, 0) == hc.positive
