"""engine.config_import.torchtitan: torchtitan's TOML job configs (the JobConfig of its TOML series)."""

from __future__ import annotations

import pytest

from engine.config_import import ConfigRefusedError

BASE = '[model]\nname = "llama3"\nflavor = "8B"\n[training]\nlocal_batch_size = 2\nseq_len = 4096\n'


def test_its_defaults_checkpoint_every_second_layer_and_shard_over_eight(imported):
    # JobConfig: activation_checkpoint.mode "selective" with selective_ac_option "2"; run_train.sh's NGPU=8
    r = imported({"a.toml": BASE})
    s = r.setup
    assert (s.stack.value, s.checkpointing.value, s.checkpoint_every) == ("torchtitan", "full", 2)
    assert (s.gpus, s.sharding.value, s.batch, s.seq_len) == (8, "zero3", 2, 4096)
    assert s.precision.value == "bf16-mixed"


@pytest.mark.parametrize(("section", "expected"), [
    ('[activation_checkpoint]\nmode = "selective"\nselective_ac_option = "op"\n', ("op-selective", 1)),
    ('[activation_checkpoint]\nmode = "selective"\nselective_ac_option = "3"\n', ("full", 3)),
    ('[activation_checkpoint]\nmode = "full"\n', ("full", 1)),
    ('[activation_checkpoint]\nmode = "none"\n', ("none", 1)),
])
def test_activation_checkpointing(imported, section, expected):
    s = imported({"a.toml": BASE + section}).setup
    assert (s.checkpointing.value, s.checkpoint_every) == expected


def test_parallel_degrees_give_the_world_and_reshard_never_is_zero2(imported):
    text = BASE + ("[parallelism]\ndata_parallel_shard_degree = 4\ntensor_parallel_degree = 2\n"
                   'fsdp_reshard_after_forward = "never"\n[optimizer]\nname = "AdamW"\nimplementation = "foreach"\n')
    s = imported({"a.toml": text}).setup
    assert (s.gpus, s.parallel.tp, s.sharding.value, s.optimizer_impl.value) == (8, 2, "zero2", "foreach")


def test_a_shard_degree_of_one_is_ddp(imported):
    s = imported({"a.toml": BASE + "[parallelism]\ndata_parallel_shard_degree = 1\n"}).setup
    assert (s.gpus, s.sharding.value) == (1, "none")


def test_float8_and_unknown_flavors_are_refused_by_name(imported):
    with pytest.raises(ConfigRefusedError, match="float8"):
        imported({"a.toml": BASE.replace('flavor = "8B"\n', 'flavor = "8B"\nconverters = ["float8"]\n')})
    with pytest.raises(ConfigRefusedError, match="debugmodel"):
        imported({"a.toml": BASE.replace('"8B"', '"debugmodel"')})


def test_invalid_toml_is_refused(imported):
    with pytest.raises(ConfigRefusedError, match="not valid TOML"):
        imported({"a.toml": "[model\nname = 1\n"})
