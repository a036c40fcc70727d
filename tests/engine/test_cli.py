"""The command line: the contract's flags and JSON keys, and one-line errors with exit 2."""

import json
import subprocess
import sys

import pytest

from engine.cli import main

KEYS = {"total_params", "trainable_params", "peak_allocated_bytes", "reserved_bytes", "device_bytes",
        "peak_phase", "host_bytes", "terms"}


def _json(capsys, *argv):
    assert main([*argv, "--json"]) == 0
    return json.loads(capsys.readouterr().out)


def test_estimate_defaults_are_the_seeds(capsys):
    d = _json(capsys, "estimate")
    assert d.keys() >= KEYS
    assert d["total_params"] == 6_738_415_616
    assert d["setup"]["seq_len"] == 4096
    assert d["setup"]["batch"] == 1
    assert d["setup"]["precision"] == "bf16-mixed"
    assert d["setup"]["optimizer"] == "adamw"
    assert sum(d["terms"].values()) == d["peak_allocated_bytes"]


def test_every_contract_flag_is_accepted(capsys):
    d = _json(capsys, "estimate", "--model", "meta-llama/Llama-2-7b-hf", "--method", "lora", "--precision", "bf16",
              "--optimizer", "paged-adamw-8bit", "--batch", "2", "--seq-len", "2048", "--attention", "flash",
              "--checkpointing", "full", "--gpus", "4", "--sharding", "zero3", "--offload-optimizer",
              "--offload-params", "--lora-rank", "8", "--lora-alpha", "16", "--lora-dropout", "0.05",
              "--lora-targets", "qv")
    assert d["trainable_params"] == 32 * 8 * 4 * 4096
    assert d["host_bytes"] > 0


def test_models_lists_the_catalog(capsys):
    d = _json(capsys, "models")
    ids = {m["id"]: m for m in d["models"]}
    assert ids["llama-3.1-8b"]["total_params"] == 8_030_261_248
    assert len(ids) >= 60
    qwen = ids["qwen3-8b"]["source"]
    assert qwen["config"] == "https://huggingface.co/Qwen/Qwen3-8B/blob/main/config.json"
    assert qwen["total_params"] == ids["qwen3-8b"]["total_params"]


@pytest.mark.parametrize(
    "argv",
    [["estimate", "--seq-len", "0"], ["estimate", "--model", "nope"], ["estimate", "--method", "x"],
     ["estimate", "--batch", "many"], ["estimate", "--config", "/does/not/exist"],
     ["estimate", "--offload-params"], ["estimate", "--fsdp-version", "2"], ["estimate", "--fsdp-version", "3"]],
)
def test_bad_arguments_one_line_exit_2(argv):
    r = subprocess.run([sys.executable, "-m", "engine", *argv], capture_output=True, text=True, check=False)
    assert r.returncode == 2
    assert "Traceback" not in r.stderr
    assert len(r.stderr.strip().splitlines()) == 1, r.stderr


def test_weights_breakdown_sums_to_the_weights_term(capsys):
    d = _json(capsys, "estimate", "--method", "qlora", "--gpus", "4", "--sharding", "zero3")
    assert sum(d["weights_breakdown"].values()) == d["terms"]["weights"]
    assert d["weights_breakdown"]["quantized_4bit"] > 0
    # hf-trainer's QLoRA at the start of backward: the fp32 head's bf16 copy (32,000 x 4,096 x 2) and those of the
    # 39,976,960 fp32 adapters (engine.training.policy)
    assert d["weights_breakdown"]["autocast_copies"] == 2 * 32_000 * 4_096 + 2 * 39_976_960
    full = _json(capsys, "estimate", "--method", "full", "--precision", "bf16")
    assert "autocast_copies" not in full["weights_breakdown"]


def test_plan_rows_equal_estimate_with_their_flags(capsys):
    """The planner's contract: each row's numbers are estimate's for the row's flags."""
    plan = _json(capsys, "plan", "--model", "llama-3.1-70b", "--gpu", "h100-80gb", "--max-gpus", "32")
    assert plan["layouts"]
    keys = {"gpus", "dp", "tp", "pp", "cp", "ep", "sharding", "sequence_parallel", "checkpointing", "micro_batches",
            "peak_allocated_bytes", "device_bytes", "fits", "note"}
    for row in plan["layouts"][:3]:
        assert keys <= set(row)
        e = _json(capsys, "estimate", "--model", "llama-3.1-70b", "--gpu", "h100-80gb", *row["flags"])
        assert (e["peak_allocated_bytes"], e["device_bytes"]) == (row["peak_allocated_bytes"], row["device_bytes"])


