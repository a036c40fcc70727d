"""gui.visual_audit.pixels: colours out of a picture: background (gradients count once), ink, blends."""

from __future__ import annotations

import numpy as np
from PySide6.QtCore import QRect
from PySide6.QtGui import QColor, QImage

from gui.visual_audit import pixels


def test_to_array_is_rgb_row_major() -> None:
    image = QImage(3, 2, QImage.Format.Format_RGB32)
    image.fill(QColor("#102030"))
    image.setPixelColor(2, 1, QColor("#ff0000"))
    a = pixels.to_array(image)
    assert a.shape == (2, 3, 3)
    assert tuple(a[0, 0]) == (0x10, 0x20, 0x30)
    assert tuple(a[1, 2]) == (255, 0, 0)
    assert len(pixels.region(a, QRect(1, 0, 5, 5))) == 4  # clamped to the picture


def test_background_counts_a_gradient_once_and_skips_the_ink() -> None:
    ramp = np.array([[60 + i % 8, 60 + i % 8, 60 + i % 8] for i in range(60)], np.uint8)  # a gradient, 8 shades
    ink = np.full((20, 3), 255, np.uint8)
    flat = np.concatenate([ramp, ink])
    assert pixels.dominant(flat) == (255, 255, 255)  # the most frequent single colour is the ink
    bg = pixels.background(flat, np.zeros((0, 3), np.uint8), [(255, 255, 255)])
    assert bg is not None
    assert all(60 <= c <= 67 for c in bg)


def test_blends_are_told_from_inks() -> None:
    blue, white = (47, 111, 208), (255, 255, 255)
    edge = (230, 233, 239)  # a glyph edge: white blended into the blue (what a wrong declared ink matched)
    assert pixels.blends_toward(edge, blue, white)
    assert not pixels.blends_toward(white, blue, edge)
