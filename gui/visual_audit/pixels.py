"""Colours read out of a rendered widget (``QWidget.grab``): the background behind a text and the text's ink.

A grab is turned into an ``(height, width, 3)`` array of 8-bit RGB once; each text's rectangle is then a slice.
The background is the most frequent colour in the rectangle (text covers a minority of it). The ink is the colour
the text was drawn in when it can be seen there (its declared pens), else the common colour that stands out most
from the background: anti-aliased edges spread over many blended shades, the glyphs' cores share one.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import NDArray
from PySide6.QtCore import QRect
from PySide6.QtGui import QImage, QPixmap

RGB = tuple[int, int, int]
Pixels = NDArray[np.uint8]

STANDS_OUT = 40.0  # RGB distance from the background above which a pixel counts as ink
SAME = 24.0  # RGB distance within which a declared ink is as good as the background (the text cannot be seen)
EXACT = 10.0  # RGB distance within which a pixel is the declared ink itself (a glyph's core, not a blended edge)
UI_SHARE = 0.04  # a colour covering this share of an indicator is part of its drawing, not a stray edge pixel


def to_array(pixmap: QPixmap | QImage) -> Pixels:
    """The picture as an ``(h, w, 3)`` RGB array (a copy: the Qt image may go away)."""
    image = pixmap.toImage() if isinstance(pixmap, QPixmap) else pixmap
    image = image.convertToFormat(QImage.Format.Format_RGB32)
    h, w = image.height(), image.width()
    raw = np.frombuffer(image.constBits(), np.uint8, count=image.sizeInBytes())
    bgra = raw.reshape(h, image.bytesPerLine() // 4, 4)[:, :w]
    return np.ascontiguousarray(bgra[:, :, 2::-1])


def region(pixels: Pixels, rect: QRect) -> Pixels:
    """The pixels of ``rect`` (clamped to the picture), as an ``(n, 3)`` array."""
    h, w = pixels.shape[:2]
    x0, y0 = max(rect.left(), 0), max(rect.top(), 0)
    x1, y1 = min(rect.left() + rect.width(), w), min(rect.top() + rect.height(), h)
    if x1 <= x0 or y1 <= y0:
        return np.zeros((0, 3), np.uint8)
    return pixels[y0:y1, x0:x1].reshape(-1, 3)


def _keys(flat: NDArray[Any]) -> NDArray[np.int64]:
    c = flat.astype(np.int64)
    return np.asarray((c[:, 0] << 16) | (c[:, 1] << 8) | c[:, 2])


def _rgb(key: int) -> RGB:
    return (key >> 16) & 255, (key >> 8) & 255, key & 255


def colour_counts(flat: Pixels) -> list[tuple[RGB, int]]:
    """Each colour present with its pixel count, most frequent first."""
    if len(flat) == 0:
        return []
    keys, counts = np.unique(_keys(flat), return_counts=True)
    order = np.argsort(-counts, kind="stable")
    return [(_rgb(int(keys[i])), int(counts[i])) for i in order]


def dominant(flat: Pixels) -> RGB | None:
    """The most frequent colour (``None`` for no pixels)."""
    counts = colour_counts(flat)
    return counts[0][0] if counts else None


def background(inside: Pixels, ring: Pixels, inks: list[RGB]) -> RGB | None:
    """The colour behind a text: the commonest shade (in buckets of 8 per channel, so that a gradient counts as
    one) of the pixels around it and of those inside it that are not its ink; the mean of that bucket."""
    keep = inside
    for colour in inks:
        keep = keep[_distance(keep, colour) >= SAME]
    pool = np.concatenate([ring, keep]) if len(ring) + len(keep) else inside
    if len(pool) == 0:
        return None
    buckets = _keys(pool >> 3)
    values, counts = np.unique(buckets, return_counts=True)
    chosen = pool[buckets == values[int(np.argmax(counts))]]
    mean = chosen.astype(np.float64).mean(axis=0).round().astype(int)
    return int(mean[0]), int(mean[1]), int(mean[2])


def ring(pixels: Pixels, rect: QRect, clip: QRect, width: int = 3) -> Pixels:
    """The pixels within ``width`` of ``rect``, outside it and inside ``clip``, as an ``(n, 3)`` array."""
    outer = rect.adjusted(-width, -width, width, width).intersected(clip)
    h, w = pixels.shape[:2]
    x0, y0 = max(outer.left(), 0), max(outer.top(), 0)
    x1, y1 = min(outer.left() + outer.width(), w), min(outer.top() + outer.height(), h)
    if x1 <= x0 or y1 <= y0:
        return np.zeros((0, 3), np.uint8)
    ys, xs = np.mgrid[y0:y1, x0:x1]
    inner = (xs >= rect.left()) & (xs < rect.left() + rect.width()) & (ys >= rect.top()) & \
        (ys < rect.top() + rect.height())
    return np.asarray(pixels[y0:y1, x0:x1][~inner], np.uint8)


def _distance(flat: Pixels, colour: RGB) -> NDArray[np.float64]:
    return np.asarray(np.sqrt(((flat.astype(np.float64) - np.array(colour, np.float64)) ** 2).sum(axis=1)))


def shows(flat: Pixels, colour: RGB, background: RGB) -> bool:
    """Whether ``colour`` is drawn here as a text's ink: a few pixels within ``EXACT`` of it, as many as a quarter
    of the commonest colour standing out from the background (blended edges near another ink are rare)."""
    near = int((_distance(flat, colour) < EXACT).sum())
    counts = colour_counts(flat[_distance(flat, background) > STANDS_OUT])
    return near >= 3 and (not counts or near * 4 >= counts[0][1])


def blends_toward(found: RGB, background: RGB, colour: RGB) -> bool:
    """Whether ``found`` is ``colour`` blended into the background (a thin glyph has no solid core pixels): it lies
    on the line from the background to ``colour``, at least a third of the way and not beyond."""
    b, c, f = (np.asarray(x, np.float64) for x in (background, colour, found))
    span = c - b
    length = float(span @ span)
    if length == 0.0:
        return False
    t = float((f - b) @ span) / length
    residual = float(np.linalg.norm(f - (b + t * span)))
    return 0.33 <= t <= 1.05 and residual <= 12.0


def ink(flat: Pixels, background: RGB) -> RGB | None:
    """The colour that stands out from the background most among the common ones (at least a quarter as frequent
    as the commonest), or ``None`` when nothing stands out (the text cannot be seen). Glyph cores share one
    colour; anti-aliased edges spread over many blended shades, each rare and each closer to the background."""
    counts = colour_counts(flat[_distance(flat, background) > STANDS_OUT])
    if not counts:
        return None
    common = [c for c, n in counts if n * 4 >= counts[0][1]]
    return max(common, key=lambda c: float(np.linalg.norm(np.subtract(c, background))))


def part_colours(flat: Pixels, share: float = UI_SHARE) -> list[RGB]:
    """The colours that make up a small drawing (an indicator): each covering at least ``share`` of it."""
    total = len(flat)
    return [c for c, n in colour_counts(flat) if total and n / total >= share]
