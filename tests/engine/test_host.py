"""Host RAM per process and per node (engine/training/host.py): every path derived by hand.

P is Llama 2 70B's parameter count; bf16-mixed holds 2-byte weights, and an offloaded mixed-precision AdamW keeps
12 bytes of states (master copy, m, v) plus a 4-byte fp32 gradient per parameter on the CPU: 16P unsharded
(ZeRO-Offload, arXiv:2101.06840, s4).
"""

import pytest

from engine.catalog import get_gpu, get_model
from engine.specs import (
    DatasetStorage,
    HostSetup,
    Method,
    ModelLoading,
    ParallelSpec,
    Precision,
    Sharding,
    TrainingSetup,
)
from engine.training import estimate
from engine.training.host import (
    BATCH_BYTES_PER_TOKEN,
    BYTES_PER_TOKEN,
    COPY_ON_ACCESS_SHARE,
    CUDA_HOST_BYTES,
    ROW_GROUP_BYTES,
    RUNTIME_CPU_BYTES,
    STREAM_BUFFER_EXAMPLES,
    WORKER_BYTES,
    host_estimate,
    host_of,
)

M70 = get_model("llama-2-70b")
P = 68_976_648_192
W70 = 2 * P  # bf16 weights
R = RUNTIME_CPU_BYTES + CUDA_HOST_BYTES
GPU = get_gpu("h200")


def _setup(gpus=8, sharding=Sharding.ZERO3, **host):
    return TrainingSetup(gpus=gpus, sharding=sharding, host=HostSetup(**host))


def _terms(h):
    return {t.name: t for t in h.terms}


def _term(h, name, phase):
    return next(t for p in h.phases if p.name == phase for t in p.terms if t.name == name)


# -- offloaded states: the sharding bug ------------------------------------------------------------------------
def test_zero3_offload_on_one_node_is_one_unsharded_copy_not_eight():
    """The bug: 8,829 GB = 8 x 16P. Each of the 8 processes offloads its partition: 16P / 8, so 16P per node."""
    s = TrainingSetup(gpus=8, sharding=Sharding.ZERO3, offload_optimizer=True)
    h = host_estimate(M70, s)
    off = _term(h, "offloaded_states", "training")
    assert off.per_process == 2 * P
    assert off.per_node == 16 * P
    assert estimate(M70, s, GPU).host_bytes == h.per_node_bytes == 16 * P + 8 * R  # training: offload + runtime
    assert estimate(M70, s, GPU).host_bytes < 1.2e12  # was 8,829 GB


