"""``python -m engine attention``: the JSON contract and one-line errors."""

from __future__ import annotations

import json
from typing import Any

import pytest

from engine.cli import main


def run_json(capsys: pytest.CaptureFixture[str], *argv: str) -> dict[str, Any]:
    assert main(["attention", *argv, "--json"]) == 0
    data: dict[str, Any] = json.loads(capsys.readouterr().out)
    return data


def test_default_json(capsys: pytest.CaptureFixture[str]) -> None:
    data = run_json(capsys)
    assert [s["key"] for s in data["steps"]] == ["x", "q", "k", "v", "scores", "masked", "softmax", "output"]
    scores = data["steps"][4]
    assert (scores["per_head_bytes"], scores["per_layer_bytes"], scores["all_layers_bytes"]) == (
        2**25,
        2**30,
        2**35,
    )
    masked = data["steps"][5]["matrix"]
    assert masked[0][1] is None
    assert masked[1][0] is not None
    assert data["flash_attention_kept"]["per_head_bytes"] == 2**20 + 4096 * 4


def test_options(capsys: pytest.CaptureFixture[str]) -> None:
    data = run_json(capsys, "--model", "llama-3.1-8b", "--seq-len", "8", "--dtype", "fp32", "--sentence", "a b")
    assert data["tokens"] == ["a", "b"]
    assert data["steps"][2]["per_layer_bytes"] == 8 * 128 * 8 * 4


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--sentence", "a b c d e f g h i"], "at most 8"),
        (["--seq-len", "0"], "--seq-len:"),
        (["--model", "nope"], "unknown model"),
    ],
)
def test_errors_are_one_line_exit_2(capsys: pytest.CaptureFixture[str], argv: list[str], message: str) -> None:
    assert main(["attention", *argv]) == 2
    err = capsys.readouterr().err
    assert message in err
    assert err.count("\n") == 1
