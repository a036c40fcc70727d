"""gui.look.wcag: WCAG 2.1's luminance and contrast ratio, against the definition's known values."""

from __future__ import annotations

import pytest

from gui.look.wcag import contrast_ratio, is_large, relative_luminance, text_minimum


def test_black_and_white_are_the_extremes() -> None:
    assert relative_luminance((0, 0, 0)) == 0.0
    assert relative_luminance((255, 255, 255)) == pytest.approx(1.0)
    assert contrast_ratio((255, 255, 255), (0, 0, 0)) == pytest.approx(21.0)
    assert contrast_ratio((0, 0, 0), (255, 255, 255)) == pytest.approx(21.0)  # order does not matter


def test_known_pairs() -> None:
    # #777777 on white is the classic "just fails AA" grey (4.48:1); #767676 just passes (4.54:1)
    assert contrast_ratio((0x77, 0x77, 0x77), (255, 255, 255)) == pytest.approx(4.48, abs=0.01)
    assert contrast_ratio((0x76, 0x76, 0x76), (255, 255, 255)) == pytest.approx(4.54, abs=0.01)
    # the dark theme's light bar colour under white labels (issue 17: about 2.2:1)
    assert contrast_ratio((255, 255, 255), (0x56, 0xB4, 0xE9)) == pytest.approx(2.3, abs=0.1)


def test_large_text_needs_three_to_one() -> None:
    assert is_large(24, bold=False)
    assert is_large(18.66, bold=True)
    assert not is_large(23, bold=False)
    assert not is_large(18, bold=True)
    assert text_minimum(12, bold=False) == 4.5
    assert text_minimum(24, bold=False) == 3.0