@pytest.mark.parametrize("sharding", [Sharding.ZERO1, Sharding.ZERO2, Sharding.ZERO3])
@pytest.mark.parametrize("n", [2, 4, 16])
def test_every_zero_stage_offloads_one_partition_per_process(sharding, n):
    s = TrainingSetup(gpus=n, sharding=sharding, offload_optimizer=True)
    off = _term(host_estimate(M70, s), "offloaded_states", "training")
    assert off.per_process == -(-16 * P // n)
    assert off.per_node == n * -(-16 * P // n)  # one node: the whole unsharded total (plus rounding)


def test_offloaded_parameters_add_the_weights_partition():
    s = TrainingSetup(gpus=8, sharding=Sharding.ZERO3, offload_optimizer=True, offload_params=True)
    assert _term(host_estimate(M70, s), "offloaded_states", "training").per_process == (16 * P + 2 * P) // 8


def test_two_nodes_hold_half_of_the_offload_each():
    s = TrainingSetup(gpus=16, sharding=Sharding.ZERO3, offload_optimizer=True, host=HostSetup(nodes=2))
    off = _term(host_estimate(M70, s), "offloaded_states", "training")
    assert off.per_process == P
    assert off.per_node == 8 * P


def test_without_sharding_every_process_offloads_everything():
    s = TrainingSetup(gpus=2, offload_optimizer=True)
    assert _term(host_estimate(M70, s), "offloaded_states", "training").per_node == 2 * 16 * P


def test_no_offload_no_offloaded_states():
    assert _term(host_estimate(M70, _setup()), "offloaded_states", "training").per_node == 0


# -- model loading ---------------------------------------------------------------------------------------------
def test_full_per_process_needs_eight_copies_on_one_node_of_eight():
    h = host_estimate(M70, _setup(model_loading=ModelLoading.FULL_PER_PROCESS))
    loading = _term(h, "model_loading", "loading")
    assert loading.per_node == 8 * W70
    assert h.per_node_bytes >= 8 * W70
    assert h.peak.name == "loading"


def test_meta_sharded_needs_about_one_copy():
    h = host_estimate(M70, _setup(model_loading=ModelLoading.META_SHARDED))
    loading = _term(h, "model_loading", "loading")
    assert loading.per_process == W70 // 8
    assert loading.per_node == W70
    assert W70 <= h.per_node_bytes < 1.1 * W70  # one copy plus eight runtimes


def test_rank0_broadcast_holds_one_copy_in_local_rank_0():
    h = host_estimate(M70, _setup(model_loading=ModelLoading.RANK0_BROADCAST))
    loading = _term(h, "model_loading", "loading")
    assert (loading.per_process, loading.per_node) == (W70, W70)
    assert h.per_process_bytes == W70 + R  # the busiest process: local rank 0


def test_loading_modes_on_two_nodes():
    def node(mode):
        s = TrainingSetup(gpus=16, sharding=Sharding.ZERO3, host=HostSetup(nodes=2, model_loading=mode))
        return _term(host_estimate(M70, s), "model_loading", "loading").per_node

    assert node(ModelLoading.FULL_PER_PROCESS) == 8 * W70
    assert node(ModelLoading.RANK0_BROADCAST) == W70  # every node's local rank 0
    assert node(ModelLoading.META_SHARDED) == 8 * (W70 // 16)


def test_one_gpu_loads_the_same_whichever_mode():
    m = get_model("llama-2-7b")
    loads = {mode: _term(host_estimate(m, TrainingSetup(host=HostSetup(model_loading=mode))), "model_loading",
                         "loading").per_node for mode in ModelLoading}
    assert set(loads.values()) == {2 * 6_738_415_616}


def test_fp32_weights_load_four_bytes_per_parameter():
    m = get_model("llama-2-7b")
    h = host_estimate(m, TrainingSetup(precision=Precision.AMP_BF16))
    assert _term(h, "model_loading", "loading").per_node == 4 * 6_738_415_616


def test_lora_loads_the_base_and_the_adapters():
    m = get_model("llama-2-7b")
    h = host_estimate(m, TrainingSetup(method=Method.LORA))
    assert _term(h, "model_loading", "loading").per_node == 2 * 6_738_415_616 + 4 * 39_976_960


# -- dataset and workers ---------------------------------------------------------------------------------------
def _data(s):
    h = host_estimate(M70, s)
    return _term(h, "dataset", "training").per_node + _term(h, "dataloader_workers", "training").per_node


def test_python_lists_with_four_workers_cost_over_twenty_times_arrow_on_the_node():
    """Issue 20's check, on its node (8 GPUs): every process holds its lists and its workers copy most of them
    (0.875 in one epoch, measured), while the node maps one Arrow file once."""
    tokens = 1_000_000_000
    lists = _data(_setup(dataset_tokens=tokens, dataset_storage=DatasetStorage.PYTHON_LISTS, num_workers=4))
    arrow = _data(_setup(dataset_tokens=tokens, dataset_storage=DatasetStorage.ARROW_MMAP, num_workers=4))
    alone = _data(_setup(dataset_tokens=tokens, dataset_storage=DatasetStorage.PYTHON_LISTS))
    assert lists > 20 * arrow
    assert lists > alone


def test_one_process_pays_lists_and_their_copies_against_one_mapped_file():
    """A single process: (90 + 0.875 x 90) B per token against 13.2, about 12.8 times (one epoch)."""
    tokens = 1_000_000_000
    lists = _data(_setup(1, dataset_tokens=tokens, dataset_storage=DatasetStorage.PYTHON_LISTS, num_workers=4))
    arrow = _data(_setup(1, dataset_tokens=tokens, dataset_storage=DatasetStorage.ARROW_MMAP, num_workers=4))
    assert lists / arrow == pytest.approx((1 + COPY_ON_ACCESS_SHARE) * BYTES_PER_TOKEN[DatasetStorage.PYTHON_LISTS]
                                          / BYTES_PER_TOKEN[DatasetStorage.ARROW_MMAP], rel=0.01)


def test_python_lists_are_held_by_every_process_arrow_once_per_node():
    tokens = 10**9
    lists = _term(host_estimate(M70, _setup(dataset_tokens=tokens, dataset_storage=DatasetStorage.PYTHON_LISTS)),
                  "dataset", "training")
    arrow = _term(host_estimate(M70, _setup(dataset_tokens=tokens, dataset_storage=DatasetStorage.ARROW_MMAP)),
                  "dataset", "training")
    assert lists.per_node == 8 * round(tokens * BYTES_PER_TOKEN[DatasetStorage.PYTHON_LISTS])
    assert arrow.per_node == round(tokens * BYTES_PER_TOKEN[DatasetStorage.ARROW_MMAP])
    assert arrow.per_process == -(-arrow.per_node // 8)


def test_numpy_workers_copy_nothing_but_hold_their_batches():
    s = TrainingSetup(batch=4, seq_len=2048, host=HostSetup(dataset_tokens=10**9, dataset_storage=DatasetStorage.NUMPY,
                                                            num_workers=3, prefetch_factor=5))
    w = _term(host_estimate(M70, s), "dataloader_workers", "training")
    assert w.per_node == 3 * WORKER_BYTES + 3 * 5 * 4 * 2048 * BATCH_BYTES_PER_TOKEN


def test_streaming_holds_a_buffer_and_a_row_group_per_reader():
    def data(tokens, workers):
        s = TrainingSetup(seq_len=1024, host=HostSetup(dataset_tokens=tokens, dataset_storage=DatasetStorage.STREAMING,
                                                       num_workers=workers))
        return _term(host_estimate(M70, s), "dataset", "training").per_node

    buffer = STREAM_BUFFER_EXAMPLES * 1024 * BYTES_PER_TOKEN[DatasetStorage.PYTHON_LISTS]
    assert data(10**9, 0) == data(10**12, 0) == round(buffer + ROW_GROUP_BYTES)  # a 100 MB row group at most
    assert data(10**9, 4) == round(4 * (buffer + ROW_GROUP_BYTES))
    assert data(10**6, 0) == round(buffer + 10**6 * BYTES_PER_TOKEN[DatasetStorage.ARROW_MMAP])  # smaller than one


def test_no_dataset_given_costs_nothing():
    h = host_estimate(M70, _setup(num_workers=4))
    assert _term(h, "dataset", "training").per_node == 0


# -- pinned buffers --------------------------------------------------------------------------------------------
def test_pinned_batches_are_power_of_two_blocks():
    s = TrainingSetup(batch=3, seq_len=1000, host=HostSetup(pin_memory=True, num_workers=2, prefetch_factor=2))
    pinned = _term(host_estimate(M70, s), "pinned_buffers", "training")
    assert pinned.per_process == 4 * 3 * 32_768  # 3 x 1000 x 8 = 24,000 B -> 32 KiB, 2 x 2 batches, 3 tensors
    s0 = TrainingSetup(batch=3, seq_len=1000, host=HostSetup(pin_memory=True))
    assert _term(host_estimate(M70, s0), "pinned_buffers", "training").per_process == 3 * 32_768
    off = TrainingSetup(batch=3, seq_len=1000)
    assert _term(host_estimate(M70, off), "pinned_buffers", "training").per_process == 0


# -- the whole ---------------------------------------------------------------------------------------------------
def test_defaults_hold_the_runtime_and_the_checkpoint():
    m = get_model("llama-2-7b")
    h = host_estimate(m, TrainingSetup())
    assert h.peak.name == "loading"
    assert h.per_node_bytes == h.per_process_bytes == R + 2 * 6_738_415_616
    assert estimate(m, TrainingSetup(), GPU).host_bytes == h.per_node_bytes
    assert h.verdict is None


def test_terms_at_the_peak_sum_to_the_node_total():
    s = _setup(dataset_tokens=10**8, dataset_storage=DatasetStorage.PYTHON_LISTS, num_workers=2, pin_memory=True)
    h = host_estimate(M70, s)
    assert sum(t.per_node for t in h.terms) == h.per_node_bytes
    assert [t.name for t in h.terms] == ["model_loading", "dataset", "dataloader_workers", "pinned_buffers",
                                         "offloaded_states", "runtime"]
    assert all(t.formula and t.source for t in h.terms)
    node, process = h.as_terms(), h.as_terms(per_node=False)  # what a chart stacks: engine.results.Terms
    assert [(t.name, t.bytes, t.formula, t.source) for t in node] == [
        (t.name, t.per_node, t.formula, t.source) for t in h.terms]
    assert [t.bytes for t in process] == [t.per_process for t in h.terms]
    assert sum(t.bytes for t in process) == h.per_process_bytes
    assert sum(t.share for t in node) == pytest.approx(1.0)


def test_verdict_against_the_nodes_ram():
    def verdict(gb):
        v = host_estimate(M70, _setup(ram_bytes=gb * 10**9)).verdict
        assert v is not None
        return v.value

    need = host_estimate(M70, _setup()).per_node_bytes / 1e9  # 8 copies of 138 GB + runtimes
    assert verdict(int(need) - 1) == "over"
    assert verdict(int(need * 1.05)) == "tight"
    assert verdict(int(need * 2)) == "fits"
    assert not host_estimate(M70, _setup(ram_bytes=int(need) * 10**8)).fits
    assert host_estimate(M70, _setup(ram_bytes=int(need * 2) * 10**9)).fits
    assert host_estimate(M70, _setup()).fits  # no RAM given: nothing to fit


def test_host_of_an_estimate_is_its_host_bytes():
    for s in (_setup(dataset_tokens=10**8, num_workers=2),
              TrainingSetup(gpus=8, activation_offload=True, checkpointing="full"),
              TrainingSetup(gpus=8, parallel=ParallelSpec(tp=2, pp=2, micro_batches=4))):
        e = estimate(M70, s, GPU)
        assert host_of(e).per_node_bytes == e.host_bytes


def test_nodes_must_divide_the_gpus():
    with pytest.raises(ValueError, match=r"multiple of host\.nodes"):
        TrainingSetup(gpus=8, host=HostSetup(nodes=3))
    assert TrainingSetup(gpus=8, host=HostSetup(nodes=2)).processes_per_node == 4


def test_cuda_free_runtime_is_the_measured_cpu_baseline():
    h = host_estimate(M70, TrainingSetup(), cuda=False)
    assert _term(h, "runtime", "loading").per_node == RUNTIME_CPU_BYTES


def test_the_issues_command_line_reports_one_copy_of_the_offload_per_node(capsys):
    """Issue 17: ``estimate --model llama-2-70b --gpus 8 --sharding zero3 --offload-optimizer`` printed 8,829 GB
    of host RAM (8 x 16P: the unsharded offload multiplied by the GPU count). By hand: 8 processes each offload
    their eighth of the 16P bytes of states (16P per node, 1,103.6 GB), plus 8 runtimes."""
    import json

    from engine.cli import main

    argv = ["estimate", "--model", "llama-2-70b", "--gpus", "8", "--sharding", "zero3", "--offload-optimizer",
            "--json"]
    assert main(argv) == 0
    host = json.loads(capsys.readouterr().out)["host"]
    assert host["terms"]["offloaded_states"] == 16 * P == 1_103_626_371_072
    assert host["per_node_bytes"] == 16 * P + 8 * R
    assert host["per_process_bytes"] == 2 * P + R
