"""``python -m engine estimate``: issue 19's flags (--loss, --loss-chunks, --activation-offload, --checkpointing
selective), their JSON, and every earlier output unchanged when they are not given."""

from __future__ import annotations

import json
from typing import Any

import pytest

from engine.cli import main

LONG = ("--model", "llama-3.1-8b", "--method", "lora", "--seq-len", "32768", "--checkpointing", "full",
        "--gpu", "h200")


def _json(capsys: pytest.CaptureFixture[str], *argv: str) -> dict[str, Any]:
    assert main([*argv, "--json"]) == 0
    data: dict[str, Any] = json.loads(capsys.readouterr().out)
    return data


def test_defaults_leave_the_json_as_it_was(capsys: pytest.CaptureFixture[str]) -> None:
    """The new setup fields stay out of the JSON at their defaults (TrainingSetup.OPTIONAL_IN_JSON)."""
    d = _json(capsys, "estimate")
    assert not {"loss", "loss_chunks", "activation_offload"} & d["setup"].keys()
    assert "offloaded_bytes" not in d  # only with --activation-offload


def test_the_flags_reach_the_setup(capsys: pytest.CaptureFixture[str]) -> None:
    d = _json(capsys, "estimate", *LONG, "--loss", "chunked", "--loss-chunks", "16", "--activation-offload")
    assert (d["setup"]["loss"], d["setup"]["loss_chunks"], d["setup"]["activation_offload"]) == ("chunked", 16, True)
    assert d["offloaded_bytes"] > 0
    training = next(p for p in d["host"]["phases"] if p["phase"] == "training")
    assert training["per_node_bytes"] == d["host"]["terms"]["runtime"] + d["offloaded_bytes"]  # issue 20's host model
    assert _json(capsys, "estimate", "--checkpointing", "selective")["setup"]["checkpointing"] == "selective"


def test_chunked_takes_the_logits_under_a_quarter(capsys: pytest.CaptureFixture[str]) -> None:
    """The issue's done-when, through the CLI (the terms at the peak): with ``--loss chunked`` (TRL) the logits
    are no longer at the peak at all, which moves to a checkpointed layer's backward, 33 GB against 71 GB
    (tests/engine/training/test_loss.py checks the term at its largest: 2.1% of standard); ``fused-linear-ce``
    takes it under a quarter too; ``chunked-output`` (torchtune, 8 chunks) only to 6.5 / 12, at the end of the
    forward."""
    runs = {loss: _json(capsys, "estimate", *LONG, "--loss", loss)
            for loss in ("standard", "chunked", "chunked-output", "fused-linear-ce")}
    logits = {loss: d["terms"]["logits"] for loss, d in runs.items()}
    assert logits["standard"] == 12 * 32_768 * 128_256
    assert logits["chunked"] < logits["standard"] / 4
    assert runs["chunked"]["peak_allocated_bytes"] < runs["standard"]["peak_allocated_bytes"] / 2
    assert logits["chunked-output"] / logits["standard"] == pytest.approx(6.5 / 12)
    assert runs["chunked-output"]["peak_phase"] == "forward"
    assert logits["fused-linear-ce"] < logits["standard"] / 4


def test_loss_chunks_defaults_are_each_tools_own(capsys: pytest.CaptureFixture[str]) -> None:
    """Without --loss-chunks nothing is written to the JSON: chunked uses TRL's 256-token chunks, chunked-output
    torchtune's 8."""
    for loss, words in (("chunked", "256-token chunk"), ("chunked-output", "8 chunks")):
        d = _json(capsys, "estimate", *LONG, "--loss", loss)
        assert "loss_chunks" not in d["setup"]
        assert words in next(t["formula"] for t in d["terms_detail"] if t["name"] == "logits")


def test_text_names_the_host_ram(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["estimate", *LONG, "--activation-offload"]) == 0
    assert "saved activations" in capsys.readouterr().out


@pytest.mark.parametrize("argv", [["--loss", "tiled"], ["--loss-chunks", "0"], ["--checkpointing", "some"]])
def test_bad_values_are_one_line_and_exit_2(capsys: pytest.CaptureFixture[str], argv: list[str]) -> None:
    try:
        code = main(["estimate", *argv])
    except SystemExit as exit_:  # argparse's own refusals (an unknown choice) exit from inside
        code = exit_.code  # type: ignore[assignment]
    assert code == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1


def test_alloc_conf_is_read_as_pytorch_reads_it(capsys: pytest.CaptureFixture[str]) -> None:
    """--alloc-conf (issue 26): the PYTORCH_CUDA_ALLOC_CONF string lands in the setup (left out at its default)."""
    assert "alloc_conf" not in _json(capsys, "estimate")["setup"]
    d = _json(capsys, "estimate", "--alloc-conf", "expandable_segments:True, max_split_size_mb:512")
    assert d["setup"]["alloc_conf"]["expandable_segments"] is True
    assert d["setup"]["alloc_conf"]["max_split_size_mb"] == 512


def test_a_bad_alloc_conf_names_the_option(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_:
        main(["estimate", "--alloc-conf", "expandable_segments:yes"])
    assert exit_.value.code == 2
    assert capsys.readouterr().err.strip().endswith(
        "argument --alloc-conf: expandable_segments: expected True or False, found 'yes'")