def test_estimate_with_a_layout_reports_every_stage(capsys):
    e = _json(capsys, "estimate", "--model", "llama-2-70b", "--gpus", "16", "--tp", "8", "--pp", "2",
              "--micro-batches", "8", "--sequence-parallel")
    assert e["layout"] == {"dp": 1, "tp": 8, "pp": 2, "cp": 1, "ep": 1, "etp": 8, "sequence_parallel": True,
                           "micro_batches": 8, "schedule": "1f1b", "virtual_stages": 1, "pipeline_bubble": 0.125}
    assert [r["layers"] for r in e["ranks"]] == [[0, 39], [40, 79]]
    most = e["ranks"][e["most_loaded_stage"]]
    assert (e["device_bytes"], e["terms"]) == (most["device_bytes"], most["terms"])


def test_without_layout_flags_the_output_has_no_layout_keys(capsys):
    e = _json(capsys, "estimate")
    assert not {"layout", "ranks", "most_loaded_stage"} & set(e)
    assert "parallel" not in e["setup"]


@pytest.mark.parametrize(("args", "message"), [
    (["--gpus", "12", "--tp", "8"], "must be a whole multiple of tp x pp x cp"),
    (["--model", "llama-2-70b", "--gpus", "16", "--tp", "16"], "must divide the key/value heads"),
    (["--model", "mixtral-8x7b", "--gpus", "3", "--ep", "3"], "must divide the experts"),
    (["--pp", "40", "--gpus", "40"], "cannot exceed the layers"),
    (["--pp", "2", "--gpus", "2", "--pp-layers", "1,2,3"], "pp_layers lists 3 stages"),
    (["--pp", "2", "--gpus", "2", "--pp-layers", "a,b"], "layers per stage separated by commas"),
])
def test_an_impossible_layout_is_one_line_exit_2(args, message):
    r = subprocess.run([sys.executable, "-m", "engine", "estimate", *args], capture_output=True, text=True,
                       check=False)
    assert r.returncode == 2
    assert message in r.stderr
    assert len(r.stderr.strip().splitlines()) == 1


@pytest.mark.parametrize(("argv", "line"), [
    (["estimate", "--seq-len", "0"], "error: --seq-len: Input should be greater than or equal to 1"),
    (["estimate", "--lora-rank", "0"], "error: --lora-rank: Input should be greater than or equal to 1"),
    (["estimate", "--nodes", "0"], "error: --nodes: Input should be greater than or equal to 1"),
    (["kv-cache", "--model", "gpt2", "--tokens", str(10**30)],
     "error: --tokens: Input should be less than or equal to 1048576"),
    (["kv-cache", "--model", "gpt2", "--tokens", "8", "--tp", "0"],
     "error: --tp: Input should be greater than or equal to 1"),
    (["kv-cache", "--model", "gpt2", "--tokens", "8", "--sequences", "0"],
     "error: --sequences: Input should be greater than or equal to 1"),
    (["alignment", "--grpo-kl", "20"], "error: --grpo-kl: Input should be less than or equal to 10"),
    (["estimate", "--lora-alpha", "nan"], "error: --lora-alpha: Input should be a finite number"),
    (["levers", "--zero3-gpus", "0"], "error: --zero3-gpus: 0 is outside the engine's range (1 to 65,536)"),
])
def test_a_refused_value_is_named_by_its_flag(capsys, argv, line):
    """Issue 17: ``--seq-len 0`` named the field ``seq_len``, not the flag the user typed."""
    assert main(argv) == 2
    assert capsys.readouterr().err == line + "\n"


@pytest.mark.parametrize("argv", [["estimate", "--bogus"], ["estimate", "--seq-len", "abc"], ["nope"],
                                  ["estimate", "--seq-len", "0"], ["estimate", "--model", "nope"]])
def test_one_error_prefix_for_argparse_and_the_engine(capsys, argv):
    """Issue 17: argparse's errors started ``python -m engine estimate: error:``, the engine's ``error:``."""
    try:
        status: object = main(argv)
    except SystemExit as exit_:
        status = exit_.code
    assert status == 2
    err = capsys.readouterr().err
    assert err.startswith("error: "), err
    assert err.count("\n") == 1, err


@pytest.mark.parametrize("argv", [["estimate", "--model", ""], ["kv-cache", "--model", "", "--tokens", "8"]])
def test_an_empty_model_is_unknown_not_the_default(capsys, argv):
    """Issue 17: ``--model ''`` silently meant Llama 2 7B."""
    assert main(argv) == 2
    assert capsys.readouterr().err.startswith("error: unknown model ''")
