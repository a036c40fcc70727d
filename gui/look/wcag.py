"""WCAG 2.1's relative luminance and contrast ratio, and which threshold a text must meet.

Source: W3C, Web Content Accessibility Guidelines 2.1, definitions of "relative luminance" and "contrast ratio",
success criteria 1.4.3 (text: 4.5:1, large text 3:1) and 1.4.11 (user-interface components: 3:1). "Large" is at
least 18 point, or 14 point bold; at CSS's 96 px per inch that is 24 px, or 18.66 px bold.
"""

from __future__ import annotations

TEXT_MIN = 4.5
LARGE_TEXT_MIN = 3.0
UI_PART_MIN = 3.0
LARGE_PX = 24.0
LARGE_BOLD_PX = 18.66


def _channel(value: int) -> float:
    """One sRGB channel (0-255) linearised, as WCAG 2.1 defines it."""
    c = value / 255
    return c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4


def relative_luminance(rgb: tuple[int, int, int]) -> float:
    """L = 0.2126 R + 0.7152 G + 0.0722 B over the linearised channels (0 black, 1 white)."""
    r, g, b = rgb
    return 0.2126 * _channel(r) + 0.7152 * _channel(g) + 0.0722 * _channel(b)


def contrast_ratio(a: tuple[int, int, int], b: tuple[int, int, int]) -> float:
    """(L1 + 0.05) / (L2 + 0.05), the lighter colour's luminance over the darker's: 1 to 21."""
    la, lb = relative_luminance(a), relative_luminance(b)
    return (max(la, lb) + 0.05) / (min(la, lb) + 0.05)


def is_large(pixel_size: float, bold: bool) -> bool:
    """Whether text of this size counts as large (24 px, or 18.66 px bold)."""
    return pixel_size >= LARGE_PX or (bold and pixel_size >= LARGE_BOLD_PX)


def text_minimum(pixel_size: float, bold: bool) -> float:
    """The contrast a text of this size needs: 3:1 when large, else 4.5:1."""
    return LARGE_TEXT_MIN if is_large(pixel_size, bold) else TEXT_MIN
