"""Host RAM of a training run, per process and per node: the CPU side of the bill.

A run holds host memory in six places, each a function below that returns its bytes with its formula and source:
the Python/framework **runtime** of every process, **model loading** (the checkpoint read into RAM before it goes
to the GPU), the **dataset**, the **DataLoader workers**, **pinned buffers** and **offloaded states**. They do not
all live at once: the checkpoint is read, moved to the GPUs and dropped before offloaded optimizer states are
created and before the workers start. So the node's peak is the larger of two phases:

* ``loading``: runtime + model loading + dataset (loaded first by many scripts: counted);
* ``training``: runtime + dataset + DataLoader workers + pinned buffers + offloaded states (with ZeRO-Infinity's
  NVMe offload, its page-locked swap buffers instead of the states, which go to disk: ``disk_bytes``,
  ``engine.training.nvme``).

"Per process" is the busiest process of a node (local rank 0, which alone reads the checkpoint under
``rank0-broadcast``), with pages shared by the node's processes split evenly among them (the page cache of a
memory-mapped file: what PSS in ``/proc/<pid>/smaps_rollup`` does); "per node" is the sum over the node's
``gpus / nodes`` processes, shared pages counted once. Byte figures marked *measured* come from
``calibration/host_rss.py`` on this project's Debian 12 machine (Python 3.11.7, torch 2.13.0+cpu,
transformers 5.24, datasets 5.2): ``docs/accuracy.md`` lists every row and the error against it.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from functools import cached_property
from typing import TYPE_CHECKING, Any

from engine.results import Term, with_shares
from engine.specs import DatasetStorage, ModelLoading, ModelSpec, OffloadDevice, Sharding, TrainingSetup
from engine.terms import Scope, in_scope
from engine.terms import TermName as T
from engine.training.nvme import SOURCE as NVME_SOURCE
from engine.training.nvme import NvmeBytes, nvme_bytes
from engine.training.plan import resolve
from engine.training.result import TIGHT_HEADROOM, Verdict

if TYPE_CHECKING:
    from engine.training.result import Estimate

#: measured: RSS of a process after ``import torch, transformers`` and a Llama built on the meta device
#: (calibration row runtime-torch+transformers+meta-model; CPU build of torch)
RUNTIME_CPU_BYTES = 354_791_424
#: assumed, not measured here (no GPU): what the first CUDA use adds to a process's host RSS, CUDA context,
#: kernels and NCCL set up by a ``torch.distributed.barrier()``: 1,203.5 MiB (PyTorch issue #106511, torch 2.1);
#: with lazy module loading and a single tensor it was 113 MiB (PyTorch issue #113326): a range, the top taken
CUDA_HOST_BYTES = 1_261_961_216
#: measured bytes per token held in RAM: the slope of the dataset rows with no worker from 4 to 16 Mi tokens
#: (calibration/host_rss.py; a fixed 5-12 MB of DataLoader iteration in the main process is left out)
BYTES_PER_TOKEN = {
    # a dict of input_ids / attention_mask / labels lists per 512-token example, parsed from JSON: two 8-byte list
    # slots and two 32-byte int objects per token (ids and labels; the mask's 1s are CPython's cached small ints)
    DatasetStorage.PYTHON_LISTS: 90.0,
    DatasetStorage.NUMPY: 4.0,  # int32 (measured 4.10, with the loader's own few MB)
    # datasets' Arrow columns: int32 ids + int8 mask + int64 labels = 13 B, plus offsets and the file's metadata
    DatasetStorage.ARROW_MMAP: 13.2,
}
#: datasets' ``IterableDataset.shuffle(buffer_size=1000)`` default: examples a streaming reader holds
STREAM_BUFFER_EXAMPLES = 1_000
#: datasets 5.2 config.MAX_ROW_GROUP_SIZE: the Parquet row groups it writes hold at most 100 MB of Arrow data, and
#: its streaming reader decodes one whole row group at a time (packaged_modules/parquet/parquet.py)
ROW_GROUP_BYTES = 100_000_000
#: measured: what one forked DataLoader worker adds to its process tree when it copies none of the dataset
#: (NumPy rows: 15-17 MB of PSS each, 13-15 MB of it private)
WORKER_BYTES = 16_000_000
#: measured: share of a Python-object dataset that the workers of one process copy in one epoch, all together:
#: each worker touches the reference counts of the examples it loads (about 1/W of them) and so copies their
#: pages; 0.83 with 2 workers and 0.92 with 4 at 16 Mi tokens. Persistent workers keep copying in later epochs,
#: up to a whole copy each (PyTorch issue #13246): one epoch is what is costed
COPY_ON_ACCESS_SHARE = 0.875
#: bytes of one token in a collated batch: input_ids, attention_mask and labels as int64 tensors
BATCH_BYTES_PER_TOKEN = 3 * 8

_LOADING_SOURCE = (
    "transformers 5.24 modeling_utils.py _load_pretrained_model (safe_open, mmap) and core_model_loading.py "
    "_materialize_copy; accelerate 1.15 FullyShardedDataParallelPlugin.cpu_ram_efficient_loading and "
    "fsdp_utils.fsdp2_load_full_state_dict (rank 0 broadcasts); transformers 5.24 DistributedConfig(fsdp_size=N) "
    "(DtensorShardOperation: each rank reads its shard); measured: calibration/host_rss.py"
)
_DATASET_SOURCE = (
    "measured: calibration/host_rss.py (CPython 3.11: a list slot 8 B, an int object 32 B; datasets 5.2 "
    "arrow_writer.py stores input_ids as int32 and attention_mask as int8); streaming: datasets 5.2 "
    "IterableDataset.shuffle (buffer of 1,000 examples) and the Parquet reader (one row group, at most 100 MB), "
    "not checked against a measurement (docs/accuracy.md)"
)
_WORKERS_SOURCE = (
    "PyTorch issue #13246 (forked workers copy the pages of Python objects whose reference counts they touch); "
    "torch/utils/data/dataloader.py _try_put_index (at most prefetch_factor x num_workers batches outstanding); "
    "measured: calibration/host_rss.py (USS of each worker after one epoch)"
)
_PINNED_SOURCE = (
    "torch/utils/data/_utils/pin_memory.py (a thread copies each batch to page-locked memory); "
    "ATen/core/CachingHostAllocator.h (every block rounded up to a power of two and cached)"
)
_OFFLOAD_SOURCE = (
    "Ren et al. 2021 (ZeRO-Offload, arXiv:2101.06840) s4: fp32 master weights, optimizer states and fp32 "
    "gradients on the CPU, each process its partition; Rajbhandari et al. 2021 (ZeRO-Infinity, arXiv:2104.07857) "
    "for parameters; engine/training/states.py; activations: the estimate's offloaded_bytes (issue 19)"
)
_RUNTIME_SOURCE = (
    "measured: calibration/host_rss.py (import torch + transformers, model built on meta: 354.8 MB RSS, "
    "torch 2.13 CPU); assumed CUDA host side 1,203.5 MiB (PyTorch issue #106511; #113326 saw 113 MiB)"
)


@dataclass(frozen=True, slots=True)
class HostTerm:
    """One place that holds host RAM: bytes of the busiest process and of the whole node, formula, source."""

    name: str  # runtime, model_loading, dataset, dataloader_workers, pinned_buffers, offloaded_states
    per_process: int
    per_node: int
    formula: str
    source: str
    detail: str = ""

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(frozen=True, slots=True)
class HostPhase:
    """What the node holds in one phase (loading or training)."""

    name: str
    terms: tuple[HostTerm, ...]

    @property
    def per_node(self) -> int:
        return sum(t.per_node for t in self.terms)

    @property
    def per_process(self) -> int:
        return sum(t.per_process for t in self.terms)


#: the host terms in their stacking order (``engine.terms``: labels, colours; the CLI's ``host.terms`` order)
TERM_NAMES = in_scope(Scope.HOST)


@dataclass(frozen=True)
class HostEstimate:
    """Host RAM of one node at its peak phase, and the verdict against the node's RAM when it is given."""

    processes_per_node: int
    nodes: int
    phases: tuple[HostPhase, ...]
    ram_bytes: int | None
    offloaded_activations: int = 0  # per process, included in the training phase's offloaded_states
    #: what NVMe offload writes to disk, the whole node's (engine.training.nvme); 0 without
    disk_bytes: int = 0

    @cached_property
    def peak(self) -> HostPhase:
        """The phase that holds the most; a tie goes to training, the phase that lasts."""
        return max(reversed(self.phases), key=lambda p: p.per_node)

    @property
    def per_node_bytes(self) -> int:
        return self.peak.per_node

    @property
    def per_process_bytes(self) -> int:
        return self.peak.per_process

    @property
    def terms(self) -> tuple[HostTerm, ...]:
        """Every term at the peak phase, in TERM_NAMES order (a term of the other phase shows 0 bytes)."""
        live = {t.name: t for t in self.peak.terms}
        every = {t.name: t for p in self.phases for t in p.terms}
        return tuple(live.get(n) or HostTerm(n, 0, 0, every[n].formula, every[n].source, "not live at the peak")
                     for n in TERM_NAMES)

    @property
    def headroom_bytes(self) -> int | None:
        return None if self.ram_bytes is None else self.ram_bytes - self.per_node_bytes

    @property
    def fits(self) -> bool:
        """Whether the node's RAM holds the peak (``True`` when no RAM was given: nothing to fit)."""
        return self.ram_bytes is None or self.per_node_bytes <= self.ram_bytes

    def as_terms(self, per_node: bool = True) -> tuple[Term, ...]:
        """The terms at the peak phase as ``engine.results.Term``s, bytes of the whole node (or of the busiest
        process), each with its share: what a chart stacks and a table exports."""
        return with_shares(Term(t.name, t.per_node if per_node else t.per_process, t.formula, t.source, t.detail)
                           for t in self.terms)

    @property
    def verdict(self) -> Verdict | None:
        if self.ram_bytes is None or self.headroom_bytes is None:
            return None
        if self.headroom_bytes < 0:
            return Verdict.OVER
        return Verdict.TIGHT if self.headroom_bytes < TIGHT_HEADROOM * self.ram_bytes else Verdict.FITS


