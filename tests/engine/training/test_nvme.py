"""ZeRO-Infinity's NVMe offload by hand, from DeepSpeed 0.19.8's swappers (engine.training.nvme): what goes to
disk, what stays pinned in host RAM."""

from __future__ import annotations

from typing import Any

import pytest

from engine.catalog import get_gpu, get_model
from engine.commands.estimate_output import to_json
from engine.specs import Method, OffloadDevice, Sharding, TrainingSetup
from engine.training import estimate
from engine.training.host import host_estimate
from engine.training.nvme import largest_sub_group, nvme_bytes
from engine.training.plan import resolve

LLAMA_7B = get_model("llama-2-7b")
P = 6_738_415_616
NVME = OffloadDevice.NVME


def _setup(gpus: int, **kw: object) -> TrainingSetup:
    return TrainingSetup(gpus=gpus, sharding=Sharding.ZERO3, offload_optimizer=True, offload_params=True, **kw)


def test_sub_groups_fill_to_a_billion_in_order() -> None:
    """Partitions are added until 1e9: 6e8 + 6e8 closes a group of 1.2e9; the last group holds what is left."""
    assert largest_sub_group([600_000_000, 600_000_000, 300_000_000], 1, 4) == (1_200_000_000, 1_200_000_000)
    assert largest_sub_group([600_000_000, 600_000_000, 300_000_000], 2, 4)[0] == 750_000_000  # one group


def test_optimizer_states_go_to_disk_through_four_pinned_buffers() -> None:
    """One GPU: the fp32 master weights, two fp32 AdamW states and fp32 gradients (16 bytes a parameter) on
    disk; in RAM, four pinned fp32 buffers of the largest sub-group (io-aligned to 256 values)."""
    s = _setup(1, offload_optimizer_device=NVME)
    got = nvme_bytes(LLAMA_7B, s, resolve(LLAMA_7B, s))
    assert got.disk == 16 * P
    assert got.pinned % (4 * 4 * 256) == 0
    assert 4 * 4 * 1_000_000_000 <= got.pinned <= 4 * 4 * 1_100_000_000


def test_parameters_beyond_max_in_cpu_go_to_disk() -> None:
    """One GPU, bf16: the first 1e9 values stay in a pinned CPU buffer, the rest (5.74e9) on disk; five pinned
    buffers of 1e8 values and the largest sub-group's whole tensors for swapping."""
    s = _setup(1, offload_params_device=NVME)
    got = nvme_bytes(LLAMA_7B, s, resolve(LLAMA_7B, s))
    assert got.disk == 2 * (P - 1_000_000_000)
    assert got.pinned >= 2 * (1_000_000_000 + 5 * 100_000_000 + 1_000_000_000)


def test_nvme_takes_the_states_out_of_host_ram_and_reports_the_disk() -> None:
    cpu, disk = _setup(1), _setup(1, offload_optimizer_device=NVME, offload_params_device=NVME)
    assert host_estimate(LLAMA_7B, disk).per_node_bytes < host_estimate(LLAMA_7B, cpu).per_node_bytes / 4
    data = to_json(estimate(LLAMA_7B, disk, get_gpu("h200")))
    assert data["disk_bytes"] == data["host"]["disk_bytes"] == 16 * P + 2 * (P - 1_000_000_000)
    assert "disk_bytes" not in to_json(estimate(LLAMA_7B, cpu, get_gpu("h200")))


def test_eight_gpus_with_the_default_sub_group_pin_a_whole_partition() -> None:
    """8 GPUs: each partition (842M values) is one sub-group under 1e9, so the four fp32 buffers pin as much as
    CPU offload's 16 bytes a parameter would: NVMe saves no host RAM at DeepSpeed's default sub_group_size."""
    s = _setup(8, offload_optimizer_device=NVME)
    got = nvme_bytes(LLAMA_7B, s, resolve(LLAMA_7B, s))
    assert got.pinned == pytest.approx(16 * P / 8, rel=1e-4)


@pytest.mark.parametrize("bad", [{"offload_optimizer_device": NVME, "sharding": Sharding.ZERO2, "gpus": 2,
                                  "offload_optimizer": True},
                                 {"offload_optimizer_device": NVME},
                                 {"offload_params": True, "offload_params_device": NVME, "sharding": Sharding.ZERO3,
                                  "method": Method.LORA}])
def test_nvme_refusals(bad: dict[str, Any]) -> None:
    with pytest.raises(ValueError, match=r"nvme|NVMe"):
        TrainingSetup(**bad)
