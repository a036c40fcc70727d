"""A spy on a pyqtgraph axis' ``setLabel``, for the tests that a chart labels its axis again only when the unit
changes (a new label makes pyqtgraph draw the axis from scratch)."""

from __future__ import annotations

from typing import Any

import pytest


def label_calls(axis: Any, monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Every text ``axis.setLabel`` is called with from now on (the label is still set)."""
    labels: list[str] = []
    labelled = axis.setLabel

    def spy(text: str, *args: object, **kwargs: object) -> None:
        labels.append(text)
        labelled(text, *args, **kwargs)

    monkeypatch.setattr(axis, "setLabel", spy)
    return labels
