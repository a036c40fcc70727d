"""Several files together: a named file is followed once, a missing one is reported, shipped ones are known."""

from __future__ import annotations

from pathlib import Path

import pytest

from engine.config_import import import_configs
from engine.config_import.report import ConfigRefusedError

TRAIN = "model_name_or_path: gpt2\nstage: sft\ndo_train: true\nfinetuning_type: full\nbf16: true\n"


def test_a_named_file_beside_the_config_is_followed(imported):
    r = imported({"ds_z2.json": '{"zero_optimization": {"stage": 2}}', "t.yaml": TRAIN + "deepspeed: ds_z2.json\n"},
                 given=["t.yaml"])
    assert [Path(f).name for f in r.report.files] == ["t.yaml", "ds_z2.json"]
    assert r.report.format.value == "llama-factory"
    assert r.setup.sharding.value == "zero2"


def test_a_file_given_and_named_is_read_once(imported):
    r = imported({"t.yaml": TRAIN + "deepspeed: ds.json\n", "ds.json": '{"zero_optimization": {"stage": 1}}'})
    assert [Path(f).name for f in r.report.files] == ["t.yaml", "ds.json"]


def test_a_missing_file_is_reported_and_a_shipped_one_assumed(imported):
    missing = imported({"t.yaml": TRAIN + "deepspeed: my/ds.json\n"})
    assert "was not found" in str(next(i.why for i in missing.report.ignored if i.key == "deepspeed"))
    assert missing.setup.precision.value == "bf16-mixed"  # still DeepSpeed
    shipped = imported({"u.yaml": TRAIN + "deepspeed: examples/deepspeed/ds_z3_offload_config.json\n"})
    s = shipped.setup
    assert (s.sharding.value, s.offload_optimizer, s.offload_params) == ("zero3", True, True)
    assert shipped.report.assumed["sharding"] == "zero3"


def test_files_naming_each_other_do_not_loop(imported):
    r = imported({"a.yaml": "distributed_type: DEEPSPEED\ndeepspeed_config:\n  deepspeed_config_file: a.yaml\n"})
    assert len(r.report.files) == 1


def test_no_files(tmp_path: Path):
    with pytest.raises(ConfigRefusedError, match="no config file"):
        import_configs([])


def test_keys_of_later_files_are_prefixed(imported):
    r = imported({"t.yaml": TRAIN, "ds.json": '{"zero_optimization": {"stage": 2}}'})
    assert r.report.read["stage"] == "sft"
    assert r.report.read["ds.json:zero_optimization.stage"] == 2
    assert r.report.as_dict()["files"] == list(r.report.files)