# -- the six terms ---------------------------------------------------------------------------------------------
def runtime(s: TrainingSetup, cuda: bool = True) -> HostTerm:
    """The interpreter, torch, transformers and the model's code in every process (+ the CUDA host side)."""
    one = RUNTIME_CPU_BYTES + (CUDA_HOST_BYTES if cuda else 0)
    formula = "processes x (python + torch + transformers" + (" + CUDA host side)" if cuda else ")")
    return HostTerm(T.RUNTIME, one, one * s.processes_per_node, formula, _RUNTIME_SOURCE)


def model_loading(s: TrainingSetup, weights: int) -> HostTerm:
    """The checkpoint in RAM before it reaches the GPUs: ``weights`` is the whole model as stored for training."""
    p, mode = s.processes_per_node, s.host.model_loading
    if mode is ModelLoading.FULL_PER_PROCESS:
        return HostTerm(T.MODEL_LOADING, weights, weights * p, "processes x whole weights", _LOADING_SOURCE,
                        "every process materialises the state dict; transformers 5 maps safetensors of the kept "
                        "dtype (shared, reclaimable page cache), a dtype change or a .bin file makes private copies")
    if mode is ModelLoading.RANK0_BROADCAST:
        return HostTerm(T.MODEL_LOADING, weights, weights, "whole weights, local rank 0 only", _LOADING_SOURCE,
                        "the other processes build the model on the meta device and receive rank 0's broadcast")
    shard = -(-weights // s.gpus)
    return HostTerm(T.MODEL_LOADING, shard, shard * p, "processes x weights / GPUs", _LOADING_SOURCE,
                    "each process reads only its own shard from the checkpoint")


def dataset_bytes_per_process(s: TrainingSetup) -> tuple[int, int]:
    """(private bytes of one process, bytes shared by the node) of the dataset, before any worker."""
    h = s.host
    if h.dataset_tokens == 0:
        return 0, 0
    if h.dataset_storage is DatasetStorage.STREAMING:
        readers = max(1, h.num_workers)  # each worker streams its own shards through its own buffer
        buffer = STREAM_BUFFER_EXAMPLES * s.seq_len * BYTES_PER_TOKEN[DatasetStorage.PYTHON_LISTS]
        row_group = min(ROW_GROUP_BYTES, h.dataset_tokens * BYTES_PER_TOKEN[DatasetStorage.ARROW_MMAP] / readers)
        return round(readers * (buffer + row_group)), 0
    held = round(h.dataset_tokens * BYTES_PER_TOKEN[h.dataset_storage])
    return (0, held) if h.dataset_storage is DatasetStorage.ARROW_MMAP else (held, 0)


def dataset(s: TrainingSetup) -> HostTerm:
    """The tokenized training set: a copy per process, except a memory-mapped file (once per node)."""
    h, p = s.host, s.processes_per_node
    private, shared = dataset_bytes_per_process(s)
    kind = h.dataset_storage
    if kind is DatasetStorage.STREAMING:
        per = BYTES_PER_TOKEN[DatasetStorage.PYTHON_LISTS]
        formula = (f"processes x max(1, workers) readers x ({STREAM_BUFFER_EXAMPLES:,} examples x s x {per} B "
                   f"+ one Parquet row group, at most {ROW_GROUP_BYTES / 1e6:.0f} MB)")
    elif kind is DatasetStorage.ARROW_MMAP:
        formula = f"tokens x {BYTES_PER_TOKEN[kind]} B, once per node (page cache shared by its processes)"
    else:
        formula = f"processes x tokens x {BYTES_PER_TOKEN[kind]} B"
    return HostTerm(T.DATASET, private + -(-shared // p), private * p + shared, formula, _DATASET_SOURCE,
                    f"{h.dataset_tokens:,} tokens as {kind.value}")


def dataloader_workers(s: TrainingSetup) -> HostTerm:
    """Forked workers: their own memory, the pages of a Python-object dataset they copy, batches in flight."""
    h, p = s.host, s.processes_per_node
    w = h.num_workers
    if w == 0:
        return HostTerm(T.DATALOADER_WORKERS, 0, 0, "no workers: the main process loads the batches",
                        _WORKERS_SOURCE)
    private, _ = dataset_bytes_per_process(s)
    copied = round(COPY_ON_ACCESS_SHARE * private) if h.dataset_storage is DatasetStorage.PYTHON_LISTS else 0
    batches = w * h.prefetch_factor * s.batch * s.seq_len * BATCH_BYTES_PER_TOKEN
    one = w * WORKER_BYTES + copied + batches
    formula = (f"processes x (workers x {WORKER_BYTES / 1e6:.0f} MB + copied share of a Python-object dataset + "
               f"workers x prefetch x b x s x {BATCH_BYTES_PER_TOKEN} B)")
    detail = ("Python objects: each worker copies the pages whose reference counts it touches"
              if copied else "NumPy / memory-mapped / streamed data: pages stay shared, nothing copied")
    return HostTerm(T.DATALOADER_WORKERS, one, one * p, formula, _WORKERS_SOURCE, detail)


def _pow2(n: int) -> int:
    return 1 << max(0, n - 1).bit_length()


def pinned_buffers(s: TrainingSetup) -> HostTerm:
    """Page-locked copies of the batches in flight (``pin_memory=True``), each tensor a power-of-two block."""
    h, p = s.host, s.processes_per_node
    if not h.pin_memory:
        return HostTerm(T.PINNED_BUFFERS, 0, 0, "pin_memory off", _PINNED_SOURCE)
    in_flight = max(1, h.num_workers * h.prefetch_factor)
    one = in_flight * 3 * _pow2(s.batch * s.seq_len * 8)
    formula = "processes x max(1, workers x prefetch) x 3 tensors x pow2ceil(b x s x 8 B)"
    return HostTerm(T.PINNED_BUFFERS, one, one * p, formula, _PINNED_SOURCE)


def offloaded_states(s: TrainingSetup, host_total: int, activations: int = 0,
                     nvme: NvmeBytes | None = None) -> HostTerm:
    """Offloaded optimizer states (and parameters), plus offloaded activations: ``host_total`` is the whole
    model's states, unsharded. ZeRO partitions them over every GPU (tensor and pipeline parallelism split them too);
    without ZeRO each data-parallel replica keeps a whole copy, spread over its tp x pp x cp GPUs; stages are taken
    as even. ``activations``: what one GPU's process moves to the host with activation offload (the estimate's
    ``offloaded_bytes``: torchtune / TRL OffloadActivations)."""
    p = s.processes_per_node
    replicas = 1 if s.sharding is not Sharding.NONE else s.dp
    pinned = nvme.pinned if nvme is not None else 0
    one = -(-host_total * replicas // s.gpus) + activations + pinned
    formula = "processes x (offloaded states" + (
        " / GPUs, each its ZeRO partition" if replicas == 1 and s.gpus > 1 else
        " x data-parallel replicas / GPUs" if s.gpus > 1 else "") + (
        " + offloaded activations" if activations else "") + (
        " + NVMe offload's pinned buffers)" if pinned else ")")
    details = ([f"{activations:,} B of activations per process"] if activations else []) + (
        [f"NVMe: {nvme.detail}; {nvme.disk:,} B on disk per process"] if nvme is not None and nvme.detail else [])
    return HostTerm(T.OFFLOADED_STATES, one, one * p, formula,
                    _OFFLOAD_SOURCE + ("; " + NVME_SOURCE if pinned else ""), "; ".join(details))


# -- the estimate ----------------------------------------------------------------------------------------------
def _estimate(s: TrainingSetup, weights: int, offloaded: int, activations: int, *, cuda: bool,
              nvme: NvmeBytes | None) -> HostEstimate:
    base, data = runtime(s, cuda), dataset(s)
    loading = HostPhase("loading", (base, model_loading(s, weights), data))
    training = HostPhase("training", (base, data, dataloader_workers(s), pinned_buffers(s),
                                      offloaded_states(s, offloaded, activations, nvme)))
    disk = nvme.disk * s.processes_per_node if nvme is not None else 0
    return HostEstimate(s.processes_per_node, s.host.nodes, (loading, training), s.host.ram_bytes, activations,
                        disk)


_CACHE: dict[tuple[object, ...], HostEstimate] = {}


def host_estimate(m: ModelSpec, s: TrainingSetup, activations: int = 0, cuda: bool = True) -> HostEstimate:
    """Host RAM of one node of the run (module docstring); ``cuda=False`` leaves out the CUDA host side.

    The checkpoint and the offloaded states are the whole model's, unsharded (``engine.training.plan.Plan``:
    ``weights_full``, ``host_total``); ``activations``: bytes each process offloads with activation offload.
    Cached on plain values (every estimate asks: a pydantic setup hashes and compares slowly)."""
    plan = resolve(m, s)
    h = s.host
    nvme = nvme_bytes(m, s, plan) if OffloadDevice.NVME in (s.offload_optimizer_device, s.offload_params_device) \
        else None
    key = (h.model_loading, h.dataset_tokens, h.dataset_storage, h.num_workers, h.prefetch_factor, h.pin_memory,
           h.nodes, h.ram_bytes, s.gpus, s.sharding, s.dp, s.batch, s.seq_len, plan.weights_full, plan.host_total,
           activations, cuda, nvme)
    hit = _CACHE.get(key)
    if hit is None:
        if len(_CACHE) > 1_024:
            _CACHE.clear()
        hit = _CACHE[key] = _estimate(s, plan.weights_full, plan.host_total, activations, cuda=cuda, nvme=nvme)
    return hit


def host_of(e: Estimate) -> HostEstimate:
    """The host-RAM model of an estimate's run: ``e.host_bytes`` is its ``per_node_bytes`` (the estimate made it
    with the same arguments; with a parallel layout, from the whole model's states)."""
    return host_estimate(e.model, e.setup, activations=e.offloaded_bytes)
