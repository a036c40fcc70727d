"""Errors that help (issue 17), with the names the issue typed on the command line: a misspelt model or GPU gets
its closest matches (difflib) in one line, not the whole catalog; an HF id the catalog does not know gets the hint
to give its config.json with ``--config``; an HF alias (``meta-llama/Meta-Llama-3.1-8B``) and a GPU's shorthand
(``H100``, ``rtx4090``) are known; an ambiguous one (``a100``) names its candidates.

The names are resolved by the catalog (``engine.catalog.resolve_model_id``, ``difflib``); its own tests are
``tests/engine/test_catalog_names.py``.
"""

from __future__ import annotations

import json

import pytest

from engine.cli import main


def _refused(capsys: pytest.CaptureFixture[str], *argv: str) -> str:
    assert main(["estimate", *argv]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: "), err
    assert err.count("\n") == 1, err
    return err


@pytest.mark.parametrize(("name", "closest"), [("lama-3.1-8b", "llama-3.1-8b"), ("llama2-70b", "llama-2-70b")])
def test_a_misspelt_model_gets_its_closest_matches_and_the_config_hint(
    capsys: pytest.CaptureFixture[str], name: str, closest: str
) -> None:
    """They printed all 24 ids (about 400 characters), no closest match, no hint."""
    err = _refused(capsys, "--model", name)
    assert err.startswith(f"error: unknown model {name!r}; did you mean {closest}, "), err
    suggested = err.split("did you mean ", 1)[1].split("?", 1)[0].split(", ")
    assert len(suggested) <= 5, suggested
    assert "--config" in err
    assert len(err) < 400, len(err)


def test_an_hf_id_the_catalog_does_not_know_is_told_to_use_config(capsys: pytest.CaptureFixture[str]) -> None:
    err = _refused(capsys, "--model", "someorg/Some-Model-7B")
    assert "unknown model 'someorg/Some-Model-7B'" in err
    assert "config.json with --config" in err


@pytest.mark.parametrize(("argv", "model", "gpu"), [
    (["--model", "meta-llama/Meta-Llama-3.1-8B"], "llama-3.1-8b", "a100-80gb"),  # was unknown
    (["--model", "Qwen/Qwen3-8B"], "qwen3-8b", "a100-80gb"),  # was unknown
    (["--model", "llama-2-7b", "--gpu", "rtx4090"], "llama-2-7b", "rtx-4090"),
    (["--model", "llama-2-7b", "--gpu", "H100"], "llama-2-7b", "h100-80gb"),
])
def test_aliases_and_shorthands_are_known(capsys: pytest.CaptureFixture[str], argv: list[str], model: str,
                                          gpu: str) -> None:
    assert main(["estimate", *argv, "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert (out["model"], out["gpu"]) == (model, gpu)


def test_an_ambiguous_gpu_names_its_candidates(capsys: pytest.CaptureFixture[str]) -> None:
    err = _refused(capsys, "--gpu", "a100")
    assert "a100-40gb, a100-80gb" in err
